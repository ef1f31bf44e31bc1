import { endpoint } from '../../shared/api/endpoint';
import { getFactTableFilter } from '../../shared/contracts/fact-tables';
import { findFilter } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';

export const handler = endpoint(getFactTableFilter, async ({ params, auth }) => ({
  factTableFilter: findFilter(await factTables.get(auth.orgId, params.factTableId), params.id),
}));
