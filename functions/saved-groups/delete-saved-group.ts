import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteSavedGroup } from '../../shared/contracts/saved-groups';
import { savedGroups } from '../../shared/store/saved-groups';

export const handler = endpoint(deleteSavedGroup, async ({ params, auth }) => {
  await savedGroups.remove(auth.orgId, params.id, (group) => assertCan(auth, deleteSavedGroup.permission, group.projects));
  return { deletedId: params.id };
});
