import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listFactMetrics } from '../../shared/contracts/fact-metrics';
import { factMetrics } from '../../shared/store/fact-metrics';
import { inProjectFilter } from '../../shared/domain/project-tags';

export const handler = endpoint(listFactMetrics, async ({ query, auth }) => {
  const tags = [
    ...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []),
    ...inProjectFilter(query.projectId),
    ...(query.factTableId ? [`factTable:${query.factTableId}`] : []),
  ];
  return paginated('factMetrics', await factMetrics.list(auth.orgId, { ...query, tags }), query);
});
