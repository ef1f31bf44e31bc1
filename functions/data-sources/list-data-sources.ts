import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listDataSources } from '../../shared/contracts/data-sources';
import { dataSources } from '../../shared/store/data-sources';

/**
 * An organization has a handful of data sources, so the list reads them all and pages in memory,
 * in GrowthBook's order (by id). As in GrowthBook, `projectId` also matches data sources that
 * belong to no project, since those serve every project.
 */
export const handler = endpoint(listDataSources, async ({ query, auth }) => {
  const all = (await dataSources.all(auth.orgId))
    .filter((ds) => !query.projectId || ds.projectIds.length === 0 || ds.projectIds.includes(query.projectId))
    .sort((a, b) => (a.id < b.id ? -1 : 1)); // code-point order, as DynamoDB and GrowthBook sort ids
  return paginated('dataSources', { items: all.slice(query.offset, query.offset + query.limit), total: all.length }, query);
});
