import type { Context, DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { handler as publishHandler } from '../../functions/events/publish-events';
import { handler as pushHandler } from '../../functions/events/push-to-proxies';
import { runScheduler } from '../../functions/scheduler/advance-ramp-schedules';
import { localRunsSettled } from '../../shared/analysis/snapshot-run';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { waitForSnapshot } from '../support/analysis-api';
import { captureOutput } from '../support/capture-output';

/**
 * The workers' EMF lines with METRICS=emf: a snapshot's duration where it finishes, the scheduler's
 * transitions per run, and the stream consumers' records. DynamoDB Local is real; EventBridge and
 * Athena are not reached (the batches here hold nothing to publish, the snapshot fails before Athena).
 */
let api: Api;
let org: TestOrg;

beforeAll(async () => {
  process.env.METRICS = 'emf';
  api = await startApi();
  org = await createTestOrg('Worker metrics');
});
afterAll(async () => {
  delete process.env.METRICS;
  await api.close();
});

const emfLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, any>);

const context = { awsRequestId: 'req', functionName: 'worker', invokedFunctionArn: 'arn', memoryLimitInMB: '1024' } as Context;

const post = async (path: string, body: unknown) => {
  const response = await api.request('POST', `/api/v1${path}`, { key: org.keys.admin, body });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

describe('worker metrics', () => {
  it('gives a finished snapshot its duration once, by outcome', async () => {
    let snapshotId = '';
    const output = await captureOutput(async () => {
      const { dataSource } = await post('/data-sources', {
        name: 'Warehouse',
        type: 'athena',
        params: { workGroup: 'primary', database: 'analytics' },
        identifierTypes: [{ id: 'user_id' }],
        assignmentQueries: [{ id: 'users', name: 'Users', identifierType: 'user_id', sql: 'SELECT user_id, timestamp, experiment_id, variation_id FROM exposures' }],
      });
      const { factTable } = await post('/fact-tables', { name: 'Orders', datasource: dataSource.id, userIdTypes: ['user_id'], sql: 'SELECT user_id, timestamp FROM orders' });
      const { factMetric } = await post('/fact-metrics', { name: 'Ordered', metricType: 'proportion', numerator: { factTableId: factTable.id, column: '$$distinctUsers' } });
      const { experiment } = await post('/experiments', {
        name: 'Checkout',
        trackingKey: 'worker-metrics',
        status: 'running',
        datasourceId: dataSource.id,
        assignmentQueryId: 'users',
        metrics: [factMetric.id],
        variations: [
          { key: '0', name: 'Control' },
          { key: '1', name: 'Treatment' },
        ],
        phases: [{ name: 'Main', dateStarted: '2026-01-01T00:00:00Z' }],
      });
      // Without a state machine, the local run refuses Athena and records the snapshot as error.
      snapshotId = (await post(`/experiments/${experiment.id}/snapshot`, {})).snapshot.id;
      await waitForSnapshot(api, org, snapshotId);
      await localRunsSettled(); // the run writes its line just after the snapshot reads as finished
    });

    const durations = emfLines(output).filter((line) => 'SnapshotDuration' in line);
    expect(durations).toEqual([expect.objectContaining({ Service: 'switchyard', Status: 'error', SnapshotDuration: expect.any(Number) })]);
    expect(durations[0]._aws.CloudWatchMetrics).toEqual([
      { Namespace: 'Switchyard/local', Dimensions: [['Service', 'Status']], Metrics: [{ Name: 'SnapshotDuration', Unit: 'Milliseconds' }] },
    ]);
    expect(snapshotId).toMatch(/^snp_/);
    expect(JSON.stringify(durations[0])).not.toContain(snapshotId);
  });

  it("writes the scheduler's transitions of a run", async () => {
    const output = await captureOutput(async () => {
      await runScheduler({ now: new Date('2000-01-01T00:00:00Z') }); // nothing is due that early
    });

    expect(emfLines(output)).toEqual([
      expect.objectContaining({ Function: 'advance-ramp-schedules', RampsAdvanced: 0, RampsSkipped: 0, RampsFailed: 0, BoundariesFired: 0, BoundariesFailed: 0 }),
    ]);
  });

  it("writes the stream consumers' processed and failed records", async () => {
    // Records about something else: the publisher has no event to send, the pusher no payload change.
    const other = (sequence: string): DynamoDBRecord => ({
      eventName: 'MODIFY',
      dynamodb: { SequenceNumber: sequence, NewImage: marshall({ PK: 'ORG#x', SK: 'FEATURE#y', entityType: 'FEATURE' }) as never },
    });

    const output = await captureOutput(async () => {
      await publishHandler({ Records: [other('1'), other('2')] }, context);
      await pushHandler({ Records: [other('3')] }, context);
    });

    expect(emfLines(output)).toEqual([
      expect.objectContaining({ Function: 'publish-events', RecordsProcessed: 2, RecordsFailed: 0 }),
      expect.objectContaining({ Function: 'push-to-proxies', RecordsProcessed: 1, RecordsFailed: 0, ProxyPushes: 0, ProxyPushesFailed: 0 }),
    ]);
  });
});
