import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/information-schema';
import { tableIdOf } from '../../shared/domain/information-schema';
import { createDuckDbDataSource } from '../support/analysis-api';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

let api: Api;
let org: TestOrg;
let other: TestOrg;
const dataDir = mkdtempSync(path.join(tmpdir(), 'information-schema-'));

beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'events'));
  mkdirSync(path.join(dataDir, '.hidden'));
  writeFileSync(path.join(dataDir, 'exposures.csv'), 'user_id,timestamp,experiment_id,variation_id\nu1,2024-03-01 00:00:00,exp,0\n');
  writeFileSync(path.join(dataDir, 'events', 'orders.csv'), 'user_id,amount\nu1,12.5\n');
  writeFileSync(path.join(dataDir, 'events', 'broken.parquet'), 'not parquet');
  writeFileSync(path.join(dataDir, 'notes.txt'), 'not data');
  writeFileSync(path.join(dataDir, '.hidden', 'secret.csv'), 'a\n1\n');
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Schema org'), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const validSchema = referenceSchemaValidator('InformationSchema', 'growthbook-5.0.1-openapi.yaml');
const validTable = referenceSchemaValidator('InformationSchemaTable', 'growthbook-5.0.1-openapi.yaml');
/** An Athena data source of the organization, stored as POST /data-sources stores it. */
async function athenaDataSource(params: Record<string, unknown> = {}, testOrg = org) {
  const { dataSource } = await requestOk(api, testOrg.keys.admin, 'POST', '/data-sources', {
    name: 'Warehouse',
    type: 'athena',
    params: { workGroup: 'primary', database: 'events', outputLocation: 's3://results/', ...params },
    identifierTypes: [{ id: 'user_id' }],
    assignmentQueries: [{ id: 'users', name: 'Users', identifierType: 'user_id', sql: 'SELECT * FROM exposures' }],
  });
  return dataSource as { id: string };
}

/** Runs `fn` with the Glue client pointed at a closed local port, with placeholder credentials: every Glue call fails at once. */
async function withUnreachableGlue<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, { AWS_ENDPOINT_URL_GLUE: 'http://127.0.0.1:9', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
  try {
    return await fn();
  } finally {
    for (const name of ['AWS_ENDPOINT_URL_GLUE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

const get = (route: string, testOrg = org) => api.request('GET', `/api/v1${route}`, { key: testOrg.keys.readonly });

describe('GET /data-sources/{id}/information-schema', () => {
  it("lists a DuckDB data source's data files by folder, with their column counts, naming a file DuckDB cannot read", async () => {
    const dataSource = await createDuckDbDataSource(api, org);

    const response = await get(`/data-sources/${dataSource.id}/information-schema`);

    expect(response.status).toBe(200);
    expectShape(contract.getInformationSchema, response.body);
    const { informationSchema } = response.body;
    expect(validSchema(informationSchema) ? [] : validSchema.errors).toEqual([]);
    expect(informationSchema).toMatchObject({ datasourceId: dataSource.id, status: 'COMPLETE', error: { errorType: 'generic', message: expect.stringContaining('events/broken.parquet') } });
    const tables = informationSchema.databases[0].schemas.map((s: { schemaName: string; tables: { tableName: string; path: string; numOfColumns: number; id: string }[] }) => [
      s.schemaName,
      s.tables.map((t) => [t.tableName, t.path, t.numOfColumns, t.id]),
    ]);
    expect(tables).toEqual([
      ['events', [['orders.csv', 'events/orders.csv', 2, tableIdOf(dataSource.id, 'events/orders.csv')]]],
      ['main', [['exposures.csv', 'exposures.csv', 4, tableIdOf(dataSource.id, 'exposures.csv')]]],
    ]);
  });

  it('answers not_supported for an Athena data source whose catalog is not the Glue Data Catalog', async () => {
    const dataSource = await athenaDataSource({ catalog: 'federated_mysql' });

    const response = await get(`/data-sources/${dataSource.id}/information-schema`);

    expect(response.status).toBe(200);
    expect(validSchema(response.body.informationSchema) ? [] : validSchema.errors).toEqual([]);
    expect(response.body.informationSchema).toMatchObject({
      databases: [],
      error: { errorType: 'not_supported', message: expect.stringContaining('catalog federated_mysql is not in Glue') },
    });
  });

  // There is no Glue here: the listing is tested as far as the call (the mapping of Glue's answers is test/unit/glue-information-schema.test.ts).
  it('reports a Glue Data Catalog it cannot reach as the listing’s error, naming only the kind of failure', async () => {
    const dataSource = await athenaDataSource();

    const response = await withUnreachableGlue(() => get(`/data-sources/${dataSource.id}/information-schema`));

    expect(response.status).toBe(200);
    expect(validSchema(response.body.informationSchema) ? [] : validSchema.errors).toEqual([]);
    expect(response.body.informationSchema).toMatchObject({ databases: [], error: { errorType: 'generic', message: expect.stringMatching(/^The Glue Data Catalog could not be read \(\w+\)$/) } });
  });

  it("answers 404 for an unknown data source and for another organization's", async () => {
    const theirs = await createDuckDbDataSource(api, other);

    expect((await get('/data-sources/ds_missing/information-schema')).status).toBe(404);
    expect((await get(`/data-sources/${theirs.id}/information-schema`)).status).toBe(404);
  });
});

describe('GET /information-schema-tables/{tableId}', () => {
  it("gives a file's columns as DuckDB describes them", async () => {
    const dataSource = await createDuckDbDataSource(api, org);
    const id = tableIdOf(dataSource.id, 'events/orders.csv');

    const response = await get(`/information-schema-tables/${id}`);

    expect(response.status).toBe(200);
    expectShape(contract.getInformationSchemaTable, response.body);
    const table = response.body.informationSchemaTable;
    expect(validTable(table) ? [] : validTable.errors).toEqual([]);
    expect(table).toMatchObject({
      id,
      datasourceId: dataSource.id,
      informationSchemaId: `inf_${dataSource.id}`,
      tableName: 'orders.csv',
      tableSchema: 'events',
      databaseName: 'files',
      columns: [
        { columnName: 'user_id', dataType: 'VARCHAR' },
        { columnName: 'amount', dataType: 'DOUBLE' },
      ],
    });
  });

  it('resolves the id the listing gives for each table', async () => {
    const dataSource = await createDuckDbDataSource(api, org);
    const listing = (await get(`/data-sources/${dataSource.id}/information-schema`)).body.informationSchema;
    const listed = listing.databases[0].schemas.flatMap((schema: { tables: { id: string; tableName: string }[] }) => schema.tables);
    const orders = listed.find((t: { tableName: string }) => t.tableName === 'orders.csv');

    const response = await get(`/information-schema-tables/${orders.id}`);

    expect(response.status).toBe(200);
    expect(response.body.informationSchemaTable.tableName).toBe('orders.csv');
  });

  it("answers 404 for another organization's table, a file outside the listing, and an id that is not one", async () => {
    const theirs = await createDuckDbDataSource(api, other);
    const mine = await createDuckDbDataSource(api, org);

    const responses = await Promise.all([
      get(`/information-schema-tables/${tableIdOf(theirs.id, 'exposures.csv')}`),
      get(`/information-schema-tables/${tableIdOf(mine.id, '.hidden/secret.csv')}`),
      // A path that climbs out of the data directory (built, so the repository names no outside path).
      get(`/information-schema-tables/${tableIdOf(mine.id, ['..', '..', 'etc', 'passwd'].join('/'))}`),
      get('/information-schema-tables/ist_garbage'),
    ]);

    expect(responses.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect((await get(`/information-schema-tables/${tableIdOf(theirs.id, 'exposures.csv')}`, other)).status).toBe(200);
  });

  it('answers 404 for an Athena table id that is not database/table, or names a database the organization may not read', async () => {
    const dataSource = await athenaDataSource();
    const saved = process.env.ATHENA_TENANTS;
    process.env.ATHENA_TENANTS = JSON.stringify({ [org.orgId]: { workGroups: ['primary'], databases: ['events'], catalog: 'AwsDataCatalog' } });
    try {
      const responses = await Promise.all([
        get(`/information-schema-tables/${tableIdOf(dataSource.id, 'events')}`),
        get(`/information-schema-tables/${tableIdOf(dataSource.id, 'other_tenant/orders')}`),
      ]);

      expect(responses.map((r) => [r.status, r.body.message])).toEqual([
        [404, expect.stringContaining('not found')],
        [404, expect.stringContaining('not found')],
      ]);
    } finally {
      if (saved === undefined) delete process.env.ATHENA_TENANTS;
      else process.env.ATHENA_TENANTS = saved;
    }
  });

  it('answers 400 naming the file when DuckDB cannot read it', async () => {
    const dataSource = await createDuckDbDataSource(api, org);

    const response = await get(`/information-schema-tables/${tableIdOf(dataSource.id, 'events/broken.parquet')}`);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^DuckDB could not read events\/broken\.parquet: /);
  });
});
