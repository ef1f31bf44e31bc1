import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/snapshots';
import { analyseMetric, srmPValue, toApiAnalysis, type AnalysisSettings, type MetricSettings } from '../../shared/analysis/statistics';
import { readSnapshotResults } from '../../shared/store/snapshot-results';
import { snapshots } from '../../shared/store/snapshots';
import { DAY, HOUR, syntheticExperiment, writeSyntheticFiles, type FactEvent } from '../support/analysis-data';
import { createDuckDbDataSource, referenceResultsValidator, waitForSnapshot } from '../support/analysis-api';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

const START = Date.parse('2024-03-01T00:00:00Z');
const END = Date.parse('2024-03-15T00:00:00Z');
const TRACKING_KEY = 'checkout-redesign';
const UNITS = 20_000;
const CAP_PERCENTILE = 0.99;
const ABSOLUTE_CAP = 2000;

let api: Api;
let org: TestOrg;
const dataDir = mkdtempSync(path.join(tmpdir(), 'analysis-e2e-'));
const data = syntheticExperiment({ seed: 20240301, units: UNITS, trackingKey: TRACKING_KEY, start: START, end: END });

beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'events'));
  writeSyntheticFiles(dataDir, data);
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  org = await createTestOrg();
});
afterAll(() => api.close());

const post = async (route: string, body: unknown) => {
  const response = await api.request('POST', `/api/v1${route}`, { key: org.keys.admin, body });
  if (response.status !== 200) throw new Error(`${route}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

/** The data source, fact table, filters, four metrics and a running experiment over the synthetic data. */
async function setUp(experimentFields: Record<string, unknown> = {}, factSql = "SELECT * FROM read_csv('events/*.csv')") {
  const dataSource = await createDuckDbDataSource(api, org);
  const { factTable } = await post('/fact-tables', { name: 'Events', datasource: dataSource.id, userIdTypes: ['user_id'], sql: factSql });
  const purchases = (await post(`/fact-tables/${factTable.id}/filters`, { name: 'Purchases', value: "event_type = 'purchase'" })).factTableFilter;
  const pageviews = (await post(`/fact-tables/${factTable.id}/filters`, { name: 'Page views', value: "event_type = 'pageview'" })).factTableFilter;
  const metric = async (body: Record<string, unknown>) => (await post('/fact-metrics', body)).factMetric.id as string;
  const purchased = await metric({
    name: 'Purchased',
    metricType: 'proportion',
    numerator: { factTableId: factTable.id, column: '$$distinctUsers', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] },
    windowSettings: { type: 'conversion', windowValue: 72, windowUnit: 'hours' },
  });
  const revenue = await metric({
    name: 'Revenue',
    metricType: 'mean',
    numerator: { factTableId: factTable.id, column: 'amount', aggregation: 'sum', filters: [purchases.id] },
    windowSettings: { type: 'conversion', windowValue: 3, windowUnit: 'days' },
    cappingSettings: { type: 'percentile', value: CAP_PERCENTILE },
  });
  const revenuePerView = await metric({
    name: 'Revenue per page view',
    metricType: 'ratio',
    numerator: { factTableId: factTable.id, column: 'amount', inlineFilters: { event_type: ['purchase'] } },
    denominator: { factTableId: factTable.id, column: '$$count', filters: [pageviews.id] },
    cappingSettings: { type: 'absolute', value: ABSOLUTE_CAP },
    regressionAdjustmentSettings: { override: true, enabled: false },
  });
  const purchasesPerDay = await metric({
    name: 'Purchases per active day, last week',
    metricType: 'ratio',
    numerator: { factTableId: factTable.id, column: '$$count', filters: [purchases.id] },
    denominator: { factTableId: factTable.id, column: '$$distinctDates', filters: [pageviews.id] },
    windowSettings: { type: 'lookback', windowValue: 7, windowUnit: 'days' },
    regressionAdjustmentSettings: { override: true, enabled: true, days: 7 },
  });
  const { experiment } = await post('/experiments', {
    trackingKey: `${TRACKING_KEY}`,
    bypassDuplicateKeyCheck: true,
    name: 'Checkout redesign',
    status: 'running',
    datasourceId: dataSource.id,
    assignmentQueryId: 'user_exposures',
    variations: [
      { key: '0', name: 'Control' },
      { key: '1', name: 'Treatment' },
    ],
    phases: [{ name: 'Main', dateStarted: new Date(START).toISOString(), dateEnded: new Date(END).toISOString() }],
    metrics: [purchased, revenue],
    secondaryMetrics: [revenuePerView, purchasesPerDay],
    statsEngine: 'frequentist',
    regressionAdjustmentEnabled: true,
    ...experimentFields,
  });
  return { experiment, metricIds: [purchased, revenue, revenuePerView, purchasesPerDay] };
}

// ---- The same numbers, computed here from the raw data without SQL ----

const byUser = new Map<string, FactEvent[]>();
for (const event of data.events) byUser.set(event.user_id, [...(byUser.get(event.user_id) ?? []), event]);

function units() {
  const exposed = new Map<string, { variations: Set<string>; first: number }>();
  for (const e of data.exposures) {
    if (e.experiment_id !== TRACKING_KEY || e.timestamp < START || e.timestamp > END) continue;
    const unit = exposed.get(e.user_id) ?? { variations: new Set<string>(), first: Infinity };
    unit.variations.add(e.variation_id);
    unit.first = Math.min(unit.first, e.timestamp);
    exposed.set(e.user_id, unit);
  }
  return [...exposed].map(([user, u]) => ({ user, variation: u.variations.size > 1 ? '__multiple__' : [...u.variations][0]!, first: u.first }));
}

const quantileCont = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * ((sorted[Math.ceil(h)] ?? sorted[lo]!) - sorted[lo]!);
};

/** Per unit: [value, denominator?, covariate?, denominator covariate?] of each metric, before caps. */
function unitValues() {
  return units().map((unit) => {
    const events = byUser.get(unit.user) ?? [];
    const select = (type: string, from: number, to: number, toInclusive = true) =>
      events.filter((e) => e.event_type === type && e.timestamp >= from && (toInclusive ? e.timestamp <= to : e.timestamp < to));
    const sum = (list: FactEvent[]) => list.reduce((s, e) => s + e.amount, 0);
    const days = (list: FactEvent[]) => new Set(list.map((e) => Math.floor(e.timestamp / DAY))).size;
    const fe = unit.first;
    const window = fe + 72 * HOUR;
    const lookbackFrom = Math.max(fe, END - 7 * DAY);
    return {
      ...unit,
      purchased: [select('purchase', fe, window).length > 0 ? 1 : 0, select('purchase', fe - 14 * DAY, fe, false).length > 0 ? 1 : 0],
      revenue: [sum(select('purchase', fe, window)), sum(select('purchase', fe - 14 * DAY, fe, false))],
      revenuePerView: [sum(select('purchase', fe, END)), select('pageview', fe, END).length],
      perDay: [
        select('purchase', lookbackFrom, END).length,
        days(select('pageview', lookbackFrom, END)),
        select('purchase', fe - 7 * DAY, fe, false).length,
        days(select('pageview', fe - 7 * DAY, fe, false)),
      ],
    };
  });
}

/** The sufficient statistics of each metric per variation, summed here. */
function expectedRows() {
  const all = unitValues();
  const revenueCap = quantileCont(all.map((u) => u.revenue[0]!), CAP_PERCENTILE);
  const rows = (variation: string) => {
    const members = all.filter((u) => u.variation === variation);
    const total = (f: (u: (typeof all)[number]) => number) => members.reduce((s, u) => s + f(u), 0);
    const cap = (v: number) => Math.min(v, revenueCap);
    const abs = (v: number) => Math.min(v, ABSOLUTE_CAP);
    return {
      users: members.length,
      purchased: {
        main_sum: total((u) => u.purchased[0]!),
        main_sum_squares: total((u) => u.purchased[0]! ** 2),
        covariate_sum: total((u) => u.purchased[1]!),
        covariate_sum_squares: total((u) => u.purchased[1]! ** 2),
        main_covariate_sum_product: total((u) => u.purchased[0]! * u.purchased[1]!),
      },
      revenue: {
        main_sum: total((u) => cap(u.revenue[0]!)),
        main_sum_squares: total((u) => cap(u.revenue[0]!) ** 2),
        covariate_sum: total((u) => cap(u.revenue[1]!)),
        covariate_sum_squares: total((u) => cap(u.revenue[1]!) ** 2),
        main_covariate_sum_product: total((u) => cap(u.revenue[0]!) * cap(u.revenue[1]!)),
      },
      revenuePerView: {
        main_sum: total((u) => abs(u.revenuePerView[0]!)),
        main_sum_squares: total((u) => abs(u.revenuePerView[0]!) ** 2),
        denominator_sum: total((u) => abs(u.revenuePerView[1]!)),
        denominator_sum_squares: total((u) => abs(u.revenuePerView[1]!) ** 2),
        main_denominator_sum_product: total((u) => abs(u.revenuePerView[0]!) * abs(u.revenuePerView[1]!)),
      },
      perDay: (() => {
        const [m, d, mp, dp] = [0, 1, 2, 3].map((i) => (u: (typeof all)[number]) => u.perDay[i]!);
        return {
          main_sum: total(m!),
          main_sum_squares: total((u) => m!(u) ** 2),
          denominator_sum: total(d!),
          denominator_sum_squares: total((u) => d!(u) ** 2),
          main_denominator_sum_product: total((u) => m!(u) * d!(u)),
          covariate_sum: total(mp!),
          covariate_sum_squares: total((u) => mp!(u) ** 2),
          main_covariate_sum_product: total((u) => m!(u) * mp!(u)),
          denominator_pre_sum: total(dp!),
          denominator_pre_sum_squares: total((u) => dp!(u) ** 2),
          main_post_denominator_pre_sum_product: total((u) => m!(u) * dp!(u)),
          main_pre_denominator_post_sum_product: total((u) => mp!(u) * d!(u)),
          main_pre_denominator_pre_sum_product: total((u) => mp!(u) * dp!(u)),
          denominator_post_denominator_pre_sum_product: total((u) => d!(u) * dp!(u)),
        };
      })(),
    };
  };
  return { control: rows('0'), treatment: rows('1'), multiple: all.filter((u) => u.variation === '__multiple__').length };
}

const metricSettings: Record<string, MetricSettings> = {
  purchased: { id: 'purchased', statistic_type: 'mean_ra', main_metric_type: 'binomial', covariate_metric_type: 'binomial', inverse: false, prior_proper: false, prior_mean: 0, prior_stddev: 0.3 },
  revenue: { id: 'revenue', statistic_type: 'mean_ra', main_metric_type: 'count', covariate_metric_type: 'count', inverse: false, prior_proper: false, prior_mean: 0, prior_stddev: 0.3 },
  revenuePerView: { id: 'rpv', statistic_type: 'ratio', main_metric_type: 'count', denominator_metric_type: 'count', inverse: false, prior_proper: false, prior_mean: 0, prior_stddev: 0.3 },
  perDay: { id: 'ppd', statistic_type: 'ratio_ra', main_metric_type: 'count', denominator_metric_type: 'count', covariate_metric_type: 'count', inverse: false, prior_proper: false, prior_mean: 0, prior_stddev: 0.3 },
};
const analysis: AnalysisSettings = {
  stats_engine: 'frequentist',
  difference_type: 'relative',
  alpha: 0.05,
  sequential_testing_enabled: false,
  sequential_tuning_parameter: 5000,
  one_sided_intervals: false,
  weights: [0.5, 0.5],
  var_ids: ['0', '1'],
  baseline_index: 0,
};

const close = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));

describe('experiment results over HTTP on DuckDB', () => {
  it('computes the aggregates and statistics of every metric, and serves them as GrowthBook does', async () => {
    const { experiment, metricIds } = await setUp();

    const started = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: {} });
    expect(started.status).toBe(200);
    expect(started.body.snapshot).toEqual({ id: expect.stringMatching(/^snp_/), experiment: experiment.id, status: 'running' });
    expect(await waitForSnapshot(api, org, started.body.snapshot.id)).toBe('success');
    const response = await api.request('GET', `/api/v1/experiments/${experiment.id}/results?phase=0`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.getExperimentResults, response.body);
    const validate = referenceResultsValidator();
    expect(validate(response.body.result) ? [] : validate.errors).toEqual([]);

    // Aggregates, against sums computed here from the raw rows.
    const expected = expectedRows();
    const stored = (await readSnapshotResults(org.orgId, started.body.snapshot.id))!;
    expect(stored.summary.multipleExposures).toBe(expected.multiple);
    expect(expected.multiple).toBeGreaterThan(100);
    const names = ['purchased', 'revenue', 'revenuePerView', 'perDay'] as const;
    names.forEach((name, i) => {
      const metric = stored.metrics.find((m) => m.metricId === metricIds[i])!;
      for (const [variation, rows] of [['0', expected.control], ['1', expected.treatment]] as const) {
        const row = metric.rows.find((r) => r.variation === variation)! as Record<string, number>;
        expect(row.users).toBe(rows.users);
        for (const [column, value] of Object.entries(rows[name])) close(row[column]!, value);
      }
    });

    // Statistics, against the statistics module on those sums; and GrowthBook's mapping to the API.
    const result = response.body.result;
    expect(result.results).toHaveLength(1);
    expect(result.results[0].totalUsers).toBe(expected.control.users + expected.treatment.users);
    names.forEach((name, i) => {
      const rows = [
        { variation: '0', dimension: 'All', users: expected.control.users, ...expected.control[name] },
        { variation: '1', dimension: 'All', users: expected.treatment.users, ...expected.treatment[name] },
      ];
      const computed = analyseMetric(rows, metricSettings[name]!, analysis).dimensions[0]!;
      const served = result.results[0].metrics.find((m: { metricId: string }) => m.metricId === metricIds[i]);
      computed.variations.forEach((variation, v) => {
        const want = toApiAnalysis(variation, 'frequentist');
        const got = served.variations[v].analyses[0];
        expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
        for (const [key, value] of Object.entries(want)) if (typeof value === 'number') close(got[key], value);
      });
      close(result.results[0].checks.srm, computed.srm);
    });
    // The snapshot carries its traffic where GrowthBook keeps it, with the same users and SRM.
    const snapshot = await api.request('GET', `/api/v1/snapshots/${started.body.snapshot.id}`, { key: org.keys.admin });
    const users = [expected.control.users, expected.treatment.users];
    expect(snapshot.body.snapshot.health).toEqual({ traffic: { overall: { name: 'All', srm: srmPValue(users, [0.5, 0.5]), variationUnits: users }, dimension: {} } });
    expect(result.results[0].checks.srm).toBe(srmPValue(users, [0.5, 0.5]));

    // The synthetic treatment converts more: the served effect says so.
    const purchased = result.results[0].metrics.find((m: { metricId: string }) => m.metricId === metricIds[0]);
    expect(purchased.variations[1].analyses[0].percentChange).toBeGreaterThan(0);
    expect(purchased.variations[1].analyses[0].pValue).toBeLessThan(0.05);
  });
});

describe('traffic-only snapshots', () => {
  const countryOf = new Map(data.exposures.map((e) => [e.user_id, e.country]));
  /** Units per variation (control, treatment) counted here from the raw exposures, of one country or all. */
  const unitsPer = (country?: string) =>
    ['0', '1'].map((variation) => units().filter((u) => u.variation === variation && (!country || countryOf.get(u.user) === country)).length);
  const withoutMetrics = { metrics: [], secondaryMetrics: [], guardrailMetrics: [] };

  it('runs for an experiment without metrics: users per variation and SRM in the snapshot and the results', async () => {
    const { experiment } = await setUp(withoutMetrics);

    const started = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: {} });
    expect(started.status).toBe(200);
    expect(await waitForSnapshot(api, org, started.body.snapshot.id)).toBe('success');
    const snapshot = await api.request('GET', `/api/v1/snapshots/${started.body.snapshot.id}`, { key: org.keys.admin });
    const results = await api.request('GET', `/api/v1/experiments/${experiment.id}/results?phase=0`, { key: org.keys.admin });

    const users = unitsPer();
    expect(users[0]! + users[1]!).toBeGreaterThan(UNITS / 2);
    const srm = srmPValue(users, [0.5, 0.5]);
    expect(srm).toBeLessThan(1);
    expect(snapshot.status).toBe(200);
    expectShape(contract.getExperimentSnapshot, snapshot.body);
    expect(snapshot.body.snapshot).toEqual({
      id: started.body.snapshot.id,
      experiment: experiment.id,
      status: 'success',
      health: { traffic: { overall: { name: 'All', srm, variationUnits: users }, dimension: {} } },
    });
    expect(results.status).toBe(200);
    expectShape(contract.getExperimentResults, results.body);
    const validate = referenceResultsValidator();
    expect(validate(results.body.result) ? [] : validate.errors).toEqual([]);
    expect(results.body.result.queryIds).toEqual([`qry_${started.body.snapshot.id.slice(4)}_q0_traffic`]);
    expect(results.body.result.results).toEqual([{ dimension: 'All', totalUsers: users[0]! + users[1]!, checks: { srm }, metrics: [] }]);
  });

  it('breaks traffic down by an assignment-query dimension', async () => {
    const { experiment } = await setUp(withoutMetrics);

    const started = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: { dimension: 'exp:country' } });
    expect(await waitForSnapshot(api, org, started.body.snapshot.id)).toBe('success');
    const snapshot = await api.request('GET', `/api/v1/snapshots/${started.body.snapshot.id}`, { key: org.keys.admin });
    const results = await api.request('GET', `/api/v1/experiments/${experiment.id}/results?phase=0&dimension=exp:country`, { key: org.keys.admin });

    const line = (name: string, country?: string) => ({ name, srm: srmPValue(unitsPer(country), [0.5, 0.5]), variationUnits: unitsPer(country) });
    expect(snapshot.body.snapshot.health.traffic).toEqual({
      overall: line('All'),
      dimension: { 'exp:country': ['DE', 'FR', 'US'].map((c) => line(c, c)) },
    });
    expect(results.body.result.results).toEqual(
      ['DE', 'FR', 'US'].map((c) => ({ dimension: c, totalUsers: unitsPer(c)[0]! + unitsPer(c)[1]!, checks: { srm: line(c, c).srm }, metrics: [] })),
    );
  });
});

describe('failed snapshots', () => {
  afterEach(() => delete process.env.SNAPSHOT_TIMEOUT_MS);

  const failing = async (factSql: string, experimentFields: Record<string, unknown> = {}) => {
    const { experiment } = await setUp(experimentFields, factSql);
    const started = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: {} });
    expect(started.body.snapshot.status).toBe('running');
    const status = await waitForSnapshot(api, org, started.body.snapshot.id);
    const results = await api.request('GET', `/api/v1/experiments/${experiment.id}/results?phase=0`, { key: org.keys.admin });
    const stored = await snapshots.get(org.orgId, started.body.snapshot.id);
    return { status, results, stored };
  };

  it.each([
    ['SQL that fails', "SELECT * FROM read_csv('events/*.csv') WHERE (", /Query q0_\S+ \(fact table Events\) failed: Parser Error/],
    ['a missing file', "SELECT * FROM read_csv('missing/*.csv')", /Query q0_\S+ \(fact table Events\) failed: .*missing\/\*\.csv/],
    ['an unknown column', "SELECT user_id, timestamp, event_type, amount AS amount_usd FROM read_csv('events/*.csv')", /failed: Binder Error.*amount/],
  ])('ends in error for %s, with the engine message, and serves no results', async (_case, factSql, message) => {
    const { status, results, stored } = await failing(factSql);

    expect(status).toBe('error');
    expect(stored.error).toMatch(message);
    expect(results.status).toBe(404);
    expect(results.body.message).toContain(stored.error);
    expect(await readSnapshotResults(org.orgId, stored.id)).toBeUndefined();
  });

  it('ends in error when a query runs past the timeout', async () => {
    process.env.SNAPSHOT_TIMEOUT_MS = '2000';
    const slow = "SELECT e.* FROM read_csv('events/*.csv') e CROSS JOIN range(1000000) r WHERE hash(r.range, e.user_id) = 0";

    const { status, results, stored } = await failing(slow);

    expect(status).toBe('error');
    expect(stored.error).toMatch(/did not finish within 2 s/);
    expect(results.status).toBe(404);
  });
});

describe('concurrent snapshots', () => {
  it('both finish, and the results are those of the one asked for last', async () => {
    const { experiment } = await setUp();

    const first = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: {} });
    const second = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: { dimension: '' } });

    expect(await waitForSnapshot(api, org, first.body.snapshot.id)).toBe('success');
    expect(await waitForSnapshot(api, org, second.body.snapshot.id)).toBe('success');
    const results = await api.request('GET', `/api/v1/experiments/${experiment.id}/results`, { key: org.keys.admin });
    expect(results.status).toBe(200);
    expect(results.body.result.id).toBe(second.body.snapshot.id);
  });

  it('breaks results down by an assignment-query dimension, kept apart from the overall results', async () => {
    const { experiment } = await setUp();

    const started = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: { dimension: 'exp:country' } });
    expect(await waitForSnapshot(api, org, started.body.snapshot.id)).toBe('success');

    const byCountry = await api.request('GET', `/api/v1/experiments/${experiment.id}/results?phase=0&dimension=exp:country`, { key: org.keys.admin });
    expect(byCountry.status).toBe(200);
    expect(byCountry.body.result.dimension).toEqual({ type: 'experiment', id: 'exp:country' });
    expect(byCountry.body.result.results.map((r: { dimension: string }) => r.dimension).sort()).toEqual(['DE', 'FR', 'US']);
    const overall = await api.request('GET', `/api/v1/experiments/${experiment.id}/results?phase=0`, { key: org.keys.admin });
    expect(overall.status).toBe(404);
  });
});
