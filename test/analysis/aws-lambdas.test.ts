import { handler as failHandler } from '../../functions/analysis/fail-snapshot';
import { handler as planHandler } from '../../functions/analysis/plan-snapshot';
import { snapshots } from '../../shared/store/snapshots';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { waitForSnapshot } from '../support/analysis-api';

/**
 * The Lambdas of the snapshot state machine, against DynamoDB Local. Athena itself cannot run
 * here: the plan is checked up to the SQL and target it hands to Athena, and the failure
 * recorder on the errors Step Functions would hand it.
 */
let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Athena lambdas');
});
afterAll(() => api.close());

const post = async (path: string, body: unknown) => {
  const response = await api.request('POST', `/api/v1${path}`, { key: org.keys.admin, body });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

/** An experiment on an Athena data source with one proportion metric, and a snapshot of it. */
async function athenaSnapshot(params: Record<string, string>) {
  const { dataSource } = await post('/data-sources', {
    name: 'Warehouse',
    type: 'athena',
    params,
    identifierTypes: [{ id: 'user_id' }],
    assignmentQueries: [{ id: 'users', name: 'Users', identifierType: 'user_id', sql: 'SELECT user_id, timestamp, experiment_id, variation_id FROM exposures' }],
  });
  const { factTable } = await post('/fact-tables', { name: 'Orders', datasource: dataSource.id, userIdTypes: ['user_id'], sql: 'SELECT user_id, timestamp, amount FROM orders' });
  const { factMetric } = await post('/fact-metrics', { name: 'Ordered', metricType: 'proportion', numerator: { factTableId: factTable.id, column: '$$distinctUsers' } });
  const { experiment } = await post('/experiments', {
    name: 'Checkout',
    trackingKey: `athena-${dataSource.id}`,
    status: 'running',
    datasourceId: dataSource.id,
    assignmentQueryId: 'users',
    metrics: [factMetric.id],
    variations: [
      { key: '0', name: 'Control' },
      { key: '1', name: 'Treatment' },
    ],
    phases: [{ name: 'Main', dateStarted: '2026-01-01T00:00:00Z', dateEnded: '2026-01-15T00:00:00Z' }],
  });
  const { snapshot } = await post(`/experiments/${experiment.id}/snapshot`, {});
  // Without a state machine, the local run refuses Athena and records it: the snapshot's inputs stay frozen for the plan.
  await waitForSnapshot(api, org, snapshot.id);
  return { snapshotId: snapshot.id as string, dataSourceId: dataSource.id as string };
}

describe('the plan Lambda', () => {
  afterEach(() => {
    delete process.env.ATHENA_OUTPUT_LOCATION;
  });

  it('hands Athena the snapshot\'s SQL and the data source\'s workgroup, database, catalog and output location', async () => {
    const { snapshotId } = await athenaSnapshot({ workGroup: 'analytics', database: 'events', catalog: 'lake', outputLocation: 's3://results/ds/' });

    const plan = await planHandler({ orgId: org.orgId, snapshotId });

    expect(plan.athena).toEqual({ workGroup: 'analytics', database: 'events', catalog: 'lake', outputLocation: 's3://results/ds/' });
    expect(plan.queries.length).toBeGreaterThan(0);
    expect(plan.queries[0].sql).toContain('FROM orders');
    // Athena's dialect, not DuckDB's: no DuckDB file readers.
    expect(plan.queries.map((q) => q.sql).join('\n')).not.toMatch(/read_csv|read_parquet/);
  });

  it('falls back to the default catalog and the deployment\'s output location', async () => {
    process.env.ATHENA_OUTPUT_LOCATION = 's3://deployment-results/';
    const { snapshotId } = await athenaSnapshot({ workGroup: 'primary', database: 'events' });

    const plan = await planHandler({ orgId: org.orgId, snapshotId });

    expect(plan.athena).toEqual({ workGroup: 'primary', database: 'events', catalog: 'AwsDataCatalog', outputLocation: 's3://deployment-results/' });
  });

  it('refuses a snapshot when no output location is known', async () => {
    const { snapshotId, dataSourceId } = await athenaSnapshot({ workGroup: 'primary', database: 'events' });

    await expect(planHandler({ orgId: org.orgId, snapshotId })).rejects.toThrow(`Data source ${dataSourceId} has no params.outputLocation`);
  });

  describe('in a deployment that confines each organization (athenaTenants)', () => {
    const confine = (workGroups: string[]) => {
      process.env.ATHENA_OUTPUT_LOCATION = 's3://deployment-results/switchyard/';
      process.env.ATHENA_TENANT_ROLES = JSON.stringify({ [org.orgId]: 'arn:aws:iam::123456789012:role/tenant-a' });
      process.env.ATHENA_TENANTS = JSON.stringify({ [org.orgId]: { workGroups, databases: ['events'], catalog: 'AwsDataCatalog' } });
    };
    afterEach(() => {
      delete process.env.ATHENA_TENANT_ROLES;
      delete process.env.ATHENA_TENANTS;
    });

    it("names the organization's role and its own prefix of the output location", async () => {
      const { snapshotId } = await athenaSnapshot({ workGroup: 'analytics', database: 'events' });
      confine(['analytics']);

      const plan = await planHandler({ orgId: org.orgId, snapshotId });

      expect(plan.athena).toEqual({
        workGroup: 'analytics',
        database: 'events',
        catalog: 'AwsDataCatalog',
        outputLocation: `s3://deployment-results/switchyard/${org.orgId}/`,
        roleArn: 'arn:aws:iam::123456789012:role/tenant-a',
      });
    });

    it("refuses a data source, stored before the allowance, that names a workgroup outside it", async () => {
      const { snapshotId, dataSourceId } = await athenaSnapshot({ workGroup: 'shared', database: 'events' });
      confine(['analytics']);

      await expect(planHandler({ orgId: org.orgId, snapshotId })).rejects.toThrow(
        `Data source ${dataSourceId}: params.workGroup shared is not a workgroup this organization may use (one of analytics)`,
      );
    });

    it('refuses an organization the deployment does not list', async () => {
      const { snapshotId } = await athenaSnapshot({ workGroup: 'analytics', database: 'events' });
      confine(['analytics']);
      process.env.ATHENA_TENANT_ROLES = JSON.stringify({ org_someone_else: 'arn:aws:iam::123456789012:role/tenant-b' });

      await expect(planHandler({ orgId: org.orgId, snapshotId })).rejects.toThrow(/may not use Athena in this deployment/);
    });
  });
});

describe('the failure recorder', () => {
  /** A snapshot as a state machine run sees it: frozen inputs, status running. */
  const runningSnapshot = async () => {
    const { snapshotId } = await athenaSnapshot({ workGroup: 'primary', database: 'events' });
    // The local run already recorded its own refusal; put the snapshot back to running as a state machine run would see it.
    await snapshots.update(org.orgId, snapshotId, (current) => ({ ...current, status: 'running', error: undefined }) as typeof current);
    return snapshotId;
  };
  const read = (id: string) => snapshots.get(org.orgId, id);

  it('marks the snapshot error with the failed query and Athena\'s reason', async () => {
    const snapshotId = await runningSnapshot();
    const cause = JSON.stringify({ QueryExecution: { Status: { State: 'FAILED', StateChangeReason: "COLUMN_NOT_FOUND: Column 'amount' cannot be resolved" } } });

    await failHandler({ orgId: org.orgId, snapshotId, error: { Error: 'States.TaskFailed', Cause: `Query q_orders failed: ${cause}` } });

    const snapshot = await read(snapshotId);
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBe("Query q_orders failed on Athena: COLUMN_NOT_FOUND: Column 'amount' cannot be resolved");
  });

  it('marks the snapshot error when its execution timed out', async () => {
    const snapshotId = await runningSnapshot();

    await failHandler({ detail: { status: 'TIMED_OUT', input: JSON.stringify({ orgId: org.orgId, snapshotId }) } });

    const snapshot = await read(snapshotId);
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toMatch(/did not finish within the state machine time limit/);
  });
});
