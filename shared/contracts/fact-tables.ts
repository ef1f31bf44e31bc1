import * as z from './zod';
import { defineEndpoint } from './spec';
import { embeddedSql as sql } from './sql';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

const datatype = z.enum(['number', 'string', 'date', 'boolean', 'json', 'binary', 'other', '']);
const numberFormat = z.enum(['', 'currency', 'time:seconds', 'memory:bytes', 'memory:kilobytes']);
const jsonFields = z.record(z.string(), z.object({ datatype: z.optional(datatype) }));

export const factTableColumn = z.object({
  column: z.string(),
  datatype,
  numberFormat: z.optional(numberFormat),
  jsonFields: z.optional(jsonFields),
  name: z.optional(z.string()),
  description: z.optional(z.string()),
  alwaysInlineFilter: z.optional(z.boolean()),
  deleted: z.optional(z.boolean()),
  isAutoSliceColumn: z.optional(z.boolean()),
  autoSlices: z.optional(z.array(z.string())),
  lockedAutoSlices: z.optional(z.array(z.string())),
  /** A computed column: `sql` is its expression over the table's own columns. */
  isVirtual: z.optional(z.boolean()),
  sql: z.optional(z.string()),
  dateCreated: z.optional(z.string()),
  dateUpdated: z.optional(z.string()),
});
export type FactTableColumn = z.infer<typeof factTableColumn>;

const factTableManagedBy = z.enum(['', 'api', 'admin']);
const filterManagedBy = z.enum(['', 'api']);

export const factTable = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  projects: z.array(z.string()),
  tags: z.array(z.string()),
  datasource: z.string(),
  userIdTypes: z.array(z.string()),
  sql: z.string(),
  eventName: z.optional(z.string()),
  columns: z.optional(z.array(factTableColumn)),
  columnsError: z.optional(z.nullable(z.string())),
  archived: z.optional(z.boolean()),
  managedBy: factTableManagedBy,
  dateCreated: z.string(),
  dateUpdated: z.string(),
});
export type FactTable = z.infer<typeof factTable>;

export const factTableFilter = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  value: z.string(),
  managedBy: filterManagedBy,
  dateCreated: z.string(),
  dateUpdated: z.string(),
});
export type FactTableFilter = z.infer<typeof factTableFilter>;

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const owner = z.string().check(z.maxLength(256));
const description = z.string().check(z.maxLength(10_000));
const userIdTypes = z
  .array(z.string().check(z.trim(), z.minLength(1), z.maxLength(256)))
  .check(z.minLength(1), z.maxLength(100));

/** Fields of a new fact table: the create body, and `data` of a bulk-imported one. */
export const factTableCreateBody = z.strictObject({
  name,
  description: z.optional(description),
  owner: z.optional(owner),
  projects: z.optional(stringList),
  tags: z.optional(stringList),
  datasource: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  userIdTypes,
  sql,
  eventName: z.optional(z.string().check(z.maxLength(256))),
  managedBy: z.optional(factTableManagedBy),
});
export type FactTableCreate = z.infer<typeof factTableCreateBody>;

/** A column in an update: only `column` and `datatype` are required; read-only dates are accepted and ignored. */
const columnInput = z.strictObject({
  column: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  datatype,
  numberFormat: z.optional(numberFormat),
  jsonFields: z.optional(jsonFields),
  name: z.optional(z.string().check(z.maxLength(256))),
  description: z.optional(description),
  alwaysInlineFilter: z.optional(z.boolean()),
  deleted: z.optional(z.boolean()),
  isAutoSliceColumn: z.optional(z.boolean()),
  autoSlices: z.optional(stringList),
  lockedAutoSlices: z.optional(stringList),
  dateCreated: z.optional(z.string()),
  dateUpdated: z.optional(z.string()),
});
export type FactTableColumnInput = z.infer<typeof columnInput>;

const factTableUpdateBody = z.strictObject({
  name: z.optional(name),
  description: z.optional(description),
  owner: z.optional(owner),
  projects: z.optional(stringList),
  tags: z.optional(stringList),
  userIdTypes: z.optional(userIdTypes),
  sql: z.optional(sql),
  eventName: z.optional(z.string().check(z.maxLength(256))),
  columns: z.optional(z.array(columnInput).check(z.maxLength(1000))),
  columnsError: z.optional(z.nullable(z.string().check(z.maxLength(10_000)))),
  managedBy: z.optional(factTableManagedBy),
  archived: z.optional(z.boolean()),
});
export type FactTableUpdate = z.infer<typeof factTableUpdateBody>;

/** Fields of a new fact table filter: the create body, and `data` of a bulk-imported one. */
export const factTableFilterCreateBody = z.strictObject({
  name,
  description: z.optional(description),
  value: z.string().check(z.trim(), z.minLength(1), z.maxLength(100_000)),
  managedBy: z.optional(filterManagedBy),
});
export type FactTableFilterCreate = z.infer<typeof factTableFilterCreateBody>;

const factTableFilterUpdateBody = z.partial(factTableFilterCreateBody);
export type FactTableFilterUpdate = z.infer<typeof factTableFilterUpdateBody>;

const factTableResponse = z.object({ factTable });
const filterResponse = z.object({ factTableFilter });
const filterParams = z.object({
  factTableId: z.string().check(z.minLength(1), z.maxLength(256)),
  id: z.string().check(z.minLength(1), z.maxLength(256)),
});

export const listFactTables = defineEndpoint({
  operationId: 'listFactTables',
  method: 'GET',
  path: '/fact-tables',
  summary: 'List fact tables',
  tag: 'fact-tables',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    datasourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
  response: z.extend(z.object({ factTables: z.array(factTable) }), paginationFields.shape),
});

export const postFactTable = defineEndpoint({
  operationId: 'postFactTable',
  method: 'POST',
  path: '/fact-tables',
  summary: 'Create a fact table',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  body: factTableCreateBody,
  response: factTableResponse,
});

export const getFactTable = defineEndpoint({
  operationId: 'getFactTable',
  method: 'GET',
  path: '/fact-tables/{id}',
  summary: 'Get a fact table',
  tag: 'fact-tables',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: factTableResponse,
});

export const updateFactTable = defineEndpoint({
  operationId: 'updateFactTable',
  method: 'POST',
  path: '/fact-tables/{id}',
  summary: 'Partially update a fact table',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  params: idParams,
  body: factTableUpdateBody,
  response: factTableResponse,
});

export const deleteFactTable = defineEndpoint({
  operationId: 'deleteFactTable',
  method: 'DELETE',
  path: '/fact-tables/{id}',
  summary: 'Delete a fact table and its filters',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const listFactTableFilters = defineEndpoint({
  operationId: 'listFactTableFilters',
  method: 'GET',
  path: '/fact-tables/{factTableId}/filters',
  summary: 'List the filters of a fact table',
  tag: 'fact-tables',
  permission: 'read',
  projectScoped: true,
  params: z.object({ factTableId: z.string().check(z.minLength(1), z.maxLength(256)) }),
  query: paginationQuery,
  response: z.extend(z.object({ factTableFilters: z.array(factTableFilter) }), paginationFields.shape),
});

export const postFactTableFilter = defineEndpoint({
  operationId: 'postFactTableFilter',
  method: 'POST',
  path: '/fact-tables/{factTableId}/filters',
  summary: 'Create a fact table filter',
  tag: 'fact-tables',
  permission: 'manageFactFilters',
  projectScoped: true,
  params: z.object({ factTableId: z.string().check(z.minLength(1), z.maxLength(256)) }),
  body: factTableFilterCreateBody,
  response: filterResponse,
});

export const getFactTableFilter = defineEndpoint({
  operationId: 'getFactTableFilter',
  method: 'GET',
  path: '/fact-tables/{factTableId}/filters/{id}',
  summary: 'Get a fact table filter',
  tag: 'fact-tables',
  permission: 'read',
  projectScoped: true,
  params: filterParams,
  response: filterResponse,
});

export const updateFactTableFilter = defineEndpoint({
  operationId: 'updateFactTableFilter',
  method: 'POST',
  path: '/fact-tables/{factTableId}/filters/{id}',
  summary: 'Partially update a fact table filter',
  tag: 'fact-tables',
  permission: 'manageFactFilters',
  projectScoped: true,
  params: filterParams,
  body: factTableFilterUpdateBody,
  response: filterResponse,
});

export const deleteFactTableFilter = defineEndpoint({
  operationId: 'deleteFactTableFilter',
  method: 'DELETE',
  path: '/fact-tables/{factTableId}/filters/{id}',
  summary: 'Delete a fact table filter',
  tag: 'fact-tables',
  permission: 'manageFactFilters',
  projectScoped: true,
  params: filterParams,
  response: deletedResponse,
});

export const factTableEndpoints = [
  listFactTables,
  postFactTable,
  getFactTable,
  updateFactTable,
  deleteFactTable,
  listFactTableFilters,
  postFactTableFilter,
  getFactTableFilter,
  updateFactTableFilter,
  deleteFactTableFilter,
];
