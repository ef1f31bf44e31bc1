import * as contract from '../contracts/fact-table-virtual-columns';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { findVirtualColumn, withNewVirtualColumn, withVirtualColumnChanged } from '../domain/virtual-columns';
import { assertCan } from '../permissions';
import { factTables } from '../store/fact-tables';
import { readableOr404 } from './read-access';

/** `POST /fact-tables/{factTableId}/virtual-columns`: add a computed column. */
export async function postFactTableVirtualColumn({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postFactTableVirtualColumn>): UseCaseOutput<typeof contract.postFactTableVirtualColumn> {
  const table = await factTables.update(auth.orgId, params.factTableId, (current) => {
    readableOr404(auth, current, current.projects, 'Fact table', params.factTableId);
    assertCan(auth, contract.postFactTableVirtualColumn.permission, current.projects);
    return withNewVirtualColumn(current, body, new Date().toISOString());
  });
  return { factTableColumn: findVirtualColumn(table, body.column) };
}

/** `POST /fact-tables/{factTableId}/virtual-columns/{id}`: change a computed column. */
export async function updateFactTableVirtualColumn({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateFactTableVirtualColumn>): UseCaseOutput<typeof contract.updateFactTableVirtualColumn> {
  const table = await factTables.update(auth.orgId, params.factTableId, (current) => {
    readableOr404(auth, current, current.projects, 'Fact table', params.factTableId);
    assertCan(auth, contract.updateFactTableVirtualColumn.permission, current.projects);
    return withVirtualColumnChanged(current, params.id, body, new Date().toISOString());
  });
  return { factTableColumn: findVirtualColumn(table, params.id) };
}

/** `DELETE /fact-tables/{factTableId}/virtual-columns/{id}`: remove a computed column. */
export async function deleteFactTableVirtualColumn({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteFactTableVirtualColumn>): UseCaseOutput<typeof contract.deleteFactTableVirtualColumn> {
  await factTables.update(auth.orgId, params.factTableId, (current) => {
    readableOr404(auth, current, current.projects, 'Fact table', params.factTableId);
    assertCan(auth, contract.deleteFactTableVirtualColumn.permission, current.projects);
    return withVirtualColumnChanged(current, params.id, undefined, new Date().toISOString());
  });
  return { deletedId: params.id };
}
