import { endpoint } from '../../shared/api/endpoint';
import { ConflictError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { deleteFactTable } from '../../shared/contracts/fact-tables';
import { factTables, usersOfFactTable } from '../../shared/store/fact-tables';

/**
 * Deletes the table and, in the same item, its filters. A table that fact metrics or segments
 * still use is refused: deleting it would leave them pointing at nothing.
 */
export const handler = endpoint(deleteFactTable, async ({ params, auth }) => {
  await factTables.remove(auth.orgId, params.id, async (table) => {
    assertCan(auth, deleteFactTable.permission, table.projects);
    const users = await usersOfFactTable(auth.orgId, params.id);
    if (users.length) {
      throw new ConflictError('invalid_status', `Fact table ${params.id} is used by ${users.join(', ')}; delete or change those first`);
    }
  });
  return { deletedId: params.id };
});
