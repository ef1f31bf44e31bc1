import type { Holdout } from '../contracts/holdouts';
import { repository } from './repository';

export const holdouts = repository<Holdout>({
  type: 'HOLDOUT',
  label: 'Holdout',
  listTags: (holdout) => [`stage:${holdout.stage}`, ...holdout.projects.map((project) => `project:${project}`)],
});
