import * as z from './zod';
import { defineEndpoint } from './spec';
import { embeddedSql as sql } from './sql';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

/** The query engines a data source can run on. */
export const dataSourceTypes = ['athena', 'duckdb'] as const;
export type DataSourceType = (typeof dataSourceTypes)[number];

/** Where an Athena data source runs its queries; access comes from the analysis role, never from stored secrets. */
export const athenaParams = z.strictObject({
  workGroup: z.string().check(z.trim(), z.minLength(1), z.maxLength(128)),
  database: z.string().check(z.trim(), z.minLength(1), z.maxLength(255)),
  catalog: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(255))),
  outputLocation: z.optional(
    z
      .string()
      .check(
        z.regex(/^s3:\/\/[a-z0-9.-]{3,63}(\/.*)?$/, 'must be an S3 URI such as s3://bucket/prefix/'),
        z.maxLength(1024),
      ),
  ),
});
export type AthenaParams = z.infer<typeof athenaParams>;

/** An embedded DuckDB data source needs nothing: its SQL reads files under `ANALYSIS_DATA_DIR`. */
export const duckdbParams = z.strictObject({});
export type DuckdbParams = z.infer<typeof duckdbParams>;

const identifierType = z.object({ id: z.string(), description: z.string() });
const assignmentQuery = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  identifierType: z.string(),
  sql: z.string(),
  includesNameColumns: z.boolean(),
  dimensionColumns: z.array(z.string()),
});
export type AssignmentQuery = z.infer<typeof assignmentQuery>;
const identifierJoinQuery = z.object({ identifierTypes: z.array(z.string()), sql: z.string() });

const commonFields = {
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  description: z.string(),
  projectIds: z.array(z.string()),
  eventTracker: z.string(),
  identifierTypes: z.array(identifierType),
  assignmentQueries: z.array(assignmentQuery),
  identifierJoinQueries: z.array(identifierJoinQuery),
};

/** GrowthBook's `DataSource`, plus the engine's `params` (GrowthBook keeps those private). */
export const dataSource = z.discriminatedUnion('type', [
  z.object({ ...commonFields, type: z.literal('athena'), params: athenaParams }),
  z.object({ ...commonFields, type: z.literal('duckdb'), params: duckdbParams }),
]);
export type DataSource = z.infer<typeof dataSource>;

const id = z
  .string()
  .check(
    z.trim(),
    z.minLength(1),
    z.maxLength(256),
    z.regex(/^[A-Za-z0-9_.:-]+$/, 'may hold only letters, digits and _ . : -'),
  );
const description = z.string().check(z.maxLength(10_000));

const identifierTypeInput = z.strictObject({ id, description: z.optional(description) });
const assignmentQueryInput = z.strictObject({
  id: z.optional(id),
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.optional(description),
  identifierType: id,
  sql,
  includesNameColumns: z.optional(z.boolean()),
  dimensionColumns: z.optional(
    z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))).check(z.maxLength(100)),
  ),
});
export type AssignmentQueryInput = z.infer<typeof assignmentQueryInput>;
const identifierJoinQueryInput = z.strictObject({
  identifierTypes: z.array(id).check(z.minLength(2), z.maxLength(20)),
  sql,
});

const bodyFields = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.optional(description),
  projectIds: z.optional(stringList),
  eventTracker: z.optional(z.string().check(z.maxLength(256))),
  identifierTypes: z.array(identifierTypeInput).check(z.minLength(1), z.maxLength(50)),
  assignmentQueries: z.optional(z.array(assignmentQueryInput).check(z.maxLength(100))),
  identifierJoinQueries: z.optional(z.array(identifierJoinQueryInput).check(z.maxLength(100))),
  type: z.enum(dataSourceTypes),
  // Checked against `type` once both are known (an update may change either), so errors name the right fields.
  params: z.optional(
    z
      .record(z.string(), z.unknown())
      .check(z.describe('athena: {workGroup, database, catalog?, outputLocation?}; duckdb: {}')),
  ),
};

const createBody = z.strictObject(bodyFields);
export type DataSourceCreate = z.infer<typeof createBody>;
const updateBody = z.partial(createBody);
export type DataSourceUpdate = z.infer<typeof updateBody>;

const dataSourceResponse = z.object({ dataSource });

export const listDataSources = defineEndpoint({
  operationId: 'listDataSources',
  method: 'GET',
  path: '/data-sources',
  summary: 'List data sources',
  tag: 'data-sources',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, { projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }),
  response: z.extend(z.object({ dataSources: z.array(dataSource) }), paginationFields.shape),
});

export const getDataSource = defineEndpoint({
  operationId: 'getDataSource',
  method: 'GET',
  path: '/data-sources/{id}',
  summary: 'Get a data source',
  tag: 'data-sources',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: dataSourceResponse,
});

export const postDataSource = defineEndpoint({
  operationId: 'postDataSource',
  method: 'POST',
  path: '/data-sources',
  summary: 'Create a data source',
  tag: 'data-sources',
  permission: 'createDatasources',
  body: createBody,
  response: dataSourceResponse,
});

export const updateDataSource = defineEndpoint({
  operationId: 'updateDataSource',
  method: 'POST',
  path: '/data-sources/{id}',
  summary: 'Partially update a data source',
  tag: 'data-sources',
  permission: 'createDatasources',
  params: idParams,
  body: updateBody,
  response: dataSourceResponse,
});

export const deleteDataSource = defineEndpoint({
  operationId: 'deleteDataSource',
  method: 'DELETE',
  path: '/data-sources/{id}',
  summary: 'Delete a data source',
  tag: 'data-sources',
  permission: 'createDatasources',
  params: idParams,
  response: deletedResponse,
});

export const dataSourceEndpoints = [listDataSources, getDataSource, postDataSource, updateDataSource, deleteDataSource];
