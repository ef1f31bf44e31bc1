import type { SavedGroup } from '../contracts/saved-groups';
import { prepareTouch } from '../payload/write';
import { repository } from '../db/repository';

export const savedGroups = repository<SavedGroup>({
  type: 'SAVED_GROUP',
  label: 'Saved group',
  // SDK payloads inline the groups their rules name.
  touch: (orgId, { id }) => [prepareTouch(orgId, id)],
});
