import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listSegments } from '../../shared/contracts/segments';
import { segments } from '../../shared/store/segments';

export const handler = endpoint(listSegments, async ({ query, auth }) => {
  const tags = query.datasourceId ? [`datasource:${query.datasourceId}`] : [];
  return paginated('segments', await segments.list(auth.orgId, { ...query, tags }), query);
});
