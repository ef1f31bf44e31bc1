import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listDimensions } from '../../shared/contracts/dimensions';
import { dimensions } from '../../shared/store/dimensions';

export const handler = endpoint(listDimensions, async ({ query, auth }) => {
  const tags = query.datasourceId ? [`datasource:${query.datasourceId}`] : [];
  return paginated('dimensions', await dimensions.list(auth.orgId, { ...query, tags }), query);
});
