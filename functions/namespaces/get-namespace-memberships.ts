import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { getNamespaceMemberships } from '../../shared/contracts/namespaces';
import { namespaceMembers } from '../../shared/domain/namespaces';
import { namespaceUsers, namespaces } from '../../shared/store/namespaces';

export const handler = endpoint(getNamespaceMemberships, async ({ params, query, auth }) => {
  // Independent reads go out together: the namespace (404 when unknown) and the experiments naming it.
  const [, users] = await Promise.all([namespaces.get(auth.orgId, params.id), namespaceUsers(auth.orgId, params.id)]);
  const members = namespaceMembers(users, params.id);
  return paginated('experiments', { items: members.slice(query.offset, query.offset + query.limit), total: members.length }, query);
});
