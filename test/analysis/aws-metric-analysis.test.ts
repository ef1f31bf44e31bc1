import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { handler as analyseHandler } from '../../functions/analysis/analyse-snapshot';
import { handler as failHandler } from '../../functions/analysis/fail-snapshot';
import { handler as planHandler } from '../../functions/analysis/plan-snapshot';
import { analyseSnapshotHandler, failSnapshotHandler, planSnapshotHandler, tableAccessOf } from '../../infra/grants';
import { asFunction } from '../../infra/local/iam';
import { buildMetricAnalysisQuery } from '../../shared/analysis/metric-analysis';
import { runDuckDbQueries } from '../../shared/analysis/engines/duckdb';
import type { StoredMetricAnalysis } from '../../shared/contracts/metric-analyses';
import { metricAnalyses } from '../../shared/store/metric-analyses';
import { DAY, HOUR, seededRandom, writeCsv } from '../support/analysis-data';
import { createDuckDbDataSource } from '../support/analysis-api';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * A fact metric's analysis on the snapshot state machine, as it runs in AWS: the endpoint starts the machine (a local
 * HTTP server answers Step Functions' StartExecution), and its Lambdas, called with the state data Step Functions would
 * hand them and held to their table grants, plan the Athena query, store the result from Athena's result pages (a local
 * HTTP server answers Athena's GetQueryResults with the rows DuckDB computes from the same events), and record failures.
 */
let api: Api;
let org: TestOrg;
let stepFunctions: Server;
let athena: Server;
const dataDir = mkdtempSync(path.join(tmpdir(), 'aws-metric-analysis-'));
const STATE_MACHINE = 'arn:aws:states:local:000000000000:stateMachine:snapshots';

/** The StartExecution calls the endpoint made, and whether the next one is refused. */
const started: { name: string; input: unknown }[] = [];
let refuseNextStart = false;
/** The result pages the local Athena answers, by query execution id, and the GetQueryResults calls it had. */
const resultPages = new Map<string, object[]>();
const athenaCalls: { QueryExecutionId: string; NextToken?: string }[] = [];

const bodyOf = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const random = seededRandom(20261127);
const events = Array.from({ length: 400 }, (_, i) => {
  const purchase = random() < 0.35;
  return {
    user_id: `u${Math.floor(random() * 50)}`,
    timestamp: today - Math.floor(i / 40) * DAY + Math.floor(random() * 23 * HOUR),
    event_type: purchase ? 'purchase' : 'pageview',
    amount: purchase ? Math.round(random() * 10_000) / 100 : 0,
  };
});

beforeAll(async () => {
  writeCsv(path.join(dataDir, 'events.csv'), events);
  stepFunctions = createServer(async (request, response) => {
    const { name, input } = JSON.parse(await bodyOf(request)) as { name: string; input: string };
    if (refuseNextStart) {
      refuseNextStart = false;
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'AccessDeniedException', message: 'Not allowed to start this state machine' }));
      return;
    }
    started.push({ name, input: JSON.parse(input) });
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    response.end(JSON.stringify({ executionArn: `${STATE_MACHINE}:${name}`, startDate: Date.now() / 1000 }));
  });
  athena = createServer(async (request, response) => {
    const call = JSON.parse(await bodyOf(request)) as { QueryExecutionId: string; NextToken?: string };
    athenaCalls.push({ QueryExecutionId: call.QueryExecutionId, ...(call.NextToken ? { NextToken: call.NextToken } : {}) });
    const pages = resultPages.get(call.QueryExecutionId);
    response.writeHead(pages ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(pages ? pages[Number(call.NextToken ?? 0)] : { __type: 'InvalidRequestException', Message: 'QueryExecution not found' }));
  });
  Object.assign(process.env, {
    ANALYSIS_DATA_DIR: dataDir,
    AWS_ENDPOINT_URL_SFN: await listen(stepFunctions),
    AWS_ENDPOINT_URL_ATHENA: await listen(athena),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  api = await startApi();
  org = await createTestOrg('Metric analyses on Athena');
});

afterAll(async () => {
  for (const name of ['SNAPSHOT_STATE_MACHINE_ARN', 'AWS_ENDPOINT_URL_SFN', 'AWS_ENDPOINT_URL_ATHENA']) delete process.env[name];
  await api.close();
  await Promise.all([stepFunctions, athena].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

/** In AWS, the endpoint starts the state machine; without it, this process runs DuckDB analyses itself. */
const inAws = (yes: boolean) => {
  if (yes) process.env.SNAPSHOT_STATE_MACHINE_ARN = STATE_MACHINE;
  else delete process.env.SNAPSHOT_STATE_MACHINE_ARN;
};
afterEach(() => inAws(false));

const post = async (route: string, body: unknown) => {
  const response = await api.request('POST', `/api/v1${route}`, { key: org.keys.admin, body });
  if (response.status !== 200) throw new Error(`${route}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

/** A fact table over `sql` on the data source, and a metric of it. */
async function metricOn(dataSourceId: string, sql: string, metric: Record<string, unknown>) {
  const { factTable } = await post('/fact-tables', { name: 'Events', datasource: dataSourceId, userIdTypes: ['user_id'], sql });
  const side = (s: Record<string, unknown>) => ({ factTableId: factTable.id, ...s });
  const { factMetric } = await post('/fact-metrics', {
    ...metric,
    numerator: side(metric.numerator as Record<string, unknown>),
    ...(metric.denominator ? { denominator: side(metric.denominator as Record<string, unknown>) } : {}),
  });
  return factMetric.id as string;
}

const athenaSource = async (params: Record<string, string>) =>
  (
    await post('/data-sources', {
      name: 'Warehouse',
      type: 'athena',
      params,
      identifierTypes: [{ id: 'user_id' }],
      assignmentQueries: [{ id: 'users', name: 'Users', identifierType: 'user_id', sql: 'SELECT user_id, timestamp FROM exposures' }],
    })
  ).dataSource.id as string;

const startAnalysis = async (metricId: string, body: object = {}) => (await post(`/fact-metrics/${metricId}/analysis`, { useCache: false, ...body })).metricAnalysis;

const asPlan = <T>(run: () => Promise<T>) => asFunction(tableAccessOf(planSnapshotHandler), 'PlanSnapshot', run);
const asAnalyse = <T>(run: () => Promise<T>) => asFunction(tableAccessOf(analyseSnapshotHandler), 'AnalyseSnapshot', run);
const asFail = <T>(run: () => Promise<T>) => asFunction(tableAccessOf(failSnapshotHandler), 'FailSnapshot', run);

async function finished(id: string): Promise<StoredMetricAnalysis> {
  for (let i = 0; i < 600; i++) {
    const analysis = await metricAnalyses.get(org.orgId, id);
    if (analysis.status !== 'running') return analysis;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`analysis ${id} still running`);
}

describe('POST /fact-metrics/{id}/analysis in AWS', () => {
  it("starts the snapshot state machine with the analysis's id, and answers it running", async () => {
    const metricId = await metricOn(await athenaSource({ workGroup: 'primary', database: 'events' }), 'SELECT * FROM events', {
      name: 'Events',
      metricType: 'mean',
      numerator: { column: '$$count' },
    });
    inAws(true);

    const analysis = await startAnalysis(metricId);

    expect(analysis.status).toBe('running');
    expect(analysis.id).toMatch(/^metan_/);
    expect(started.at(-1)).toEqual({ name: analysis.id, input: { orgId: org.orgId, snapshotId: analysis.id } });
    expect((await metricAnalyses.get(org.orgId, analysis.id)).status).toBe('running');
  });

  it('records the analysis error when the state machine cannot be started', async () => {
    const metricId = await metricOn(await athenaSource({ workGroup: 'primary', database: 'events' }), 'SELECT * FROM events', {
      name: 'Events',
      metricType: 'mean',
      numerator: { column: '$$count' },
    });
    inAws(true);
    refuseNextStart = true;

    const analysis = await startAnalysis(metricId);

    const stored = await metricAnalyses.get(org.orgId, analysis.id);
    expect(stored.status).toBe('error');
    expect(stored.error).toBe('The analysis could not be started: Not allowed to start this state machine');
  });
});

describe('the plan Lambda, for a metric analysis', () => {
  afterEach(() => {
    delete process.env.ATHENA_OUTPUT_LOCATION;
  });

  it("hands Athena the analysis's one query, in Athena's dialect, and the data source's workgroup, database, catalog and output location", async () => {
    const metricId = await metricOn(await athenaSource({ workGroup: 'analytics', database: 'events', catalog: 'lake', outputLocation: 's3://results/ds/' }), 'SELECT * FROM events', {
      name: 'Revenue',
      metricType: 'mean',
      numerator: { column: 'amount', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] },
    });
    inAws(true);
    const { id } = await startAnalysis(metricId, { lookbackDays: 7 });
    const stored = await metricAnalyses.get(org.orgId, id);

    const plan = await asPlan(() => planHandler({ orgId: org.orgId, snapshotId: id }));

    expect(plan.athena).toEqual({ workGroup: 'analytics', database: 'events', catalog: 'lake', outputLocation: 's3://results/ds/' });
    expect(plan.queries).toEqual([{ id: 'metric_analysis', sql: stored.sql }]);
    const sql = plan.queries[0]!.sql;
    expect(sql).toContain('SELECT * FROM events');
    // Athena's timestamp literals over the analysis's window, not DuckDB's.
    expect(sql).toContain(`>= from_iso8601_timestamp('${stored.settings.startDate}')`);
    expect(sql).toContain(`< from_iso8601_timestamp('${stored.settings.endDate}')`);
    expect(sql).not.toMatch(/TIMESTAMP '|read_csv|MATERIALIZED/);
  });

  it("falls back to the default catalog and the deployment's output location", async () => {
    process.env.ATHENA_OUTPUT_LOCATION = 's3://deployment-results/';
    const metricId = await metricOn(await athenaSource({ workGroup: 'primary', database: 'events' }), 'SELECT * FROM events', {
      name: 'Events',
      metricType: 'mean',
      numerator: { column: '$$count' },
    });
    inAws(true);
    const { id } = await startAnalysis(metricId);

    const plan = await asPlan(() => planHandler({ orgId: org.orgId, snapshotId: id }));

    expect(plan.athena).toEqual({ workGroup: 'primary', database: 'events', catalog: 'AwsDataCatalog', outputLocation: 's3://deployment-results/' });
  });

  it("refuses a DuckDB data source's analysis, which the fail Lambda then records on it", async () => {
    const dataSource = await createDuckDbDataSource(api, org);
    const metricId = await metricOn(dataSource.id, "SELECT * FROM read_csv('events.csv')", { name: 'Events', metricType: 'mean', numerator: { column: '$$count' } });
    inAws(true);
    const { id } = await startAnalysis(metricId);

    const planning = asPlan(() => planHandler({ orgId: org.orgId, snapshotId: id }));
    await expect(planning).rejects.toThrow(`Data source ${dataSource.id} is duckdb; this deployment runs Athena data sources only`);
    // Step Functions' Catch hands the Lambda's error to the fail step as it does for a snapshot.
    const cause = JSON.stringify({ errorType: 'InvalidInputError', errorMessage: `Data source ${dataSource.id} is duckdb; this deployment runs Athena data sources only` });
    await asFail(() => failHandler({ orgId: org.orgId, snapshotId: id, error: { Error: 'InvalidInputError', Cause: cause } }));

    const stored = await metricAnalyses.get(org.orgId, id);
    expect(stored.status).toBe('error');
    expect(stored.error).toBe(`Data source ${dataSource.id} is duckdb; this deployment runs Athena data sources only`);
  });

  it("keeps the Athena query of a ratio with filters as written (golden)", () => {
    const sql = buildMetricAnalysisQuery({
      engine: 'athena',
      metric: {
        id: 'fact_ratio',
        name: 'Revenue per event',
        type: 'ratio',
        inverse: false,
        numerator: { factTableId: 'ftb_events', column: 'amount', aggregation: 'sum', where: ["event_type = 'purchase'"] },
        denominator: { factTableId: 'ftb_events', column: '$$count', aggregation: 'sum', where: [] },
        capping: { type: 'none', value: 0, ignoreZeros: false },
        window: { type: 'none', delayHours: 0, windowHours: 0 },
        regressionAdjustment: { enabled: false, days: 0 },
        prior: { proper: false, mean: 0, stddev: 0.3 },
      },
      table: { id: 'ftb_events', name: 'Events', sql: 'SELECT user_id, timestamp, event_type, amount FROM events.orders', userIdTypes: ['user_id'] },
      unit: 'user_id',
      start: '2026-11-01T00:00:00.000Z',
      end: '2026-11-07T23:59:59.999Z',
    });

    const golden = path.join(__dirname, 'golden', 'athena-metric-analysis.sql');
    if (process.env.UPDATE_GOLDEN || !existsSync(golden)) writeFileSync(golden, sql);
    expect(sql).toBe(readFileSync(golden, 'utf8'));
  });
});

/** Athena's answer to GetQueryResults for `rows`, in pages of `perPage` rows: every cell a string, NULL a missing value, the header row first. */
function athenaPages(rows: Record<string, unknown>[], perPage: number) {
  const columns = Object.keys(rows[0]!);
  const typeOf = (column: string) =>
    column === 'day' ? 'varchar' : rows.every((row) => Number.isInteger(row[column])) ? 'bigint' : 'double';
  // Athena writes a double as Java does: large ones in scientific notation.
  const cell = (value: unknown) =>
    value === null || value === undefined ? {} : { VarCharValue: typeof value === 'number' && Math.abs(value) >= 1e7 ? value.toExponential().replace('e+', 'E') : String(value) };
  const metadata = { ColumnInfo: columns.map((name) => ({ CatalogName: 'hive', Name: name, Label: name, Type: typeOf(name), Nullable: 'UNKNOWN', CaseSensitive: false })) };
  const header = { Data: columns.map((name) => ({ VarCharValue: name })) };
  const body = rows.map((row) => ({ Data: columns.map((name) => cell(row[name])) }));
  const pages: object[] = [];
  for (let i = 0; i === 0 || i < body.length; i += perPage) {
    const next = i + perPage < body.length ? { NextToken: String(pages.length + 1) } : {};
    pages.push({ ResultSet: { ResultSetMetadata: metadata, Rows: [...(i === 0 ? [header] : []), ...body.slice(i, i + perPage)] }, UpdateCount: 0, ...next });
  }
  return pages;
}

/** `value` with each number that is not a whole one matched to 9 decimal places. */
const closeTo = (value: unknown): unknown => {
  if (typeof value === 'number') return Number.isInteger(value) ? value : expect.closeTo(value, 9);
  if (Array.isArray(value)) return value.map(closeTo);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, closeTo(v)]));
  return value;
};

describe('the analyse Lambda, for a metric analysis', () => {
  it.each([
    ['a mean', { name: 'Revenue', metricType: 'mean', numerator: { column: 'amount', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] } }],
    ['a proportion', { name: 'Purchased', metricType: 'proportion', numerator: { column: '$$distinctUsers', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] } }],
    ['a ratio', { name: 'Revenue per event', metricType: 'ratio', numerator: { column: 'amount' }, denominator: { column: '$$count' } }],
  ])("stores, from Athena's result pages, the result the local DuckDB run stores for the same events (%s)", async (_kind, metric) => {
    const dataSource = await createDuckDbDataSource(api, org);
    const metricId = await metricOn(dataSource.id, "SELECT * FROM read_csv('events.csv')", metric);
    // The local run computes the analysis on DuckDB in this process.
    const local = await finished((await startAnalysis(metricId, { lookbackDays: 7 })).id);
    expect(local.status).toBe('success');
    // In AWS, the same analysis waits for the state machine; Athena's rows are DuckDB's for the same query.
    inAws(true);
    const { id } = await startAnalysis(metricId, { lookbackDays: 7 });
    const stored = await metricAnalyses.get(org.orgId, id);
    expect(stored.sql).toBe(local.sql);
    const rows = (await runDuckDbQueries([{ id: 'q', sql: stored.sql }])).rowsByQuery.q!;
    expect(rows.length).toBeGreaterThan(3);
    const queryExecutionId = `qe-${id}`;
    resultPages.set(queryExecutionId, athenaPages(rows, 3));

    await asAnalyse(() => analyseHandler({ orgId: org.orgId, snapshotId: id, executions: [{ id: 'metric_analysis', queryExecutionId }] }));

    const analysed = await metricAnalyses.get(org.orgId, id);
    expect(analysed.status).toBe('success');
    expect(analysed.error).toBeUndefined();
    // DuckDB adds floating point sums in no fixed order, so two runs of one query may differ in the last bits.
    expect(analysed.result).toEqual(closeTo(local.result));
    // The window is today and the 7 days before it, each with events.
    expect(analysed.result!.dates).toHaveLength(8);
    // Every page was read.
    expect(athenaCalls.filter((call) => call.QueryExecutionId === queryExecutionId)).toHaveLength(Math.ceil(rows.length / 3));
  });
});

describe('the failure recorder, for a metric analysis', () => {
  const runningAnalysis = async () => {
    const metricId = await metricOn(await athenaSource({ workGroup: 'primary', database: 'events' }), 'SELECT * FROM events', {
      name: 'Events',
      metricType: 'mean',
      numerator: { column: '$$count' },
    });
    inAws(true);
    return (await startAnalysis(metricId)).id as string;
  };

  it("marks the analysis error with the failed query and Athena's reason", async () => {
    const id = await runningAnalysis();
    const cause = JSON.stringify({ QueryExecution: { Status: { State: 'FAILED', StateChangeReason: "TABLE_NOT_FOUND: Table 'events' does not exist" } } });

    await asFail(() => failHandler({ orgId: org.orgId, snapshotId: id, error: { Error: 'States.TaskFailed', Cause: `Query metric_analysis failed: ${cause}` } }));

    const stored = await metricAnalyses.get(org.orgId, id);
    expect(stored.status).toBe('error');
    expect(stored.error).toBe("Query metric_analysis failed on Athena: TABLE_NOT_FOUND: Table 'events' does not exist");
  });

  it('marks the analysis error when its execution timed out, and leaves an analysis that already ended as it was', async () => {
    const [timedOut, ended] = [await runningAnalysis(), await runningAnalysis()];
    const result = { units: 0, mean: 0, stddev: 0, numerator: 0, dates: [] };
    await metricAnalyses.update(org.orgId, ended, (current) => ({ ...current, status: 'success', result }));
    const before = await metricAnalyses.get(org.orgId, ended);

    for (const id of [timedOut, ended]) {
      await asFail(() => failHandler({ detail: { status: 'TIMED_OUT', input: JSON.stringify({ orgId: org.orgId, snapshotId: id }) } }));
    }

    const stored = await metricAnalyses.get(org.orgId, timedOut);
    expect(stored.status).toBe('error');
    expect(stored.error).toBe('The analysis did not finish within the state machine time limit and was stopped');
    expect(await metricAnalyses.get(org.orgId, ended)).toEqual(before);
  });
});
