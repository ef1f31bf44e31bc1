import * as contract from '../../shared/contracts/metric-groups';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;
let metricA: string;
let metricB: string;
let metricElsewhere: string;
let project: string;

const request = (method: string, path: string, payload?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body: payload });

async function factMetric(testOrg: TestOrg, datasource: string): Promise<string> {
  const table = await request('POST', '/fact-tables', { name: 'Orders', datasource, userIdTypes: ['user_id'], sql: 'SELECT * FROM orders' }, testOrg.keys.admin);
  const metric = await request(
    'POST',
    '/fact-metrics',
    { name: 'Ordered', metricType: 'proportion', numerator: { factTableId: table.body.factTable.id, column: '$$distinctUsers' } },
    testOrg.keys.admin,
  );
  return metric.body.factMetric.id;
}

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources: ['ds_1', 'ds_2'] }), createTestOrg('Other org')]);
  [metricA, metricB, metricElsewhere] = await Promise.all([factMetric(org, 'ds_1'), factMetric(org, 'ds_1'), factMetric(org, 'ds_2')]);
  project = (await request('POST', '/projects', { name: 'Web' })).body.project.id;
});
afterAll(() => api.close());

const body = () => ({ name: 'Checkout metrics', description: 'Everything about checkout', projects: [project], metrics: [metricA, metricB], datasource: 'ds_1' });
const create = (payload: Record<string, unknown> = {}, key = org.keys.admin) => request('POST', '/metric-groups', { ...body(), ...payload }, key);
const count = async () => (await request('GET', '/metric-groups')).body.metricGroups.length;

describe('POST /metric-groups', () => {
  it('creates a metric group, not archived, with no tags unless given', async () => {
    const response = await create();

    expect(response.status).toBe(200);
    expectShape(contract.createMetricGroup, response.body);
    expect(response.body.metricGroup).toEqual({
      ...body(),
      id: expect.stringMatching(/^mg_/),
      tags: [],
      owner: '',
      archived: false,
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
    });
  });

  it.each([
    ['an unknown metric', () => ({ metrics: ['fact_missing'] }), /\[metrics\.0\] no fact metric has the id fact_missing/],
    ['a metric of another datasource', () => ({ metrics: [metricA, metricElsewhere] }), /\[metrics\.1\] .* uses datasource ds_2/],
    ['an unknown project', () => ({ projects: ['prj_missing'] }), /\[projects\.0\]/],
    ['no datasource', () => ({ datasource: undefined }), /\[datasource\]/],
    ['archived, which only an update sets', () => ({ archived: true }), /archived/],
  ])('answers 400 for %s and stores nothing', async (_case, payload, message) => {
    const before = await count();

    const response = await create(payload());

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await count()).toBe(before);
  });

  it('answers 403 to a readonly key', async () => {
    expect((await create({}, org.keys.readonly)).status).toBe(403);
  });
});

describe('GET /metric-groups and /metric-groups/{id}', () => {
  it("lists and gets the organization's metric groups, never another organization's", async () => {
    const fresh = await createTestOrg('List org', { dataSources: ['ds_1', 'ds_2'] });
    const metric = await factMetric(fresh, 'ds_1');
    const mine = (await create({ projects: [], metrics: [metric] }, fresh.keys.admin)).body.metricGroup;
    const theirs = (await create({ projects: [], metrics: [] }, other.keys.admin)).body.metricGroup;

    const list = await request('GET', '/metric-groups', undefined, fresh.keys.readonly);
    const one = await request('GET', `/metric-groups/${mine.id}`, undefined, fresh.keys.readonly);
    const foreign = await request('GET', `/metric-groups/${theirs.id}`, undefined, fresh.keys.readonly);

    expect(list.status).toBe(200);
    expectShape(contract.listMetricGroups, list.body);
    expect(list.body.metricGroups).toEqual([mine]);
    expect(one.body).toEqual({ metricGroup: mine });
    expect(foreign.status).toBe(404);
  });
});

describe('PUT and DELETE /metric-groups/{id}', () => {
  it('updates the given fields (archiving too) and deletes', async () => {
    const created = (await create()).body.metricGroup;

    const updated = await request('PUT', `/metric-groups/${created.id}`, { metrics: [metricB], archived: true });
    const deleted = await request('DELETE', `/metric-groups/${created.id}`);

    expect(updated.status).toBe(200);
    expectShape(contract.updateMetricGroup, updated.body);
    expect(updated.body.metricGroup).toEqual({ ...created, metrics: [metricB], archived: true, dateUpdated: expect.any(String) });
    expect(deleted.body).toEqual({ deletedId: created.id });
    expect((await request('GET', `/metric-groups/${created.id}`)).status).toBe(404);
  });

  it('answers 400 for a datasource its metrics do not use, and keeps the group', async () => {
    const created = (await create()).body.metricGroup;

    const response = await request('PUT', `/metric-groups/${created.id}`, { datasource: 'ds_2' });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[metrics\.0\]/);
    expect((await request('GET', `/metric-groups/${created.id}`)).body.metricGroup).toEqual(created);
  });

  it("answers 404 for another organization's group and 403 to a readonly key", async () => {
    const theirs = (await create({ projects: [], metrics: [] }, other.keys.admin)).body.metricGroup;
    const mine = (await create()).body.metricGroup;

    const responses = await Promise.all([
      request('PUT', `/metric-groups/${theirs.id}`, { name: 'Mine now' }),
      request('DELETE', `/metric-groups/${theirs.id}`),
      request('PUT', `/metric-groups/${mine.id}`, { name: 'x' }, org.keys.readonly),
      request('DELETE', `/metric-groups/${mine.id}`, undefined, org.keys.readonly),
    ]);

    expect(responses.map((r) => r.status)).toEqual([404, 404, 403, 403]);
    expect((await request('GET', `/metric-groups/${theirs.id}`, undefined, other.keys.admin)).body.metricGroup).toEqual(theirs);
  });
});
