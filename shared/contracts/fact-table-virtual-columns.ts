import * as z from './zod';
import { defineEndpoint } from './spec';
import { embeddedSql } from './sql';
import { factTableColumn } from './fact-tables';

// Virtual (computed) columns of a fact table: GrowthBook's postFactTableVirtualColumn,
// updateFactTableVirtualColumn and deleteFactTableVirtualColumn.

const datatype = z.enum(['number', 'string', 'date', 'boolean', 'json', 'binary', 'other']);
const numberFormat = z.enum(['', 'currency', 'time:seconds', 'memory:bytes', 'memory:kilobytes']);
const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const description = z.string().check(z.maxLength(10_000));
const expression = embeddedSql;
const id = z.string().check(z.minLength(1), z.maxLength(256));
const columnResponse = z.object({ factTableColumn });

export const postFactTableVirtualColumn = defineEndpoint({
  operationId: 'postFactTableVirtualColumn',
  method: 'POST',
  path: '/fact-tables/{factTableId}/virtual-columns',
  summary: 'Add a virtual (computed) column to a fact table',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  params: z.object({ factTableId: id }),
  body: z.strictObject({
    column: z.string().check(z.regex(/^[A-Za-z0-9_]+_vc$/, 'must contain only letters, numbers and underscores and end with _vc'), z.maxLength(256)),
    name: z.optional(name),
    description: z.optional(description),
    numberFormat: z.optional(numberFormat),
    datatype,
    sql: expression,
  }),
  response: columnResponse,
});

export const updateFactTableVirtualColumn = defineEndpoint({
  operationId: 'updateFactTableVirtualColumn',
  method: 'POST',
  path: '/fact-tables/{factTableId}/virtual-columns/{id}',
  summary: 'Change a virtual (computed) column of a fact table',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  params: z.object({ factTableId: id, id }),
  body: z.strictObject({
    name: z.optional(name),
    description: z.optional(description),
    numberFormat: z.optional(numberFormat),
    datatype: z.optional(datatype),
    sql: z.optional(expression),
  }),
  response: columnResponse,
});

export const deleteFactTableVirtualColumn = defineEndpoint({
  operationId: 'deleteFactTableVirtualColumn',
  method: 'DELETE',
  path: '/fact-tables/{factTableId}/virtual-columns/{id}',
  summary: 'Remove a virtual (computed) column from a fact table',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  params: z.object({ factTableId: id, id }),
  response: z.object({ deletedId: z.string() }),
});

export const virtualColumnEndpoints = [postFactTableVirtualColumn, updateFactTableVirtualColumn, deleteFactTableVirtualColumn];
