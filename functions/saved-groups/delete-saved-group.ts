import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteSavedGroup } from '../../shared/contracts/saved-groups';
import { savedGroups } from '../../shared/store/saved-groups';
import { touchSdkPayloads } from '../../shared/store/sdk-payloads';

export const handler = endpoint(deleteSavedGroup, async ({ params, auth }) => {
  await savedGroups.remove(auth.orgId, params.id, (group) => assertCan(auth, deleteSavedGroup.permission, group.projects));
  // Cached SDK payloads are rebuilt only when a version moves, and SDKs reload only when dateUpdated moves.
  await touchSdkPayloads(auth.orgId);
  return { deletedId: params.id };
});
