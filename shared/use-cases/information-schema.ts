import * as contract from '../contracts/information-schema';
import type { DataSource } from '../contracts/data-sources';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { filesSchema, informationSchemaIdOf } from '../domain/information-schema';
import { NotFoundError } from '../errors';
import type { Principal } from '../permissions';
import { dataSources } from '../store/data-sources';
import { readableOr404 } from './read-access';
import { loadInformationSchema } from '../analysis/load-information-schema';

const local = loadInformationSchema;

async function readableDataSource(auth: Principal, id: string): Promise<DataSource> {
  const label = 'Data source';
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
