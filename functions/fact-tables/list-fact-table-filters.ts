import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listFactTableFilters } from '../../shared/contracts/fact-tables';
import { pageOf } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';

export const handler = endpoint(listFactTableFilters, async ({ params, query, auth }) => {
  const table = await factTables.get(auth.orgId, params.factTableId);
  return paginated('factTableFilters', pageOf(table.filters, query), query);
});
