import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

const datatype = z.enum(['number', 'string', 'date', 'boolean', 'json', 'binary', 'other', '']);
const numberFormat = z.enum(['', 'currency', 'time:seconds', 'memory:bytes', 'memory:kilobytes']);
const jsonFields = z.record(z.string(), z.object({ datatype: datatype.optional() }));

export const factTableColumn = z.object({
  column: z.string(),
  datatype,
  numberFormat: numberFormat.optional(),
  jsonFields: jsonFields.optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  alwaysInlineFilter: z.boolean().optional(),
  deleted: z.boolean().optional(),
  isAutoSliceColumn: z.boolean().optional(),
  autoSlices: z.array(z.string()).optional(),
  lockedAutoSlices: z.array(z.string()).optional(),
  dateCreated: z.string().optional(),
  dateUpdated: z.string().optional(),
});
export type FactTableColumn = z.infer<typeof factTableColumn>;

const factTableManagedBy = z.enum(['', 'api', 'admin']);
const filterManagedBy = z.enum(['', 'api']);

export const factTable = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  ownerEmail: z.string().optional(),
  projects: z.array(z.string()),
  tags: z.array(z.string()),
  datasource: z.string(),
  userIdTypes: z.array(z.string()),
  sql: z.string(),
  eventName: z.string().optional(),
  columns: z.array(factTableColumn).optional(),
  columnsError: z.string().nullable().optional(),
  archived: z.boolean().optional(),
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

const name = z.string().trim().min(1).max(256);
const owner = z.string().max(256);
const description = z.string().max(10_000);
const sql = z.string().trim().min(1).max(100_000);
const userIdTypes = z.array(z.string().trim().min(1).max(256)).min(1).max(100);

/** Fields of a new fact table: the create body, and `data` of a bulk-imported one. */
export const factTableCreateBody = z.strictObject({
  name,
  description: description.optional(),
  owner: owner.optional(),
  projects: stringList.optional(),
  tags: stringList.optional(),
  datasource: z.string().trim().min(1).max(256),
  userIdTypes,
  sql,
  eventName: z.string().max(256).optional(),
  managedBy: factTableManagedBy.optional(),
});
export type FactTableCreate = z.infer<typeof factTableCreateBody>;

/** A column in an update: only `column` and `datatype` are required; read-only dates are accepted and ignored. */
const columnInput = z.strictObject({
  column: z.string().trim().min(1).max(256),
  datatype,
  numberFormat: numberFormat.optional(),
  jsonFields: jsonFields.optional(),
  name: z.string().max(256).optional(),
  description: description.optional(),
  alwaysInlineFilter: z.boolean().optional(),
  deleted: z.boolean().optional(),
  isAutoSliceColumn: z.boolean().optional(),
  autoSlices: stringList.optional(),
  lockedAutoSlices: stringList.optional(),
  dateCreated: z.string().optional(),
  dateUpdated: z.string().optional(),
});
export type FactTableColumnInput = z.infer<typeof columnInput>;

const factTableUpdateBody = z.strictObject({
  name: name.optional(),
  description: description.optional(),
  owner: owner.optional(),
  projects: stringList.optional(),
  tags: stringList.optional(),
  userIdTypes: userIdTypes.optional(),
  sql: sql.optional(),
  eventName: z.string().max(256).optional(),
  columns: z.array(columnInput).max(1000).optional(),
  columnsError: z.string().max(10_000).nullable().optional(),
  managedBy: factTableManagedBy.optional(),
  archived: z.boolean().optional(),
});
export type FactTableUpdate = z.infer<typeof factTableUpdateBody>;

/** Fields of a new fact table filter: the create body, and `data` of a bulk-imported one. */
export const factTableFilterCreateBody = z.strictObject({
  name,
  description: description.optional(),
  value: z.string().trim().min(1).max(100_000),
  managedBy: filterManagedBy.optional(),
});
export type FactTableFilterCreate = z.infer<typeof factTableFilterCreateBody>;

const factTableFilterUpdateBody = factTableFilterCreateBody.partial();
export type FactTableFilterUpdate = z.infer<typeof factTableFilterUpdateBody>;

const factTableResponse = z.object({ factTable });
const filterResponse = z.object({ factTableFilter });
const filterParams = z.object({ factTableId: z.string().min(1).max(256), id: z.string().min(1).max(256) });

export const listFactTables = defineEndpoint({
  operationId: 'listFactTables',
  method: 'GET',
  path: '/fact-tables',
  summary: 'List fact tables',
  tag: 'fact-tables',
  permission: 'read',
  query: paginationQuery.extend({
    datasourceId: z.string().min(1).max(256).optional(),
    projectId: z.string().min(1).max(256).optional(),
  }),
  response: z.object({ factTables: z.array(factTable) }).extend(paginationFields.shape),
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
  params: z.object({ factTableId: z.string().min(1).max(256) }),
  query: paginationQuery,
  response: z.object({ factTableFilters: z.array(factTableFilter) }).extend(paginationFields.shape),
});

export const postFactTableFilter = defineEndpoint({
  operationId: 'postFactTableFilter',
  method: 'POST',
  path: '/fact-tables/{factTableId}/filters',
  summary: 'Create a fact table filter',
  tag: 'fact-tables',
  permission: 'manageFactFilters',
  projectScoped: true,
  params: z.object({ factTableId: z.string().min(1).max(256) }),
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
