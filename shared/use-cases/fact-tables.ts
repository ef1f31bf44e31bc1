import * as contract from '../contracts/fact-tables';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertReferences } from '../db/repository';
import {
  changedFilter,
  findFilter,
  newFactTable,
  newFilter,
  pageOf,
  publicFactTable,
  updatedFactTable,
  withFilter,
  withoutFilter,
} from '../domain/fact-tables';
import { withOwner } from '../domain/owner';
import { paginated } from '../domain/pagination';
import { inProjectFilter } from '../domain/project-tags';
import { ConflictError } from '../errors';
import { newId } from '../ids';
import { assertCan, type Principal } from '../permissions';
import { dataSources } from '../store/data-sources';
import { factTables, usersOfFactTable } from '../store/fact-tables';
import { ownerForCreate, resolveOwner } from '../store/members';
import { assertProjectsExist } from '../store/projects';
import { readableOr404, visibleTo } from './read-access';

/** A fact table the caller may read (404 as if missing otherwise). */
async function readableTable(auth: Principal, id: string) {
  const table = await factTables.get(auth.orgId, id);
  return readableOr404(auth, table, table.projects ?? [], 'Fact table', id);
}

/** Removes a filter from its table; refused while fact metrics or segments use it. */
export async function deleteFactTableFilter({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteFactTableFilter>): UseCaseOutput<typeof contract.deleteFactTableFilter> {
  await factTables.update(auth.orgId, params.factTableId, async (current) => {
    assertCan(auth, contract.deleteFactTableFilter.permission, current.projects);
    findFilter(current, params.id);
    const users = await usersOfFactTable(auth.orgId, params.factTableId, params.id);
    if (users.length) {
      throw new ConflictError('invalid_status', `Filter ${params.id} is used by ${users.join(', ')}; change those first`);
    }
    return withoutFilter(current, params.id);
  });
  return { deletedId: params.id };
}

/**
 * Deletes the table and, in the same item, its filters. A table that fact metrics or segments
 * still use is refused: deleting it would leave them pointing at nothing.
 */
export async function deleteFactTable({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteFactTable>): UseCaseOutput<typeof contract.deleteFactTable> {
  await factTables.remove(auth.orgId, params.id, async (table) => {
    assertCan(auth, contract.deleteFactTable.permission, table.projects);
    const users = await usersOfFactTable(auth.orgId, params.id);
    if (users.length) {
      throw new ConflictError('invalid_status', `Fact table ${params.id} is used by ${users.join(', ')}; delete or change those first`);
    }
  });
  return { deletedId: params.id };
}

/** `GET /fact-tables/{factTableId}/filters/{id}`: get a fact table filter. */
export async function getFactTableFilter({
  params,
  auth,
}: UseCaseInput<typeof contract.getFactTableFilter>): UseCaseOutput<typeof contract.getFactTableFilter> {
  return {
    factTableFilter: findFilter(await readableTable(auth, params.factTableId), params.id),
  };
}

/** `GET /fact-tables/{id}`: get a fact table. */
export async function getFactTable({ params, auth }: UseCaseInput<typeof contract.getFactTable>): UseCaseOutput<typeof contract.getFactTable> {
  return {
    factTable: publicFactTable(await readableTable(auth, params.id)),
  };
}

/** `GET /fact-tables/{factTableId}/filters`: list the filters of a fact table. */
export async function listFactTableFilters({
  params,
  query,
  auth,
}: UseCaseInput<typeof contract.listFactTableFilters>): UseCaseOutput<typeof contract.listFactTableFilters> {
  const table = await readableTable(auth, params.factTableId);
  return paginated('factTableFilters', pageOf(table.filters, query), query);
}

/** `GET /fact-tables`: list fact tables. */
export async function listFactTables({ query, auth }: UseCaseInput<typeof contract.listFactTables>): UseCaseOutput<typeof contract.listFactTables> {
  const tags = [...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []), ...inProjectFilter(query.projectId)];
  const page = await factTables.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) });
  return paginated('factTables', { ...page, items: page.items.map(publicFactTable) }, query);
}

/** `POST /fact-tables/{factTableId}/filters`: create a fact table filter. */
export async function postFactTableFilter({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postFactTableFilter>): UseCaseOutput<typeof contract.postFactTableFilter> {
  const factTableFilter = newFilter(newId('flt_'), body, new Date().toISOString());
  await factTables.update(auth.orgId, params.factTableId, (table) => {
    assertCan(auth, contract.postFactTableFilter.permission, table.projects);
    return withFilter(table, factTableFilter);
  });
  return { factTableFilter };
}

/** `POST /fact-tables`: create a fact table. */
export async function postFactTable({ body, auth }: UseCaseInput<typeof contract.postFactTable>): UseCaseOutput<typeof contract.postFactTable> {
  assertCan(auth, contract.postFactTable.permission, body.projects);
  await Promise.all([
    assertProjectsExist(auth.orgId, body.projects),
    assertReferences(auth.orgId, dataSources, [{ field: 'datasource', id: body.datasource }]),
  ]);
  const { owner: ownerInput, ...data } = body;
  const owner = await ownerForCreate(auth.orgId, ownerInput, auth.memberId);
  const table = await factTables.create(auth.orgId, newFactTable(newId('ftb_'), data, owner));
  return { factTable: publicFactTable(table) };
}

/** `POST /fact-tables/{factTableId}/filters/{id}`: partially update a fact table filter. */
export async function updateFactTableFilter({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateFactTableFilter>): UseCaseOutput<typeof contract.updateFactTableFilter> {
  const now = new Date().toISOString();
  const table = await factTables.update(auth.orgId, params.factTableId, (current) => {
    assertCan(auth, contract.updateFactTableFilter.permission, current.projects);
    return withFilter(current, changedFilter(findFilter(current, params.id), body, now));
  });
  return { factTableFilter: findFilter(table, params.id) };
}

/** `POST /fact-tables/{id}`: partially update a fact table. */
export async function updateFactTable({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateFactTable>): UseCaseOutput<typeof contract.updateFactTable> {
  const { owner: ownerInput, ...change } = body;
  const now = new Date().toISOString();
  // The body's references are checked after the read, so an unknown table is 404 first.
  const table = await factTables.update(auth.orgId, params.id, async (current) => {
    await assertProjectsExist(auth.orgId, change.projects);
    const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
    assertCan(auth, contract.updateFactTable.permission, current.projects);
    if (change.projects) assertCan(auth, contract.updateFactTable.permission, change.projects);
    return withOwner(updatedFactTable(current, change, now), owner);
  });
  return { factTable: publicFactTable(table) };
}
