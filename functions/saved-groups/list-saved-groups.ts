import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listSavedGroups } from '../../shared/contracts/saved-groups';
import { savedGroups } from '../../shared/store/saved-groups';

export const handler = endpoint(listSavedGroups, async ({ query, auth }) =>
  paginated('savedGroups', await savedGroups.list(auth.orgId, query), query),
);
