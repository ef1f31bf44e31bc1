import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postFactTableFilter } from '../../shared/contracts/fact-tables';
import { newFilter, withFilter } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';
import { newId } from '../../shared/ids';

export const handler = endpoint(postFactTableFilter, async ({ params, body, auth }) => {
  const factTableFilter = newFilter(newId('flt_'), body, new Date().toISOString());
  await factTables.update(auth.orgId, params.factTableId, (table) => {
    assertCan(auth, postFactTableFilter.permission, table.projects);
    return withFilter(table, factTableFilter);
  });
  return { factTableFilter };
});
