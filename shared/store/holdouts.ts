import type { Holdout } from '../contracts/holdouts';
import { prepareTouch } from '../payload/write';
import { repository } from '../db/repository';

export const holdouts = repository<Holdout>({
  type: 'HOLDOUT',
  label: 'Holdout',
  // SDK payloads gate the features of a live holdout.
  touch: (orgId, { id }) => [prepareTouch(orgId, id)],
  listTags: (holdout) => [`stage:${holdout.stage}`, ...holdout.projects.map((project) => `project:${project}`)],
});
