import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listNamespaces } from '../../shared/contracts/namespaces';
import { toApiNamespace } from '../../shared/domain/namespaces';
import { namespaces } from '../../shared/store/namespaces';

export const handler = endpoint(listNamespaces, async ({ query, auth }) => {
  const page = await namespaces.list(auth.orgId, query);
  return paginated('namespaces', { items: page.items.map(toApiNamespace), total: page.total }, query);
});
