import * as contract from '../../shared/contracts/snapshots';
import { findApiKey, hashSecret } from '../../shared/store/api-keys';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { snapshots } from '../../shared/store/snapshots';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['ds_warehouse'];

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
});
afterAll(() => api.close());

/** A fact metric of the organization's data source (its file need not exist: these tests look at requests, not results). */
const metricOf = async (testOrg: TestOrg) => {
  const post = (path: string, body: unknown) => api.request('POST', `/api/v1${path}`, { key: testOrg.keys.admin, body });
  const table = await post('/fact-tables', { name: 'Events', datasource: 'ds_warehouse', userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events.csv')" });
  const metric = await post('/fact-metrics', {
    name: 'Purchased',
    metricType: 'proportion',
    numerator: { factTableId: table.body.factTable.id, column: '$$distinctUsers' },
  });
  return metric.body.factMetric.id as string;
};

let counter = 0;
const experiment = async (fields: Record<string, unknown> = {}, testOrg = org) => {
  const metrics = 'metrics' in fields ? [] : [await metricOf(testOrg)];
  const response = await api.request('POST', '/api/v1/experiments', {
    key: testOrg.keys.admin,
    body: {
      trackingKey: `snap-${Date.now()}-${++counter}`,
      name: 'Analysed',
      variations: [
        { key: '0', name: 'A' },
        { key: '1', name: 'B' },
      ],
      status: 'running',
      datasourceId: 'ds_warehouse',
      metrics,
      ...fields,
    },
  });
  return response.body.experiment as { id: string; phases: unknown[] };
};

const trigger = (experimentId: string, body?: unknown, key = org.keys.admin) =>
  api.request('POST', `/api/v1/experiments/${experimentId}/snapshot`, { key, body });

/** The event records of an organization, oldest first. */
async function eventsOf(orgId: string) {
  const { Items = [] } = await db.query({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.organization(orgId).PK, ':prefix': 'EVENT#' },
  });
  return Items;
}

describe('POST /experiments/{id}/snapshot', () => {
  it('answers a running snapshot at once, with the analysis inputs frozen on it', async () => {
    const { id } = await experiment();

    const response = await trigger(id, { triggeredBy: 'manual' });

    expect(response.status).toBe(200);
    expectShape(contract.postExperimentSnapshot, response.body);
    expect(response.body.snapshot).toEqual({ id: expect.stringMatching(/^snp_/), experiment: id, status: 'running' });
    const stored = await snapshots.get(org.orgId, response.body.snapshot.id);
    expect(stored.inputs).toMatchObject({
      engine: 'duckdb',
      datasourceId: 'ds_warehouse',
      experimentId: id,
      variations: [expect.objectContaining({ key: '0', weight: 0.5 }), expect.objectContaining({ key: '1', weight: 0.5 })],
      factTables: [expect.objectContaining({ sql: "SELECT * FROM read_csv('events.csv')" })],
    });
  });

  it('records who asked, how, and for the latest phase', async () => {
    const { id } = await experiment({
      phases: [
        { name: 'First', dateStarted: '2024-01-01T00:00:00Z' },
        { name: 'Second', dateStarted: '2024-02-01T00:00:00Z' },
      ],
    });
    const keyId = (await findApiKey(hashSecret(org.keys.engineer)))!.id;

    const response = await trigger(id, undefined, org.keys.engineer);

    const stored = await snapshots.get(org.orgId, response.body.snapshot.id);
    expect(stored).toMatchObject({ triggeredBy: 'manual', triggeredByKeyId: keyId, phase: 1, dateCreated: expect.any(String) });
    expect(stored.triggeredByMemberId).toBeUndefined();
  });

  it('records the member behind a personal access token, and the phase and dimension asked for', async () => {
    const { id } = await experiment();

    const response = await trigger(id, { phase: 0, dimension: 'pre:date' }, org.admin.token);

    const stored = await snapshots.get(org.orgId, response.body.snapshot.id);
    expect(stored).toMatchObject({ triggeredByMemberId: org.admin.memberId, phase: 0, dimension: 'pre:date' });
  });

  it('writes the scheduled-refresh event when triggered by schedule', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const { id } = await experiment({}, fresh);

    const response = await trigger(id, { triggeredBy: 'schedule' }, fresh.keys.admin);

    expect(response.status).toBe(200);
    // The run's own outcome event may follow; the scheduled event is written with the request.
    const events = (await eventsOf(fresh.orgId)).filter((e) => e.event === 'experiment.snapshot.scheduled');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event: 'experiment.snapshot.scheduled',
      object: { type: 'experiment', id },
      data: { snapshotId: response.body.snapshot.id, phase: 0 },
    });
    const stored = await snapshots.get(fresh.orgId, response.body.snapshot.id);
    expect(stored.triggeredBy).toBe('schedule');
  });

  it('writes no event when triggered manually', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const { id } = await experiment({}, fresh);

    await trigger(id, { triggeredBy: 'manual' }, fresh.keys.admin);

    expect((await eventsOf(fresh.orgId)).filter((e) => e.event === 'experiment.snapshot.scheduled')).toEqual([]);
  });

  it.each([
    ['a draft', { status: 'draft' }, undefined, /draft/],
    ['an experiment without phases', { phases: [] }, undefined, /no phases/],
    ['an experiment without a datasource', { datasourceId: undefined, metrics: [] }, undefined, /no datasource/],
    ['a phase it does not have', {}, { phase: 3 }, /\[phase\]/],
    ['an unknown triggeredBy', {}, { triggeredBy: 'cron' }, /\[triggeredBy\]/],
    ['an unknown field', {}, { refresh: true }, /refresh/],
    ['a unit dimension that does not exist', {}, { dimension: 'dim_abc' }, /\[dimension\] dim_abc is not a dimension that exists/],
    ['a column the assignment query does not have', {}, { dimension: 'exp:country' }, /\[dimension\] country is not a dimension column/],
  ])('answers 400 for %s and records nothing', async (_case, fields, body, message) => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const { id } = await experiment(fields, fresh);

    const response = await trigger(id, body ?? { triggeredBy: 'schedule' }, fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((await snapshots.all(fresh.orgId)).length).toBe(0);
    expect(await eventsOf(fresh.orgId)).toEqual([]);
  });

  it('answers 404 for an unknown experiment', async () => {
    const response = await trigger('exp_missing');

    expect(response.status).toBe(404);
    expect(response.body.message).toContain('exp_missing');
  });

  it("answers 404 for another organization's experiment", async () => {
    const { id } = await experiment();

    const response = await trigger(id, {}, other.keys.admin);

    expect(response.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { id } = await experiment();

    const response = await trigger(id, {}, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('GET /snapshots/{id}', () => {
  it('returns the snapshot by its own id', async () => {
    const { id } = await experiment();
    const { body: created } = await trigger(id);

    const response = await api.request('GET', `/api/v1/snapshots/${created.snapshot.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getExperimentSnapshot, response.body);
    expect(response.body.snapshot).toMatchObject({ id: created.snapshot.id, experiment: id, status: expect.stringMatching(/^(running|error)$/) });
  });

  it('answers 404 for an experiment id', async () => {
    const { id } = await experiment();
    await trigger(id);

    const response = await api.request('GET', `/api/v1/snapshots/${id}`, { key: org.keys.admin });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's snapshot", async () => {
    const { id } = await experiment();
    const { body: created } = await trigger(id);

    const response = await api.request('GET', `/api/v1/snapshots/${created.snapshot.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
  });

  it('answers 403 for a key without access', async () => {
    const response = await api.request('GET', '/api/v1/snapshots/snp_any', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});

describe('GET /experiments/{id}/results', () => {
  const results = (experimentId: string, query = '', key = org.keys.admin) =>
    api.request('GET', `/api/v1/experiments/${experimentId}/results${query}`, { key });

  it('answers 404 saying no snapshot has been run', async () => {
    const { id } = await experiment();

    const response = await results(id, '?phase=0');

    expect(response.status).toBe(404);
    expect(response.body.message).toMatch(/no snapshot has been run/);
  });

  it('answers 400 for a phase that is not an index', async () => {
    const { id } = await experiment();

    const response = await results(id, '?phase=first');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[phase\]/);
  });

  it("answers 404 for another organization's experiment", async () => {
    const { id } = await experiment();

    const response = await results(id, '', other.keys.admin);

    expect(response.status).toBe(404);
    expect(response.body.message).toContain(id);
  });

  it('answers 403 for a key without access', async () => {
    const response = await results('exp_any', '', org.keys.noaccess);

    expect(response.status).toBe(403);
  });
});
