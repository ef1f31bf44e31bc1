import { endpoint } from '../../shared/api/endpoint';
import { getSavedGroup } from '../../shared/contracts/saved-groups';
import { savedGroups } from '../../shared/store/saved-groups';

export const handler = endpoint(getSavedGroup, async ({ params, auth }) => ({
  savedGroup: await savedGroups.get(auth.orgId, params.id),
}));
