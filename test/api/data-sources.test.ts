import * as contract from '../../shared/contracts/data-sources';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());
afterEach(() => {
  delete process.env.ANALYSIS_ENGINES;
  delete process.env.ATHENA_TENANTS;
});

const athena = {
  name: 'Warehouse',
  type: 'athena',
  params: { workGroup: 'analytics', database: 'events', catalog: 'AwsDataCatalog', outputLocation: 's3://results-bucket/switchyard/' },
  identifierTypes: [{ id: 'user_id', description: 'Logged-in users' }, { id: 'anonymous_id' }],
  assignmentQueries: [
    { id: 'user_id', name: 'Users', identifierType: 'user_id', sql: 'SELECT user_id, timestamp, experiment_id, variation_id FROM exposures' },
    { name: 'Anonymous', identifierType: 'anonymous_id', sql: 'SELECT anonymous_id, timestamp, experiment_id, variation_id FROM exposures' },
  ],
};
const duckdb = {
  name: 'Local files',
  type: 'duckdb',
  identifierTypes: [{ id: 'user_id' }],
  assignmentQueries: [{ id: 'user_id', name: 'Users', identifierType: 'user_id', sql: "SELECT * FROM read_csv('exposures.csv')" }],
};

const variations = [
  { key: '0', name: 'Control' },
  { key: '1', name: 'Treatment' },
];
const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/data-sources', { key, body });
const update = (id: string, body: unknown, key = org.keys.admin) => api.request('POST', `/api/v1/data-sources/${id}`, { key, body });
const remove = (id: string, key = org.keys.admin) => api.request('DELETE', `/api/v1/data-sources/${id}`, { key });
const get = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/data-sources/${id}`, { key });
const total = async (key = org.keys.admin) => (await api.request('GET', '/api/v1/data-sources?limit=100', { key })).body.total;

describe('POST /data-sources', () => {
  it('creates an athena data source in GrowthBook\'s shape, generating missing assignment query ids', async () => {
    const response = await create(athena);

    expect(response.status).toBe(200);
    expectShape(contract.postDataSource, response.body);
    const { dataSource } = response.body;
    expect(dataSource).toMatchObject({
      id: expect.stringMatching(/^ds_/),
      type: 'athena',
      name: 'Warehouse',
      description: '',
      projectIds: [],
      eventTracker: '',
      params: athena.params,
      identifierTypes: [
        { id: 'user_id', description: 'Logged-in users' },
        { id: 'anonymous_id', description: '' },
      ],
      identifierJoinQueries: [],
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
    });
    expect(dataSource.assignmentQueries).toEqual([
      { ...athena.assignmentQueries[0], description: '', includesNameColumns: false, dimensionColumns: [] },
      { ...athena.assignmentQueries[1], id: expect.stringMatching(/^exq_/), description: '', includesNameColumns: false, dimensionColumns: [] },
    ]);
  });

  it('creates a duckdb data source with empty params when ANALYSIS_ENGINES is unset', async () => {
    const response = await create(duckdb);

    expect(response.status).toBe(200);
    expect(response.body.dataSource).toMatchObject({ type: 'duckdb', params: {} });
  });

  it('refuses a duckdb data source with 400 where the deployment allows only athena, and stores nothing', async () => {
    process.env.ANALYSIS_ENGINES = 'athena';
    const before = await total();

    const response = await create(duckdb);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[type\] duckdb data sources cannot run in this deployment; use one of: athena/);
    expect(await total()).toBe(before);
  });

  it('accepts an athena data source where the deployment allows only athena', async () => {
    process.env.ANALYSIS_ENGINES = 'athena';

    const response = await create(athena);

    expect(response.status).toBe(200);
  });

  it.each([
    ['an assignment query whose identifier type is not declared', { ...athena, assignmentQueries: [{ ...athena.assignmentQueries[0], identifierType: 'device_id' }] }, /\[assignmentQueries\.0\.identifierType\] device_id is not one of identifierTypes/],
    ['athena without params', { ...athena, params: undefined }, /\[params\.workGroup\]/],
    ['athena without a database', { ...athena, params: { workGroup: 'analytics' } }, /\[params\.database\]/],
    ['athena with an output location that is not S3', { ...athena, params: { ...athena.params, outputLocation: 'https://x' } }, /\[params\.outputLocation\] must be an S3 URI/],
    ['athena with an unknown param', { ...athena, params: { ...athena.params, password: 'x' } }, /\[params\].*password/],
    ['duckdb with params', { ...duckdb, params: { path: '/data' } }, /\[params\].*path.*takes no params/],
    ['an unknown type', { ...duckdb, type: 'bigquery' }, /\[type\]/],
    ['a missing name', { ...duckdb, name: undefined }, /\[name\]/],
    ['no identifier types', { ...duckdb, identifierTypes: [] }, /\[identifierTypes\]/],
    ['a repeated identifier type', { ...duckdb, identifierTypes: [{ id: 'user_id' }, { id: 'user_id' }] }, /\[identifierTypes\] user_id appears more than once/],
    ['a repeated assignment query id', { ...duckdb, assignmentQueries: [duckdb.assignmentQueries[0], duckdb.assignmentQueries[0]] }, /\[assignmentQueries\.1\.id\] user_id appears more than once/],
    ['an assignment query without sql', { ...duckdb, assignmentQueries: [{ ...duckdb.assignmentQueries[0], sql: ' ' }] }, /\[assignmentQueries\.0\.sql\]/],
    [
      'an assignment query with a second statement after its own',
      { ...duckdb, assignmentQueries: [{ ...duckdb.assignmentQueries[0], sql: "SELECT * FROM read_csv('exposures.csv')) e) SELECT 1; COPY (SELECT 'owned-by-analyst' AS user_id) TO 'exposures.csv'; SELECT (1" }] },
      /\[assignmentQueries\.0\.sql\] must be one SQL statement/,
    ],
    ['a join query with two statements', { ...athena, identifierJoinQueries: [{ identifierTypes: ['user_id', 'anonymous_id'], sql: 'SELECT 1; SELECT 2' }] }, /\[identifierJoinQueries\.0\.sql\] must be one SQL statement/],
    ['a join query on an undeclared identifier type', { ...athena, identifierJoinQueries: [{ identifierTypes: ['user_id', 'device_id'], sql: 'SELECT 1' }] }, /\[identifierJoinQueries\.0\.identifierTypes\] device_id/],
    ['an unknown project', { ...duckdb, projectIds: ['prj_missing'] }, /\[projectIds\] unknown project prj_missing/],
    ['an unknown field', { ...duckdb, colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const before = await total();

    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await total()).toBe(before);
  });

  it('accepts an assignment query whose ";" are inside strings, quoted names and comments, or end it', async () => {
    const sql = `SELECT user_id AS "a;b", ';' AS c, timestamp, experiment_id, variation_id FROM exposures -- one; two\n/* ; */;`;

    const response = await create({ ...athena, assignmentQueries: [{ ...athena.assignmentQueries[0], sql }] });

    expect(response.status).toBe(200);
    expect(response.body.dataSource.assignmentQueries[0].sql).toBe(sql);
  });

  it.each(['engineer', 'experimenter', 'readonly'] as const)('answers 403 for a %s key, which lacks the manage permission', async (role) => {
    const response = await create(duckdb, org.keys[role]);

    expect(response.status).toBe(403);
  });
});

describe('data sources in a deployment that confines each organization\'s Athena (ATHENA_TENANTS)', () => {
  const confine = () => {
    process.env.ATHENA_TENANTS = JSON.stringify({
      [org.orgId]: { workGroups: ['analytics'], databases: ['events'], catalog: 'AwsDataCatalog' },
      [other.orgId]: { workGroups: ['other-analytics'], databases: ['other_events'], catalog: 'AwsDataCatalog' },
    });
  };
  const { outputLocation: _output, ...withinAllowance } = athena.params;

  it('creates an athena data source within the organization\'s workgroups, databases and catalog', async () => {
    confine();

    const response = await create({ ...athena, params: withinAllowance });

    expect(response.status).toBe(200);
    expect(response.body.dataSource.params).toEqual(withinAllowance);
  });

  it.each([
    ['another organization\'s workgroup', { workGroup: 'other-analytics' }, /\[params\.workGroup\] other-analytics is not a workgroup this organization may use \(one of analytics\)/],
    ['another organization\'s database', { database: 'other_events' }, /\[params\.database\] other_events is not a database this organization may read \(one of events\)/],
    ['another catalog', { catalog: 'lake' }, /\[params\.catalog\] lake is not the catalog this organization may read \(one of AwsDataCatalog\)/],
    ['its own output location', { outputLocation: 's3://results-bucket/mine/' }, /\[params\.outputLocation\] is set by the deployment for each organization/],
  ])('answers 400 for %s, and stores nothing', async (_case, change, message) => {
    confine();
    const before = await total();

    const response = await create({ ...athena, params: { ...withinAllowance, ...change } });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await total()).toBe(before);
  });

  it('refuses every workgroup to an organization the deployment does not list', async () => {
    confine();
    const unlisted = await createTestOrg('Unlisted org');

    const response = await create({ ...athena, params: withinAllowance }, unlisted.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[params\.workGroup\] analytics is not a workgroup this organization may use \(none: the organization has no entry in athenaTenants\)/);
  });

  it('refuses an update that moves a data source to another organization\'s database, and keeps it unchanged', async () => {
    confine();
    const created = (await create({ ...athena, params: withinAllowance })).body.dataSource;

    const response = await update(created.id, { params: { ...withinAllowance, database: 'other_events' } });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[params\.database\] other_events/);
    expect((await get(created.id)).body.dataSource).toEqual(created);
  });

  it('leaves duckdb data sources alone', async () => {
    confine();

    expect((await create(duckdb)).status).toBe(200);
  });
});

describe('GET /data-sources', () => {
  it('pages the organization\'s data sources in id order', async () => {
    const fresh = await createTestOrg('Paging org');
    for (let i = 0; i < 3; i++) await create({ ...duckdb, name: `DS ${i}` }, fresh.keys.admin);

    const first = await api.request('GET', '/api/v1/data-sources?limit=2', { key: fresh.keys.readonly });
    const second = await api.request('GET', '/api/v1/data-sources?limit=2&offset=2', { key: fresh.keys.readonly });

    expect(first.status).toBe(200);
    expectShape(contract.listDataSources, first.body);
    expect(first.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 3, hasMore: true, nextOffset: 2 });
    expect(second.body).toMatchObject({ count: 1, total: 3, hasMore: false, nextOffset: null });
    const ids = [...first.body.dataSources, ...second.body.dataSources].map((ds: { id: string }) => ds.id);
    expect(ids).toEqual([...ids].sort());
  });

  it('filters on projectId, keeping data sources that belong to no project', async () => {
    const fresh = await createTestOrg('Project org');
    const project = (await api.request('POST', '/api/v1/projects', { key: fresh.keys.admin, body: { name: 'Web' } })).body.project;
    const otherProject = (await api.request('POST', '/api/v1/projects', { key: fresh.keys.admin, body: { name: 'App' } })).body.project;
    const inProject = (await create({ ...duckdb, projectIds: [project.id] }, fresh.keys.admin)).body.dataSource.id;
    const everywhere = (await create(duckdb, fresh.keys.admin)).body.dataSource.id;
    await create({ ...duckdb, projectIds: [otherProject.id] }, fresh.keys.admin);

    const response = await api.request('GET', `/api/v1/data-sources?projectId=${project.id}`, { key: fresh.keys.admin });

    expect(response.body.dataSources.map((ds: { id: string }) => ds.id).sort()).toEqual([inProject, everywhere].sort());
    expect(response.body.total).toBe(2);
  });

  it('never lists another organization\'s data sources', async () => {
    const mine = (await create(duckdb)).body.dataSource.id;

    const response = await api.request('GET', '/api/v1/data-sources?limit=100', { key: other.keys.admin });

    expect(response.body.dataSources.map((ds: { id: string }) => ds.id)).not.toContain(mine);
  });
});

describe('GET /data-sources/{id}', () => {
  it('reads a data source with a readonly key', async () => {
    const created = (await create(athena)).body.dataSource;

    const response = await get(created.id, org.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.getDataSource, response.body);
    expect(response.body.dataSource).toEqual(created);
  });

  it('answers 404 for an unknown id and for another organization\'s data source', async () => {
    const created = (await create(duckdb)).body.dataSource;

    expect((await get('ds_missing')).status).toBe(404);
    expect((await get(created.id, other.keys.admin)).status).toBe(404);
  });

  it('answers 401 without a key', async () => {
    expect((await api.request('GET', '/api/v1/data-sources')).status).toBe(401);
  });
});

describe('POST /data-sources/{id}', () => {
  it('changes only the fields given and keeps the others', async () => {
    const created = (await create(athena)).body.dataSource;

    const response = await update(created.id, { name: 'Lake', params: { workGroup: 'primary', database: 'lake' } });

    expect(response.status).toBe(200);
    expectShape(contract.updateDataSource, response.body);
    expect(response.body.dataSource).toEqual({
      ...created,
      name: 'Lake',
      params: { workGroup: 'primary', database: 'lake' },
      dateUpdated: expect.any(String),
    });
    expect((await get(created.id)).body.dataSource.name).toBe('Lake');
  });

  it('changes the type together with params', async () => {
    const created = (await create(athena)).body.dataSource;

    const response = await update(created.id, { type: 'duckdb', params: {} });

    expect(response.status).toBe(200);
    expect(response.body.dataSource).toMatchObject({ type: 'duckdb', params: {} });
  });

  it.each([
    ['a type change without params', { type: 'duckdb' }, /\[params\] are required when the type changes to duckdb/],
    ['params that do not fit the stored type', { params: { database: 'x' } }, /\[params\.workGroup\]/],
    ['identifier types that drop one an assignment query uses', { identifierTypes: [{ id: 'user_id' }] }, /\[assignmentQueries\.1\.identifierType\] anonymous_id is not one of identifierTypes/],
    ['an unknown field', { colour: 'red' }, /colour/],
  ])('answers 400 for %s and leaves the data source unchanged', async (_case, body, message) => {
    const created = (await create(athena)).body.dataSource;

    const response = await update(created.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(created.id)).body.dataSource).toEqual(created);
  });

  it('refuses to turn a data source into duckdb where the deployment allows only athena', async () => {
    const created = (await create(athena)).body.dataSource;
    process.env.ANALYSIS_ENGINES = 'athena';

    const response = await update(created.id, { type: 'duckdb', params: {} });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/duckdb data sources cannot run in this deployment/);
  });

  it('answers 404 for another organization\'s data source and 403 for an engineer key', async () => {
    const created = (await create(duckdb)).body.dataSource;

    expect((await update(created.id, { name: 'Mine now' }, other.keys.admin)).status).toBe(404);
    expect((await update(created.id, { name: 'Mine now' }, org.keys.engineer)).status).toBe(403);
    expect((await get(created.id)).body.dataSource.name).toBe(duckdb.name);
  });
});

describe('DELETE /data-sources/{id}', () => {
  it('deletes an unused data source', async () => {
    const created = (await create(duckdb)).body.dataSource;

    const response = await remove(created.id);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deletedId: created.id });
    expect((await get(created.id)).status).toBe(404);
  });

  it('answers 404 for an unknown id, 404 for another organization\'s and 403 for an engineer key', async () => {
    const created = (await create(duckdb)).body.dataSource;

    expect((await remove('ds_missing')).status).toBe(404);
    expect((await remove(created.id, other.keys.admin)).status).toBe(404);
    expect((await remove(created.id, org.keys.engineer)).status).toBe(403);
    expect((await get(created.id)).status).toBe(200);
  });

  it.each([
    ['a fact table', (ds: string) => ({ path: '/api/v1/fact-tables', body: { name: 'Orders', datasource: ds, userIdTypes: ['user_id'], sql: 'SELECT 1' } })],
    ['an experiment', (ds: string) => ({ path: '/api/v1/experiments', body: { name: 'Exp', trackingKey: `exp-${ds}`, variations, datasourceId: ds, assignmentQueryId: 'user_id' } })],
    ['a segment', (ds: string) => ({ path: '/api/v1/segments', body: { name: 'Seg', datasourceId: ds, identifierType: 'user_id', type: 'SQL', query: 'SELECT 1' } })],
    [
      'an experiment template',
      (ds: string) => ({
        path: '/api/v1/experiment-templates',
        body: { templateMetadata: { name: 'T' }, type: 'standard', datasource: ds, exposureQueryId: 'user_id', statsEngine: 'bayesian', targeting: { coverage: 1, condition: '{}' } },
      }),
    ],
  ])('answers 409 naming %s that uses it, and keeps the data source', async (_case, user) => {
    const ds = (await create(duckdb)).body.dataSource.id;
    const { path, body } = user(ds);
    const created = await api.request('POST', path, { key: org.keys.admin, body });
    expect(created.status).toBe(200);
    const userId = (Object.values(created.body)[0] as { id: string }).id;

    const response = await remove(ds);

    expect(response.status).toBe(409);
    expect(response.body.message).toContain(userId);
    expect((await get(ds)).status).toBe(200);
  });
});

describe('references to data sources', () => {
  let ds: string;
  beforeAll(async () => {
    ds = (await create(athena)).body.dataSource.id;
  });

  it.each([
    ['a fact table on an unknown data source', '/api/v1/fact-tables', () => ({ name: 'F', datasource: 'ds_missing', userIdTypes: ['user_id'], sql: 'SELECT 1' }), /\[datasource\] no data source has the id ds_missing/],
    ['an experiment on an unknown data source', '/api/v1/experiments', () => ({ name: 'E', trackingKey: 'e-missing', variations, datasourceId: 'ds_missing' }), /\[datasourceId\] no data source has the id ds_missing/],
    ['an experiment on an unknown assignment query', '/api/v1/experiments', () => ({ name: 'E', trackingKey: 'e-query', variations, datasourceId: ds, assignmentQueryId: 'nope' }), /\[assignmentQueryId\] data source ds_\S+ has no assignment query nope \(it has user_id, exq_/],
    ['an experiment with an assignment query but no data source', '/api/v1/experiments', () => ({ name: 'E', trackingKey: 'e-none', variations, assignmentQueryId: 'user_id' }), /\[assignmentQueryId\] needs a data source/],
    [
      'a template on an unknown exposure query',
      '/api/v1/experiment-templates',
      () => ({ templateMetadata: { name: 'T' }, type: 'standard', datasource: ds, exposureQueryId: 'nope', statsEngine: 'bayesian', targeting: { coverage: 1, condition: '{}' } }),
      /\[exposureQueryId\] data source ds_\S+ has no assignment query nope/,
    ],
    [
      'a template on an unknown data source',
      '/api/v1/experiment-templates',
      () => ({ templateMetadata: { name: 'T' }, type: 'standard', datasource: 'ds_missing', exposureQueryId: 'user_id', statsEngine: 'bayesian', targeting: { coverage: 1, condition: '{}' } }),
      /\[datasource\] no data source has the id ds_missing/,
    ],
    [
      'a bulk-imported fact table on an unknown data source',
      '/api/v1/bulk-import/facts',
      () => ({ factTables: [{ id: 'ftb_bulk_missing', data: { name: 'F', datasource: 'ds_missing', userIdTypes: ['user_id'], sql: 'SELECT 1' } }], factTableFilters: [], factMetrics: [] }),
      /\[factTables\.0\.data\.datasource\] no data source has the id ds_missing/,
    ],
  ])('answers 400 for %s', async (_case, path, body, message) => {
    const response = await api.request('POST', path, { key: org.keys.admin, body: body() });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('refuses another organization\'s data source as unknown', async () => {
    const response = await api.request('POST', '/api/v1/fact-tables', {
      key: other.keys.admin,
      body: { name: 'F', datasource: ds, userIdTypes: ['user_id'], sql: 'SELECT 1' },
    });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[datasource\] no data source has the id/);
  });

  it('accepts an experiment on a data source and a generated assignment query id, and an update that names another query', async () => {
    const { assignmentQueries } = (await get(ds)).body.dataSource;
    const created = await api.request('POST', '/api/v1/experiments', {
      key: org.keys.admin,
      body: { name: 'E', trackingKey: 'e-ok', variations, datasourceId: ds, assignmentQueryId: assignmentQueries[1].id },
    });
    expect(created.status).toBe(200);

    const refused = await api.request('POST', `/api/v1/experiments/${created.body.experiment.id}`, { key: org.keys.admin, body: { assignmentQueryId: 'nope' } });
    const changed = await api.request('POST', `/api/v1/experiments/${created.body.experiment.id}`, { key: org.keys.admin, body: { assignmentQueryId: 'user_id' } });

    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/\[assignmentQueryId\] data source .* has no assignment query nope/);
    expect(changed.status).toBe(200);
    expect(changed.body.experiment.settings).toMatchObject({ datasourceId: ds, assignmentQueryId: 'user_id' });
  });
});
