import * as contract from '../contracts/information-schema';
import type { DataSource } from '../contracts/data-sources';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { filesSchema, informationSchemaIdOf, parseTableId, placeOf, FILES_DATABASE } from '../domain/information-schema';
import { InvalidInputError, NotFoundError } from '../errors';
import type { Principal } from '../permissions';
import { dataSources } from '../store/data-sources';
import { readableOr404 } from './read-access';
import { loadInformationSchema } from '../analysis/load-information-schema';

const local = loadInformationSchema;

async function readableDataSource(auth: Principal, id: string, label = 'Data source'): Promise<DataSource> {
  const dataSource = await dataSources.find(auth.orgId, id);
  if (!dataSource) throw new NotFoundError(`${label} ${id} not found`);
  return readableOr404(auth, dataSource, dataSource.projectIds ?? [], label, id);
}

/** `GET /data-sources/{dataSourceId}/information-schema`: the tables the data source's engine can read. */
export async function getInformationSchema({
  params,
  auth,
}: UseCaseInput<typeof contract.getInformationSchema>): UseCaseOutput<typeof contract.getInformationSchema> {
  const dataSource = await readableDataSource(auth, params.dataSourceId);
  const now = new Date().toISOString();
  if (dataSource.type !== 'duckdb') {
    // GrowthBook's answer for an engine it cannot list; Athena's Glue catalog is not listed yet.
    return {
      informationSchema: {
        id: informationSchemaIdOf(dataSource.id),
        datasourceId: dataSource.id,
        status: 'COMPLETE',
        error: { errorType: 'not_supported', message: `Listing tables is not supported for ${dataSource.type} data sources yet` },
        databases: [],
        dateCreated: now,
        dateUpdated: now,
      },
    };
  }
  const { dataFiles, describeFiles } = await local();
  const { described, unreadable } = await describeFiles(dataFiles());
  const error = unreadable.length ? `DuckDB could not read ${unreadable.map((u) => `${u.path} (${u.error})`).join('; ')}` : undefined;
  return { informationSchema: filesSchema(dataSource.id, described, now, error) };
}

/** `GET /information-schema-tables/{tableId}`: one table with its columns. */
export async function getInformationSchemaTable({
  params,
  auth,
}: UseCaseInput<typeof contract.getInformationSchemaTable>): UseCaseOutput<typeof contract.getInformationSchemaTable> {
  const notFound = () => new NotFoundError(`Information schema table ${params.tableId} not found`);
  const parsed = parseTableId(params.tableId);
  if (!parsed) throw notFound();
  const dataSource = await readableDataSource(auth, parsed.datasourceId, 'Information schema table').catch((error: unknown) => {
    throw error instanceof NotFoundError ? notFound() : error;
  });
  if (dataSource.type !== 'duckdb') throw new InvalidInputError(`Listing tables is not supported for ${dataSource.type} data sources yet`);
  const { dataFiles, describeFiles } = await local();
  // Only a file the listing shows resolves: a path outside the data directory or in a hidden folder never does.
  const file = dataFiles().find((f) => f.path === parsed.path);
  if (!file) throw new NotFoundError(`Information schema table ${params.tableId} not found: ${parsed.path} is no longer in the data directory`);
  const started = Date.now();
  const { described, unreadable } = await describeFiles([file]);
  if (unreadable.length) throw new InvalidInputError(`DuckDB could not read ${parsed.path}: ${unreadable[0]!.error}`);
  const { schemaName, tableName } = placeOf(file.path);
  return {
    informationSchemaTable: {
      id: params.tableId,
      datasourceId: dataSource.id,
      informationSchemaId: informationSchemaIdOf(dataSource.id),
      tableName,
      tableSchema: schemaName,
      databaseName: FILES_DATABASE,
      columns: described[0]!.columns,
      refreshMS: Date.now() - started,
      dateCreated: file.created,
      dateUpdated: file.updated,
    },
  };
}
