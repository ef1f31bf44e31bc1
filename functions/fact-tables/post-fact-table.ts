import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postFactTable } from '../../shared/contracts/fact-tables';
import { newFactTable, publicFactTable } from '../../shared/domain/fact-tables';
import { factTables } from '../../shared/store/fact-tables';
import { newId } from '../../shared/ids';
import { ownerForCreate } from '../../shared/store/members';
import { assertProjectsExist } from '../../shared/store/projects';
import { dataSources } from '../../shared/store/data-sources';
import { assertReferences } from '../../shared/db/repository';

export const handler = endpoint(postFactTable, async ({ body, auth }) => {
  assertCan(auth, postFactTable.permission, body.projects);
  await Promise.all([
    assertProjectsExist(auth.orgId, body.projects),
    assertReferences(auth.orgId, dataSources, [{ field: 'datasource', id: body.datasource }]),
  ]);
  const { owner: ownerInput, ...data } = body;
  const owner = await ownerForCreate(auth.orgId, ownerInput, auth.memberId);
  const table = await factTables.create(
    auth.orgId,
    newFactTable(newId('ftb_'), data, owner),
  );
  return { factTable: publicFactTable(table) };
});
