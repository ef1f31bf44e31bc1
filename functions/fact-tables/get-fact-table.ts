import { endpoint } from '../../shared/api/endpoint';
import { getFactTable } from '../../shared/contracts/fact-tables';
import { publicFactTable } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';

export const handler = endpoint(getFactTable, async ({ params, auth }) => ({
  factTable: publicFactTable(await factTables.get(auth.orgId, params.id)),
}));
