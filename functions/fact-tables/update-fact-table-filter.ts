import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateFactTableFilter } from '../../shared/contracts/fact-tables';
import { changedFilter, findFilter, withFilter } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';

export const handler = endpoint(updateFactTableFilter, async ({ params, body, auth }) => {
  const now = new Date().toISOString();
  const table = await factTables.update(auth.orgId, params.factTableId, (current) => {
    assertCan(auth, updateFactTableFilter.permission, current.projects);
    return withFilter(current, changedFilter(findFilter(current, params.id), body, now));
  });
  return { factTableFilter: findFilter(table, params.id) };
});
