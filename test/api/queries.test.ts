import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { handler as failHandler } from '../../functions/analysis/fail-snapshot';
import { handler as planHandler } from '../../functions/analysis/plan-snapshot';
import * as contract from '../../shared/contracts/queries';
import { snapshots } from '../../shared/store/snapshots';
import { syntheticExperiment, writeSyntheticFiles } from '../support/analysis-data';
import { createDuckDbDataSource, waitForSnapshot } from '../support/analysis-api';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

const START = Date.parse('2024-03-01T00:00:00Z');
const END = Date.parse('2024-03-15T00:00:00Z');
const TRACKING_KEY = 'queries';

let api: Api;
let org: TestOrg;
let other: TestOrg;
const dataDir = mkdtempSync(path.join(tmpdir(), 'queries-'));

beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'events'));
  writeSyntheticFiles(dataDir, syntheticExperiment({ seed: 11, units: 1_000, trackingKey: TRACKING_KEY, start: START, end: END }));
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Queries org'), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const validQuery = referenceSchemaValidator('Query', 'growthbook-5.0.1-openapi.yaml');
/** GrowthBook 5.0.1's `Query` holds everything but the two fields it leaves out (`finishedAt`, `error`). */
function expectReferenceQuery(query: Record<string, unknown>) {
  const { finishedAt: _finished, error: _error, ...reference } = query;
  expect(validQuery(reference) ? [] : validQuery.errors).toEqual([]);
}
const getQuery = (id: string, testOrg = org) => api.request('GET', `/api/v1/queries/${id}`, { key: testOrg.keys.readonly });

/** A running experiment over the synthetic exposures; `factTables` adds a fact table and metric per SQL. */
async function experimentWith(factTables: string[], testOrg = org) {
  const dataSource = await createDuckDbDataSource(api, testOrg);
  const metrics: string[] = [];
  for (const [i, sql] of factTables.entries()) {
    const { factTable } = await requestOk(api, testOrg.keys.admin, 'POST', '/fact-tables', { name: `Events ${i}`, datasource: dataSource.id, userIdTypes: ['user_id'], sql });
    const body = { name: `Events ${i}`, metricType: 'mean', numerator: { factTableId: factTable.id, column: '$$count' } };
    metrics.push((await requestOk(api, testOrg.keys.admin, 'POST', '/fact-metrics', body)).factMetric.id);
  }
  const { experiment } = await requestOk(api, testOrg.keys.admin, 'POST', '/experiments', {
    trackingKey: TRACKING_KEY,
    bypassDuplicateKeyCheck: true,
    name: 'Queries',
    status: 'running',
    datasourceId: dataSource.id,
    assignmentQueryId: 'user_exposures',
    metrics,
    variations: [
      { key: '0', name: 'Control' },
      { key: '1', name: 'Treatment' },
    ],
    phases: [{ name: 'Main', dateStarted: new Date(START).toISOString(), dateEnded: new Date(END).toISOString() }],
  });
  return { experiment, dataSource };
}

async function snapshotOf(experimentId: string, testOrg = org) {
  const { snapshot } = await requestOk(api, testOrg.keys.admin, 'POST', `/experiments/${experimentId}/snapshot`, {});
  const status = await waitForSnapshot(api, testOrg, snapshot.id);
  return { snapshot: await snapshots.get(testOrg.orgId, snapshot.id), status };
}
const queryIdsOf = (snapshotId: string, planIds: string[]) => planIds.map((planId) => `qry_${snapshotId.slice(4)}_${planId}`);

describe('GET /queries/{id}', () => {
  it("serves a successful snapshot's query, named by its results: the SQL it ran, succeeded, with when it started and finished", async () => {
    const { experiment, dataSource } = await experimentWith([]);
    const before = new Date().toISOString();

    const { snapshot, status } = await snapshotOf(experiment.id);
    const results = await requestOk(api, org.keys.admin, 'GET', `/experiments/${experiment.id}/results`);
    const response = await getQuery(results.result.queryIds[0]);

    expect(status).toBe('success');
    expect(results.result.queryIds).toEqual(queryIdsOf(snapshot.id, ['q0_traffic']));
    expect(response.status).toBe(200);
    expectShape(contract.getQuery, response.body);
    expectReferenceQuery(response.body.query);
    const { query } = response.body;
    expect(query).toMatchObject({
      id: results.result.queryIds[0],
      organization: org.orgId,
      datasource: dataSource.id,
      language: 'sql',
      queryType: 'experimentTraffic',
      createdAt: snapshot.dateCreated,
      status: 'succeeded',
      externalId: '',
      dependencies: [],
      runAtEnd: false,
    });
    expect(query.error).toBeUndefined();
    expect(query.query).toContain("read_csv('exposures.csv')");
    expect(query.query).toMatch(/COUNT\(\*\) AS users\s+FROM __exposures x\s+GROUP BY x\.variation/);
    expect(before <= query.startedAt && query.startedAt <= query.finishedAt && query.finishedAt <= snapshot.dateUpdated).toBe(true);
  });

  it('records the failing query with the engine message, and the one after it as never run', async () => {
    const { experiment } = await experimentWith(["SELECT * FROM read_csv('events/*.csv') WHERE (", "SELECT * FROM read_csv('events/*.csv')"]);

    const { snapshot, status } = await snapshotOf(experiment.id);
    const planIds = snapshot.inputs!.factTables.map((table, i) => `q${i}_${table.id}`);
    const [failed, after] = await Promise.all(queryIdsOf(snapshot.id, planIds).map((id) => getQuery(id)));

    expect(status).toBe('error');
    expect(failed.status).toBe(200);
    expectReferenceQuery(failed.body.query);
    expect(failed.body.query).toMatchObject({ status: 'failed', queryType: 'experimentMultiMetric', error: expect.stringMatching(/^Parser Error/) });
    expect(snapshot.error).toContain(failed.body.query.error);
    expect(failed.body.query.startedAt <= failed.body.query.finishedAt).toBe(true);
    expect(after.body.query).toMatchObject({ status: 'failed', startedAt: '', error: `Not run: query ${planIds[0]} failed first` });
    expect(after.body.query.finishedAt).toBeUndefined();
  });

  it("answers 404 for an unknown query and for another organization's", async () => {
    const { experiment } = await experimentWith([], other);
    const { snapshot } = await snapshotOf(experiment.id, other);
    const theirs = queryIdsOf(snapshot.id, ['q0_traffic'])[0]!;

    const foreign = await getQuery(theirs);
    const unknown = await getQuery('qry_missing');
    const own = await getQuery(theirs, other);

    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe(`Query ${theirs} not found`);
    expect(unknown.status).toBe(404);
    expect(own.status).toBe(200);
  });

  it('answers 401 without a key', async () => {
    expect((await api.request('GET', '/api/v1/queries/qry_x')).status).toBe(401);
  });
});

describe('queries of the Athena path', () => {
  /** A snapshot of an Athena experiment as the state machine sees it: inputs frozen, running. */
  async function athenaSnapshot() {
    const { dataSource } = await requestOk(api, org.keys.admin, 'POST', '/data-sources', {
      name: 'Warehouse',
      type: 'athena',
      params: { workGroup: 'primary', database: 'events', outputLocation: 's3://results/' },
      identifierTypes: [{ id: 'user_id' }],
      assignmentQueries: [{ id: 'users', name: 'Users', identifierType: 'user_id', sql: 'SELECT user_id, timestamp, experiment_id, variation_id FROM exposures' }],
    });
    const { experiment } = await requestOk(api, org.keys.admin, 'POST', '/experiments', {
      name: 'Athena',
      trackingKey: `athena-${dataSource.id}`,
      status: 'running',
      datasourceId: dataSource.id,
      assignmentQueryId: 'users',
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Treatment' },
      ],
      phases: [{ name: 'Main', dateStarted: '2026-01-01T00:00:00Z', dateEnded: '2026-01-15T00:00:00Z' }],
    });
    const { snapshot } = await requestOk(api, org.keys.admin, 'POST', `/experiments/${experiment.id}/snapshot`, {});
    // This server has no state machine: its local run refuses Athena; put the snapshot back to running as a state machine run sees it.
    await waitForSnapshot(api, org, snapshot.id);
    await snapshots.update(org.orgId, snapshot.id, (current) => ({ ...current, status: 'running', error: undefined }) as typeof current);
    return { snapshotId: snapshot.id as string, queryId: queryIdsOf(snapshot.id, ['q0_traffic'])[0]! };
  }

  it('the plan marks the query running with the Athena SQL it hands on; a failure records Athena\'s execution id, times and reason', async () => {
    const { snapshotId, queryId } = await athenaSnapshot();

    const plan = await planHandler({ orgId: org.orgId, snapshotId });
    const running = await getQuery(queryId);
    const cause = JSON.stringify({
      QueryExecution: {
        QueryExecutionId: 'a1b2c3d4-0000-4000-8000-000000000001',
        Status: { State: 'FAILED', StateChangeReason: 'TABLE_NOT_FOUND: exposures', SubmissionDateTime: 1767225600000, CompletionDateTime: 1767225603500 },
      },
    });
    await failHandler({ orgId: org.orgId, snapshotId, error: { Error: 'States.TaskFailed', Cause: `Query q0_traffic failed: ${cause}` } });
    const failed = await getQuery(queryId);

    expect(running.status).toBe(200);
    expectReferenceQuery(running.body.query);
    expect(running.body.query).toMatchObject({ status: 'running', query: plan.queries[0]!.sql, externalId: '' });
    expect(running.body.query.startedAt).not.toBe('');
    expect(failed.status).toBe(200);
    expectReferenceQuery(failed.body.query);
    expect(failed.body.query).toMatchObject({
      status: 'failed',
      externalId: 'a1b2c3d4-0000-4000-8000-000000000001',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:03.500Z',
      error: 'TABLE_NOT_FOUND: exposures',
    });
  });

  it('a run that times out leaves its queries failed with the snapshot\'s reason', async () => {
    const { snapshotId, queryId } = await athenaSnapshot();
    await planHandler({ orgId: org.orgId, snapshotId });

    await failHandler({ detail: { status: 'TIMED_OUT', input: JSON.stringify({ orgId: org.orgId, snapshotId }) } });
    const response = await getQuery(queryId);

    expect(response.body.query).toMatchObject({ status: 'failed', error: expect.stringMatching(/did not finish within the state machine time limit/) });
  });
});
