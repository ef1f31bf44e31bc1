import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/metrics';
import { snapshots } from '../../shared/store/snapshots';
import { syntheticExperiment, writeSyntheticFiles } from '../support/analysis-data';
import { createDuckDbDataSource, referenceResultsValidator, waitForSnapshot } from '../support/analysis-api';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

const START = Date.parse('2024-03-01T00:00:00Z');
const END = Date.parse('2024-03-15T00:00:00Z');
const TRACKING_KEY = 'legacy-metrics';

let api: Api;
let org: TestOrg;
let other: TestOrg;
let datasourceId: string;
const dataDir = mkdtempSync(path.join(tmpdir(), 'legacy-metrics-'));

beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'events'));
  writeSyntheticFiles(dataDir, syntheticExperiment({ seed: 20240301, units: 6_000, trackingKey: TRACKING_KEY, start: START, end: END }));
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Metrics org'), createTestOrg('Other org')]);
  datasourceId = (await createDuckDbDataSource(api, org)).id;
});
afterAll(() => api.close());

const validMetric = referenceSchemaValidator('Metric', 'growthbook-5.0.1-openapi.yaml');
const expectReferenceMetric = (metric: unknown) => expect(validMetric(metric) ? [] : validMetric.errors).toEqual([]);
const request = (method: string, route: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${route}`, { key, body });

const purchasesSql = "SELECT user_id, timestamp FROM read_csv('events/*.csv') WHERE event_type = 'purchase'";
const revenueSql = "SELECT user_id, timestamp, amount AS value FROM read_csv('events/*.csv') WHERE event_type = 'purchase'";
const minimal = (fields: Record<string, unknown> = {}) => ({
  datasourceId,
  name: 'Purchased',
  type: 'binomial',
  sql: { identifierTypes: ['user_id'], conversionSQL: purchasesSql },
  ...fields,
});
/**
 * `actual` equals `expected` but for float rounding: the two sum the same values in another order
 * (12 significant digits, far tighter than the 1e-6 the statistics tests allow against gbstats).
 */
function expectSameNumbers(actual: unknown, expected: unknown, at = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    expect({ at, close: Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)) }).toEqual({ at, close: true });
  } else if (expected && typeof expected === 'object') {
    expect(Object.keys(actual as object).sort()).toEqual(Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected)) expectSameNumbers((actual as Record<string, unknown>)[key], value, `${at}.${key}`);
  } else {
    expect(actual).toEqual(expected);
  }
}
const total = async () => (await requestOk(api, org.keys.admin, 'GET', `/metrics?datasourceId=${datasourceId}&limit=100`)).total as number;

describe('legacy metrics CRUD', () => {
  it("creates a metric with GrowthBook's defaults, and GET, the list, PUT and DELETE agree", async () => {
    const created = await request('POST', '/metrics', minimal({ tags: ['checkout'] }));

    expect(created.status).toBe(200);
    expectShape(contract.postMetric, created.body);
    expectReferenceMetric(created.body.metric);
    const { metric } = created.body;
    expect(metric).toMatchObject({
      id: expect.stringMatching(/^met_/),
      managedBy: '',
      datasourceId,
      name: 'Purchased',
      description: '',
      type: 'binomial',
      tags: ['checkout'],
      projects: [],
      archived: false,
      owner: org.admin.memberId === metric.owner ? metric.owner : '',
      behavior: {
        goal: 'increase',
        cappingSettings: { type: 'none', value: 0 },
        windowSettings: { type: 'conversion', delayValue: 0, delayUnit: 'hours', windowValue: 72, windowUnit: 'hours' },
        priorSettings: { override: false, proper: false, mean: 0, stddev: 0.3 },
        riskThresholdSuccess: 0.0025,
        riskThresholdDanger: 0.0125,
        minPercentChange: 0.005,
        maxPercentChange: 0.5,
        minSampleSize: 150,
        targetMDE: 0.1,
      },
      sql: { identifierTypes: ['user_id'], conversionSQL: purchasesSql, userAggregationSQL: 'SUM(value)', denominatorMetricId: '' },
    });

    const got = await request('GET', `/metrics/${metric.id}`, undefined, org.keys.readonly);
    const listed = await requestOk(api, org.keys.admin, 'GET', `/metrics?datasourceId=${datasourceId}&limit=100`);
    const put = await request('PUT', `/metrics/${metric.id}`, { name: 'Bought', behavior: { goal: 'decrease', windowSettings: { type: 'lookback', windowValue: 7, windowUnit: 'days' } } });
    const after = await request('GET', `/metrics/${metric.id}`);
    const deleted = await request('DELETE', `/metrics/${metric.id}`);
    const gone = await request('GET', `/metrics/${metric.id}`);

    expect(got.body).toEqual(created.body);
    expect(listed.metrics).toContainEqual(metric);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ updatedId: metric.id });
    expectReferenceMetric(after.body.metric);
    expect(after.body.metric).toMatchObject({
      name: 'Bought',
      behavior: { goal: 'decrease', windowSettings: { type: 'lookback', delayValue: 0, delayUnit: 'hours', windowValue: 7, windowUnit: 'days' }, targetMDE: 0.1 },
      sql: metric.sql,
    });
    expect(deleted.body).toEqual({ deletedId: metric.id });
    expect(gone.status).toBe(404);
  });

  it('takes the deprecated capping and conversion window fields as GrowthBook does', async () => {
    const response = await request('POST', '/metrics', minimal({ type: 'revenue', sql: { identifierTypes: ['user_id'], conversionSQL: revenueSql }, behavior: { capping: 'absolute', capValue: 100, conversionWindowStart: 24, conversionWindowEnd: 72 } }));

    expect(response.status).toBe(200);
    expectReferenceMetric(response.body.metric);
    expect(response.body.metric.behavior).toMatchObject({
      cappingSettings: { type: 'absolute', value: 100 },
      windowSettings: { type: 'conversion', delayValue: 24, delayUnit: 'hours', windowValue: 48, windowUnit: 'hours' },
    });
  });

  it.each([
    ['no sql', { sql: undefined }, /\[sql\] is required/],
    ['sqlBuilder', { sqlBuilder: { identifierTypeColumns: [], tableName: 't', timestampColumnName: 'ts' } }, /\[sqlBuilder\] is not supported/],
    ['mixpanel', { mixpanel: { eventName: 'buy', userAggregation: 'sum(values)' } }, /\[mixpanel\] is only for Mixpanel/],
    ['an unknown data source', { datasourceId: 'ds_missing' }, /\[datasourceId\] no data source has the id ds_missing/],
    ['an unknown type', { type: 'ratio' }, /\[type\]/],
    ['an empty name', { name: ' ' }, /\[name\]/],
    ['empty identifier types', { sql: { identifierTypes: [], conversionSQL: purchasesSql } }, /\[sql\.identifierTypes\]/],
    ['a binomial metric with a user aggregation', { sql: { identifierTypes: ['user_id'], conversionSQL: purchasesSql, userAggregationSQL: 'SUM(value)' } }, /userAggregationSQL\] is not allowed on binomial/],
    ['a user aggregation other than SUM(value)', { type: 'count', sql: { identifierTypes: ['user_id'], conversionSQL: revenueSql, userAggregationSQL: 'MAX(value)' } }, /only SUM\(value\)/],
    ['one risk threshold only', { behavior: { riskThresholdSuccess: 0.01 } }, /both riskThresholdDanger and riskThresholdSuccess/],
    ['a danger threshold below the success one', { behavior: { riskThresholdSuccess: 0.02, riskThresholdDanger: 0.01 } }, /riskThresholdDanger\] must be higher/],
    ['a conversion window ending before it starts', { behavior: { conversionWindowStart: 10, conversionWindowEnd: 5 } }, /conversionWindowEnd\] must be greater/],
    ['a max percent change below the min', { behavior: { minPercentChange: 0.5, maxPercentChange: 0.1 } }, /maxPercentChange\] must be greater/],
    ['percentile capping above 1', { behavior: { cappingSettings: { type: 'percentile', value: 99 } } }, /between 0 and 1/],
    ['a capping type without a value', { behavior: { cappingSettings: { type: 'absolute' } } }, /cappingSettings\] must give both/],
    ['a negative prior stddev', { behavior: { priorSettings: { override: true, proper: true, mean: 0, stddev: -1 } } }, /stddev/],
    ['an unknown field', { unit: 'users' }, /unit/],
    ['an unknown project', { projects: ['prj_missing'] }, /\[projects\] unknown project prj_missing/],
  ])('refuses %s with 400 naming the problem, storing nothing', async (_case, fields, message) => {
    const before = await total();

    const response = await request('POST', '/metrics', minimal(fields));

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await total()).toBe(before);
  });

  it('refuses a PUT that breaks a rule, changing nothing', async () => {
    const { metric } = await requestOk(api, org.keys.admin, 'POST', '/metrics', minimal());

    const response = await request('PUT', `/metrics/${metric.id}`, { sql: { userAggregationSQL: 'SUM(value)' } });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/not allowed on binomial/);
    expect((await request('GET', `/metrics/${metric.id}`)).body.metric).toEqual(metric);
  });

  it("answers 404 for another organization's metric on every route and 403 to a read-only key", async () => {
    const { metric } = await requestOk(api, org.keys.admin, 'POST', '/metrics', minimal());

    const reads = await Promise.all([
      request('GET', `/metrics/${metric.id}`, undefined, other.keys.admin),
      request('PUT', `/metrics/${metric.id}`, { name: 'Theirs' }, other.keys.admin),
      request('DELETE', `/metrics/${metric.id}`, undefined, other.keys.admin),
    ]);
    const readonly = await request('POST', '/metrics', minimal(), org.keys.readonly);
    const list = await requestOk(api, other.keys.admin, 'GET', '/metrics?limit=100');

    expect(reads.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(readonly.status).toBe(403);
    expect(list.metrics.map((m: { id: string }) => m.id)).not.toContain(metric.id);
    expect((await request('GET', `/metrics/${metric.id}`)).body.metric).toEqual(metric);
  });
});

describe('legacy metrics in snapshots', () => {
  const ids = { factPurchased: '', factRevenue: '', legacyPurchased: '', legacyRevenue: '', experiment: '', snapshotCreated: '' };
  let result: { queryIds: string[]; results: { metrics: { metricId: string; variations: { variationId: string; users: number; analyses: Record<string, number>[] }[] }[] }[] };

  beforeAll(async () => {
    const post = (route: string, body: unknown) => requestOk(api, org.keys.admin, 'POST', route, body);
    const window = { type: 'conversion', windowValue: 72, windowUnit: 'hours' };
    const { factTable } = await post('/fact-tables', { name: 'Events', datasource: datasourceId, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events/*.csv')" });
    const purchase = [{ operator: '=', column: 'event_type', values: ['purchase'] }];
    ids.factPurchased = (await post('/fact-metrics', { name: 'Purchased (fact)', metricType: 'proportion', numerator: { factTableId: factTable.id, column: '$$distinctUsers', rowFilters: purchase }, windowSettings: window })).factMetric.id;
    ids.factRevenue = (await post('/fact-metrics', {
      name: 'Revenue (fact)',
      metricType: 'mean',
      numerator: { factTableId: factTable.id, column: 'amount', aggregation: 'sum', rowFilters: purchase },
      windowSettings: window,
      cappingSettings: { type: 'absolute', value: 500 },
    })).factMetric.id;
    ids.legacyPurchased = (await post('/metrics', minimal({ name: 'Purchased (legacy)' }))).metric.id;
    ids.legacyRevenue = (await post('/metrics', minimal({
      name: 'Revenue (legacy)',
      type: 'revenue',
      sql: { identifierTypes: ['user_id'], conversionSQL: revenueSql },
      behavior: { cappingSettings: { type: 'absolute', value: 500 } },
    }))).metric.id;
    const { experiment } = await post('/experiments', {
      trackingKey: TRACKING_KEY,
      name: 'Legacy and fact',
      status: 'running',
      datasourceId,
      assignmentQueryId: 'user_exposures',
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Treatment' },
      ],
      phases: [{ name: 'Main', dateStarted: new Date(START).toISOString(), dateEnded: new Date(END).toISOString() }],
      metrics: [ids.factPurchased, ids.legacyPurchased],
      secondaryMetrics: [ids.factRevenue, ids.legacyRevenue],
      regressionAdjustmentEnabled: true,
      statsEngine: 'frequentist',
    });
    ids.experiment = experiment.id;
    const { snapshot } = await post(`/experiments/${experiment.id}/snapshot`, {});
    ids.snapshotCreated = snapshot.id;
    expect(await waitForSnapshot(api, org, snapshot.id)).toBe('success');
    result = (await requestOk(api, org.keys.admin, 'GET', `/experiments/${experiment.id}/results`)).result;
  });

  it('give the same results as their fact-metric equivalents on the same data', () => {
    const validate = referenceResultsValidator();
    expect(validate(result) ? [] : validate.errors).toEqual([]);
    const byId = new Map(result.results[0]!.metrics.map((m) => [m.metricId, m.variations]));
    for (const [fact, legacy] of [
      [ids.factPurchased, ids.legacyPurchased],
      [ids.factRevenue, ids.legacyRevenue],
    ]) {
      const factVariations = byId.get(fact!)!;
      expect(factVariations[1]!.analyses[0]!.mean).toBeGreaterThan(0);
      expectSameNumbers(byId.get(legacy!), factVariations);
    }
    // Each legacy metric ran as its own query, beside the fact table's.
    expect(result.queryIds).toHaveLength(3);
  });

  it("GET /metrics/{id}/experiments lists the experiment with the metric's latest results per variation", async () => {
    const response = await request('GET', `/metrics/${ids.legacyRevenue}/experiments`, undefined, org.keys.readonly);
    const none = await request('GET', `/metrics/${ids.legacyRevenue}/experiments?status=draft`);

    expect(response.status).toBe(200);
    const validRow = referenceSchemaValidator('experimentResults', 'growthbook-5.0.1-openapi.yaml');
    const { experimentResults, ...pagination } = response.body;
    expect(pagination).toEqual({ limit: 10, offset: 0, count: 1, total: 1, hasMore: false, nextOffset: null });
    expect(validRow(experimentResults[0]) ? [] : validRow.errors).toEqual([]);
    const stored = result.results[0]!.metrics.find((m) => m.metricId === ids.legacyRevenue)!.variations;
    expect(experimentResults[0]).toEqual({
      experimentId: ids.experiment,
      experimentName: 'Legacy and fact',
      status: 'running',
      date: new Date(END).toISOString(),
      datasourceId,
      variations: [
        { variationId: stored[0]!.variationId, variationName: 'Control', users: stored[0]!.users, value: stored[0]!.analyses[0]!.numerator, mean: stored[0]!.analyses[0]!.mean },
        {
          variationId: stored[1]!.variationId,
          variationName: 'Treatment',
          users: stored[1]!.users,
          value: stored[1]!.analyses[0]!.numerator,
          mean: stored[1]!.analyses[0]!.mean,
          lift: stored[1]!.analyses[0]!.percentChange,
          ci: [stored[1]!.analyses[0]!.ciLow, stored[1]!.analyses[0]!.ciHigh],
          pValue: stored[1]!.analyses[0]!.pValue,
        },
      ],
    });
    expect(none.body).toMatchObject({ experimentResults: [], total: 0 });
  });

  it.each([
    ['a status GrowthBook does not have', '?status=paused', /\[status\] paused is not one of draft, running, stopped/],
    ['a search operator', '?q=status:running', /\[q\] search operators/],
    ['a date that is not one', '?startDate=yesterday', /\[startDate\]/],
  ])('GET /metrics/{id}/experiments answers 400 for %s', async (_case, query, message) => {
    const response = await request('GET', `/metrics/${ids.legacyRevenue}/experiments${query}`);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it("GET /metrics/{id}/experiments answers 404 for an unknown metric and another organization's", async () => {
    expect((await request('GET', '/metrics/met_missing/experiments')).status).toBe(404);
    expect((await request('GET', `/metrics/${ids.legacyRevenue}/experiments`, undefined, other.keys.admin)).status).toBe(404);
  });

  it('GET /usage/metrics names the experiments using each metric and its last snapshot, and an error for an unknown one', async () => {
    const response = await request('GET', `/usage/metrics?ids=${ids.legacyPurchased},${ids.factRevenue},met_missing`, undefined, org.keys.readonly);
    const foreign = await request('GET', `/usage/metrics?ids=${ids.legacyPurchased}`, undefined, other.keys.admin);

    expect(response.status).toBe(200);
    const validUsage = referenceSchemaValidator('MetricUsage', 'growthbook-5.0.1-openapi.yaml');
    for (const usage of response.body.metricUsage) expect(validUsage(usage) ? [] : validUsage.errors).toEqual([]);
    const { dateCreated } = await snapshots.get(org.orgId, ids.snapshotCreated);
    const used = { experiments: [{ experimentId: ids.experiment, experimentStatus: 'running', lastSnapshotAttempt: dateCreated }], lastSnapshotAttempt: dateCreated };
    expect(response.body.metricUsage).toEqual([
      { metricId: ids.legacyPurchased, ...used },
      { metricId: ids.factRevenue, ...used },
      { metricId: 'met_missing', error: 'Could not find metric met_missing, or you may not read it' },
    ]);
    expect(foreign.body.metricUsage).toEqual([{ metricId: ids.legacyPurchased, error: `Could not find metric ${ids.legacyPurchased}, or you may not read it` }]);
  });

  it('GET /usage/metrics answers 400 without ids', async () => {
    const response = await request('GET', '/usage/metrics?ids=,');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[ids\]/);
  });

  it('refuses a snapshot of a legacy ratio metric (a denominator metric) with 400, before anything runs', async () => {
    const denominator = (await requestOk(api, org.keys.admin, 'POST', '/metrics', minimal())).metric.id;
    const ratio = (await requestOk(api, org.keys.admin, 'POST', '/metrics', minimal({ type: 'count', sql: { identifierTypes: ['user_id'], conversionSQL: revenueSql, denominatorMetricId: denominator } }))).metric.id;
    const { experiment } = await requestOk(api, org.keys.admin, 'POST', '/experiments', {
      trackingKey: `${TRACKING_KEY}-ratio`,
      name: 'Ratio',
      status: 'running',
      datasourceId,
      assignmentQueryId: 'user_exposures',
      variations: [{ key: '0', name: 'Control' }, { key: '1', name: 'Treatment' }],
      metrics: [ratio],
    });

    const response = await request('POST', `/experiments/${experiment.id}/snapshot`, {});

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(`Metric ${ratio} has a denominator metric; ratio and funnel legacy metrics are not supported in results yet`);
  });

  it("refuses an experiment naming another organization's legacy metric", async () => {
    const theirs = (await requestOk(api, other.keys.admin, 'POST', '/metrics', { ...minimal(), datasourceId: (await createDuckDbDataSource(api, other)).id })).metric.id;

    const response = await request('POST', '/experiments', { trackingKey: 'x', name: 'x', datasourceId, assignmentQueryId: 'user_exposures', variations: [{ key: '0', name: 'Control' }, { key: '1', name: 'Treatment' }], metrics: [theirs] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`\\[metrics.*\\] no fact metric has the id ${theirs}`));
  });
});
