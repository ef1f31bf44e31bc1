import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteSavedGroup } from '../../shared/contracts/saved-groups';
import { savedGroups } from '../../shared/store/saved-groups';
import { touchSdkPayloads } from '../../shared/store/sdk-payloads';

export const handler = endpoint(deleteSavedGroup, async ({ params, auth }) => {
  await savedGroups.remove(auth.orgId, params.id, (group) => assertCan(auth, 'write', group.projects));
  // Payloads read groups fresh, but SDKs only reload a payload whose dateUpdated moved.
  await touchSdkPayloads(auth.orgId);
  return { deletedId: params.id };
});
