import * as z from './zod';
import { defineEndpoint } from './spec';

// What a data source's engine can read: GrowthBook's getInformationSchema and getInformationSchemaTable.

const dated = { dateCreated: z.string(), dateUpdated: z.string() };

export const informationSchema = z.strictObject({
  id: z.string(),
  datasourceId: z.string(),
  status: z.enum(['PENDING', 'COMPLETE']),
  error: z.optional(z.strictObject({ errorType: z.enum(['generic', 'not_supported', 'missing_params']), message: z.string() })),
  databases: z.array(
    z.strictObject({
      databaseName: z.string(),
      path: z.optional(z.string()),
      ...dated,
      schemas: z.array(
        z.strictObject({
          schemaName: z.string(),
          path: z.optional(z.string()),
          ...dated,
          tables: z.array(z.strictObject({ tableName: z.string(), path: z.optional(z.string()), id: z.string(), numOfColumns: z.number(), ...dated })),
        }),
      ),
    }),
  ),
  ...dated,
});
export type InformationSchema = z.infer<typeof informationSchema>;

export const informationSchemaTable = z.strictObject({
  id: z.string(),
  datasourceId: z.string(),
  informationSchemaId: z.string(),
  tableName: z.string(),
  tableSchema: z.string(),
  databaseName: z.string(),
  columns: z.array(z.strictObject({ columnName: z.string(), dataType: z.string() })),
  refreshMS: z.number(),
  ...dated,
});
export type InformationSchemaTable = z.infer<typeof informationSchemaTable>;

const id = z.string().check(z.minLength(1), z.maxLength(2048));

export const getInformationSchema = defineEndpoint({
  operationId: 'getInformationSchema',
  method: 'GET',
  path: '/data-sources/{dataSourceId}/information-schema',
  summary: "The tables a data source's engine can read (DuckDB: the data files under the data directory)",
  tag: 'data-sources',
  permission: 'read',
  projectScoped: true,
  params: z.object({ dataSourceId: id }),
  response: z.object({ informationSchema }),
});

export const getInformationSchemaTable = defineEndpoint({
  operationId: 'getInformationSchemaTable',
  method: 'GET',
  path: '/information-schema-tables/{tableId}',
  summary: 'One table of a data source, with its columns',
  tag: 'data-sources',
  permission: 'read',
  projectScoped: true,
  params: z.object({ tableId: id }),
  response: z.object({ informationSchemaTable }),
});

export const informationSchemaEndpoints = [getInformationSchema, getInformationSchemaTable];
