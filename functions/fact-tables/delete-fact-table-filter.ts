import { endpoint } from '../../shared/api/endpoint';
import { ConflictError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { deleteFactTableFilter } from '../../shared/contracts/fact-tables';
import { findFilter, withoutFilter } from '../../shared/domain/fact-tables';
import { factTables, usersOfFactTable } from '../../shared/store/fact-tables';

/** Removes a filter from its table; refused while fact metrics or segments use it. */
export const handler = endpoint(deleteFactTableFilter, async ({ params, auth }) => {
  await factTables.update(auth.orgId, params.factTableId, async (current) => {
    assertCan(auth, deleteFactTableFilter.permission, current.projects);
    findFilter(current, params.id);
    const users = await usersOfFactTable(auth.orgId, params.factTableId, params.id);
    if (users.length) {
      throw new ConflictError('invalid_status', `Filter ${params.id} is used by ${users.join(', ')}; change those first`);
    }
    return withoutFilter(current, params.id);
  });
  return { deletedId: params.id };
});
