import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateFactTable } from '../../shared/contracts/fact-tables';
import { publicFactTable, updatedFactTable } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';
import { resolveOwner } from '../../shared/store/members';
import { withOwner } from '../../shared/domain/owner';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(updateFactTable, async ({ params, body, auth }) => {
  const { owner: ownerInput, ...change } = body;
  const now = new Date().toISOString();
  // The body's references are checked after the read, so an unknown table is 404 first.
  const table = await factTables.update(auth.orgId, params.id, async (current) => {
    await assertProjectsExist(auth.orgId, change.projects);
    const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
    assertCan(auth, updateFactTable.permission, current.projects);
    if (change.projects) assertCan(auth, updateFactTable.permission, change.projects);
    return withOwner(updatedFactTable(current, change, now), owner);
  });
  return { factTable: publicFactTable(table) };
});
