import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listFactTables } from '../../shared/contracts/fact-tables';
import { publicFactTable } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';
import { inProjectFilter } from '../../shared/domain/project-tags';

export const handler = endpoint(listFactTables, async ({ query, auth }) => {
  const tags = [
    ...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []),
    ...inProjectFilter(query.projectId),
  ];
  const page = await factTables.list(auth.orgId, { ...query, tags });
  return paginated('factTables', { ...page, items: page.items.map(publicFactTable) }, query);
});
