import * as contract from '../contracts/information-schema';
import type { InformationSchema, InformationSchemaTable } from '../contracts/information-schema';
import type { DataSource } from '../contracts/data-sources';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { filesSchema, informationSchemaIdOf, parseTableId, placeOf, FILES_DATABASE } from '../domain/information-schema';
import { InvalidInputError, NotFoundError } from '../errors';
import { athenaAllowance } from '../domain/athena-tenants';
import { GLUE_CATALOG, glueInformationSchema, glueInformationSchemaTable, parseGlueTablePath } from '../domain/glue-information-schema';
import pLimit from 'p-limit';
import { logger } from '../logger';
import type { Principal } from '../permissions';
import { dataSources } from '../store/data-sources';
import { readableOr404 } from './read-access';
import { loadInformationSchema } from '../analysis/load-information-schema';

const local = loadInformationSchema;

type AthenaDataSource = Extract<DataSource, { type: 'athena' }>;

/** Glue calls at once while listing databases' tables: GetTables is throttled per account. */
const GLUE_CONCURRENCY = 4;

/**
 * The databases an organization's Athena data sources may read: its own in a multi-tenant deployment (athenaTenants),
 * else the deployment's (`ATHENA_DATABASES`, which the stack sets on the information schema functions), else, with
 * neither (a single-tenant run outside the stack), every database of the catalog (undefined).
 */
function readableDatabases(orgId: string): string[] | undefined {
  const allowance = athenaAllowance(orgId, process.env.ATHENA_TENANTS);
  if (allowance !== 'unconfined') return allowance.databases;
  return process.env.ATHENA_DATABASES === undefined ? undefined : (JSON.parse(process.env.ATHENA_DATABASES) as string[]);
}

/** An Athena data source's tables from the Glue Data Catalog; Glue's refusal or failure is reported in the schema's error, as GrowthBook reports a failed listing. */
async function athenaSchema(orgId: string, dataSource: AthenaDataSource, now: string): Promise<InformationSchema> {
  const catalog = dataSource.params.catalog ?? GLUE_CATALOG;
  if (catalog !== GLUE_CATALOG) {
    return {
      ...glueInformationSchema(dataSource.id, [], [], now),
      databases: [],
      error: { errorType: 'not_supported', message: `Listing tables reads the Glue Data Catalog (${GLUE_CATALOG}); catalog ${catalog} is not in Glue` },
    };
  }
  try {
    const { glueDatabases, glueTables } = await import('../analysis/aws/glue-catalog');
    const databases = readableDatabases(orgId) ?? (await glueDatabases());
    const limit = pLimit(GLUE_CONCURRENCY);
    const tables = await Promise.all(databases.map((database) => limit(() => glueTables(database))));
    return glueInformationSchema(dataSource.id, databases, tables.flat(), now);
  } catch (error) {
    // AWS's messages name the account and role: the caller gets the kind of failure, the log the whole of it.
    logger.warn('The Glue Data Catalog could not be read', { orgId, datasourceId: dataSource.id, error });
    return { ...glueInformationSchema(dataSource.id, [], [], now, `The Glue Data Catalog could not be read (${(error as Error).name})`), databases: [] };
  }
}

/** One table of an Athena data source from Glue; 404 for a table outside the organization's databases or not in Glue. */
async function athenaTable(orgId: string, dataSource: AthenaDataSource, path: string, notFound: () => NotFoundError): Promise<InformationSchemaTable> {
  const place = parseGlueTablePath(path);
  if (!place) throw notFound();
  const catalog = dataSource.params.catalog ?? GLUE_CATALOG;
  if (catalog !== GLUE_CATALOG) throw new InvalidInputError(`Listing tables reads the Glue Data Catalog (${GLUE_CATALOG}); catalog ${catalog} is not in Glue`);
  const databases = readableDatabases(orgId);
  if (databases && !databases.includes(place.database)) throw notFound();
  const started = Date.now();
  const { glueTable } = await import('../analysis/aws/glue-catalog');
  const table = await glueTable(place.database, place.table);
  if (!table) throw notFound();
  return glueInformationSchemaTable(dataSource.id, { ...table, Name: place.table, DatabaseName: place.database }, new Date().toISOString(), Date.now() - started);
}

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
  if (dataSource.type === 'athena') return { informationSchema: await athenaSchema(auth.orgId, dataSource, now) };
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
  if (dataSource.type === 'athena') return { informationSchemaTable: await athenaTable(auth.orgId, dataSource, parsed.path, notFound) };
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
