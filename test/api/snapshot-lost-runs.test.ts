import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runScheduler } from '../../functions/scheduler/advance-ramp-schedules';
import { sweepLostSnapshots } from '../../functions/scheduler/sweep-lost-snapshots';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { snapshots } from '../../shared/store/snapshots';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * A snapshot whose run is lost stays `running` for ever unless something ends it: here Step
 * Functions is a stand-in that takes StartExecution and then does nothing, so nothing ever records
 * an outcome, which is what a function that dies between its transaction and starting the run
 * leaves behind too (a running snapshot and its watch). The scheduler's sweep ends it.
 */

let api: Api;
let org: TestOrg;
let stepFunctions: Server;
const started: string[] = [];

beforeAll(async () => {
  stepFunctions = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      started.push(JSON.parse(Buffer.concat(chunks).toString()).name);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ executionArn: 'arn:aws:states:local:000000000000:execution:snapshots:x', startDate: Date.now() / 1000 }));
    });
  });
  await new Promise<void>((resolve) => stepFunctions.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    SNAPSHOT_STATE_MACHINE_ARN: 'arn:aws:states:local:000000000000:stateMachine:snapshots',
    AWS_ENDPOINT_URL_SFN: `http://127.0.0.1:${(stepFunctions.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  api = await startApi();
  org = await createTestOrg('Lost runs', { dataSources: ['ds_warehouse'] });
});

afterAll(async () => {
  for (const name of ['SNAPSHOT_STATE_MACHINE_ARN', 'AWS_ENDPOINT_URL_SFN', 'SNAPSHOT_TIMEOUT_MS', 'SNAPSHOT_LOST_MARGIN_MS']) delete process.env[name];
  await api.close();
  await new Promise<void>((resolve) => stepFunctions.close(() => resolve()));
});

afterEach(() => {
  delete process.env.SNAPSHOT_TIMEOUT_MS;
  delete process.env.SNAPSHOT_LOST_MARGIN_MS;
});

const post = async (path: string, body: unknown) => {
  const response = await api.request('POST', `/api/v1${path}`, { key: org.keys.admin, body });
  if (response.status !== 200) throw new Error(`POST ${path} failed: ${JSON.stringify(response.body)}`);
  return response.body;
};

let counter = 0;
/** A running experiment with one metric, and a snapshot of it triggered through the API. */
async function triggerSnapshot(): Promise<string> {
  const table = await post('/fact-tables', { name: 'Events', datasource: 'ds_warehouse', userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events.csv')" });
  const metric = await post('/fact-metrics', { name: 'Purchased', metricType: 'proportion', numerator: { factTableId: table.factTable.id, column: '$$distinctUsers' } });
  const { experiment } = await post('/experiments', {
    trackingKey: `lost-${Date.now()}-${++counter}`,
    name: 'Lost',
    variations: [
      { key: '0', name: 'A' },
      { key: '1', name: 'B' },
    ],
    status: 'running',
    datasourceId: 'ds_warehouse',
    metrics: [metric.factMetric.id],
  });
  return (await post(`/experiments/${experiment.id}/snapshot`, { triggeredBy: 'manual' })).snapshot.id;
}

const watchOf = async (snapshotId: string) =>
  (await db.get({ TableName: tableName(), Key: keys.snapshotWatch(org.orgId, snapshotId), ConsistentRead: true })).Item;

async function failedEventsOf(snapshotId: string) {
  const { Items = [] } = await db.query({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.organization(org.orgId).PK, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return Items.filter((item) => item.event === 'experiment.snapshot.failed' && item.data.snapshotId === snapshotId);
}

/** A snapshot whose deadline is a few milliseconds after its creation, and already past when this returns. */
async function lostSnapshot(): Promise<string> {
  process.env.SNAPSHOT_TIMEOUT_MS = '1';
  process.env.SNAPSHOT_LOST_MARGIN_MS = '0';
  const snapshotId = await triggerSnapshot();
  await new Promise((resolve) => setTimeout(resolve, 20));
  return snapshotId;
}

describe('snapshots whose run was lost', () => {
  it('watches a new snapshot until its timeout plus a margin', async () => {
    process.env.SNAPSHOT_TIMEOUT_MS = String(30 * 60_000);
    const before = Date.now();

    const snapshotId = await triggerSnapshot();

    const watch = await watchOf(snapshotId);
    expect(started).toContain(snapshotId);
    expect(watch).toMatchObject({ entityType: 'SNAPSHOT_WATCH', organization: org.orgId, entityId: snapshotId, GSI2PK: 'SNAPSHOT_DUE' });
    const deadline = Date.parse(watch!.GSI2SK);
    expect(deadline).toBeGreaterThanOrEqual(before + 35 * 60_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 35 * 60_000);
  });

  it('leaves a running snapshot alone before its deadline', async () => {
    const snapshotId = await triggerSnapshot();

    await runScheduler();

    expect((await snapshots.get(org.orgId, snapshotId)).status).toBe('running');
    expect(await watchOf(snapshotId)).toBeDefined();
  });

  it('ends a snapshot still running at its deadline as error, with the failed event, from the scheduler tick', async () => {
    const snapshotId = await lostSnapshot();

    await runScheduler();

    // (Another test file's scheduler run may sweep it first: either way, one sweep ended it.)
    const snapshot = await snapshots.get(org.orgId, snapshotId);
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toMatch(/still running at its deadline .*its run was lost/);
    const events = await failedEventsOf(snapshotId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ object: { type: 'experiment', id: snapshot.experiment }, data: { snapshotId, status: 'error', error: snapshot.error } });
    expect(await watchOf(snapshotId)).toBeUndefined();
  });

  it('ends it exactly once when sweeps run at the same time', async () => {
    const snapshotId = await lostSnapshot();

    await Promise.all([sweepLostSnapshots(), sweepLostSnapshots(), sweepLostSnapshots()]);

    expect((await snapshots.get(org.orgId, snapshotId)).status).toBe('error');
    expect(await failedEventsOf(snapshotId)).toHaveLength(1);
    expect(await watchOf(snapshotId)).toBeUndefined();
  });

  it('drops the watch of a snapshot that has ended meanwhile, and changes nothing else', async () => {
    const snapshotId = await lostSnapshot();
    // Ended by its run between the index read and the sweep: status changed, watch still there (as if the index lagged).
    const current = await snapshots.get(org.orgId, snapshotId);
    await db.update({
      TableName: tableName(),
      Key: keys.entity(org.orgId, 'SNAPSHOT', snapshotId),
      UpdateExpression: 'SET #status = :success',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':success': 'success' },
    });

    await sweepLostSnapshots();

    expect(await snapshots.get(org.orgId, snapshotId)).toEqual({ ...current, status: 'success' });
    expect(await failedEventsOf(snapshotId)).toEqual([]);
    expect(await watchOf(snapshotId)).toBeUndefined();
  });

  it('ends the watch with the outcome its run records', async () => {
    delete process.env.SNAPSHOT_STATE_MACHINE_ARN;
    // Run locally: the fact table's file does not exist, so the run ends `error` by itself.
    const snapshotId = await triggerSnapshot();
    await api.close();
    api = await startApi();
    process.env.SNAPSHOT_STATE_MACHINE_ARN = 'arn:aws:states:local:000000000000:stateMachine:snapshots';

    expect((await snapshots.get(org.orgId, snapshotId)).status).toBe('error');
    expect(await watchOf(snapshotId)).toBeUndefined();
  });
});
