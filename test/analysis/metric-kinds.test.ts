import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runDuckDbQueries } from '../../shared/analysis/engines/duckdb';
import type { AnalysisInputs, FrozenMetric } from '../../shared/analysis/inputs';
import { analysisSettings, metricRows, metricSettings } from '../../shared/analysis/results';
import { duckdbDialect } from '../../shared/analysis/sql/dialect';
import { buildFactTableQuery, buildSnapshotQueries } from '../../shared/analysis/sql/snapshot-queries';
import { analyseMetric, type FrequentistVariationResult } from '../../shared/analysis/statistics';

// Metric kinds beyond proportion/mean/ratio-in-one-table, run on DuckDB over generated rows. Each metric's result is
// checked against gbstats' formulas (TwoSidedTTest, relative difference: sample statistics, the delta method, Welch's
// degrees of freedom), computed here independently from the raw rows, not by the code under test.

const DAY = 86_400_000;
const H = 3_600_000;
const START = Date.parse('2024-05-01T00:00:00Z');
const END = Date.parse('2024-05-15T00:00:00Z');
const TOLERANCE = 1e-6;
const time = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');

/** A seeded generator (mulberry32), so the data and every expected figure are the same on every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Exposure { user: string; at: number; variation: 0 | 1 }
interface Order { user: string; at: number; amount: number }
interface Session { user: string; at: number }

function generate() {
  const rand = random(25);
  const exposures: Exposure[] = [];
  const orders: Order[] = [];
  const sessions: Session[] = [];
  for (let u = 0; u < 400; u++) {
    const user = `u${u}`;
    const variation = rand() < 0.5 ? 0 : 1;
    const at = START + Math.floor(rand() * 12 * DAY);
    exposures.push({ user, at, variation });
    if (rand() < 0.3) exposures.push({ user, at: at + Math.floor(rand() * 3 * DAY), variation }); // a later exposure
    const activity = variation === 1 ? 1.3 : 1;
    const sessionCount = Math.floor(rand() * 8 * activity);
    for (let s = 0; s < sessionCount; s++) sessions.push({ user, at: at + Math.floor((rand() * 16 - 4) * DAY) });
    const orderCount = Math.floor(rand() * 4);
    for (let o = 0; o < orderCount; o++) {
      orders.push({ user, at: at + Math.floor((rand() * 8 - 3) * DAY), amount: Math.round(rand() * 100 * activity * 100) / 100 });
    }
  }
  return { exposures, orders, sessions };
}

const data = generate();

/** Inputs beyond metrics: devices of users (an identity join), their page views, a segment and a plan per user. */
function generateMore() {
  const rand = random(7);
  const devices: { user: string; device: string }[] = [];
  const views: { device: string; at: number }[] = [];
  const segment: { user: string; date: number }[] = [];
  const plans: { user: string; plan: string }[] = [];
  for (let u = 0; u < 400; u++) {
    const user = `u${u}`;
    for (let d = 0; d < 1 + Math.floor(rand() * 2); d++) {
      const device = `d${u}_${d}`;
      devices.push({ user, device });
      for (let v = 0; v < Math.floor(rand() * 6); v++) views.push({ device, at: START + Math.floor((rand() * 18 - 2) * DAY) });
    }
    if (rand() < 0.6) segment.push({ user, date: START + Math.floor((rand() * 14 - 4) * DAY) });
    if (rand() < 0.8) plans.push({ user, plan: rand() < 0.5 ? 'free' : 'pro' });
  }
  devices.push({ user: 'nobody', device: 'd_orphan' }); // a device of no exposed user
  views.push({ device: 'd_orphan', at: START + DAY });
  return { devices, views, segment, plans };
}

const more = generateMore();

const base = (fields: Partial<FrozenMetric> & Pick<FrozenMetric, 'id' | 'type' | 'numerator'>): FrozenMetric => ({
  name: fields.id,
  inverse: false,
  capping: { type: 'none', value: 0, ignoreZeros: false },
  window: { type: 'none', delayHours: 0, windowHours: 0 },
  regressionAdjustment: { enabled: false, days: 0 },
  prior: { proper: false, mean: 0, stddev: 0.3 },
  ...fields,
});
const orders = (column: string) => ({ factTableId: 'ftb_orders', column, aggregation: 'sum' as const, where: [] });
const sessions = (column: string) => ({ factTableId: 'ftb_sessions', column, aggregation: 'sum' as const, where: [] });

const METRICS = {
  // A ratio across fact tables: revenue per session, each inside a 72-hour conversion window.
  revenuePerSession: base({
    id: 'rev_per_session',
    type: 'ratio',
    numerator: orders('amount'),
    denominator: sessions('$$count'),
    window: { type: 'conversion', delayHours: 0, windowHours: 72 },
  }),
  // The same with CUPED (7 days before exposure), to check the pre-period columns of both sides.
  revenuePerSessionCuped: base({
    id: 'rev_per_session_cuped',
    type: 'ratio',
    numerator: orders('amount'),
    denominator: sessions('$$count'),
    regressionAdjustment: { enabled: true, days: 7 },
  }),
  // Retention (frozen as GrowthBook computes it: a proportion whose delay is the retention window): a session
  // between 2 and 5 days after exposure.
  retained: base({ id: 'retained', type: 'proportion', numerator: sessions('$$distinctUsers'), window: { type: 'conversion', delayHours: 48, windowHours: 72 } }),
  // Daily participation over the whole experiment, and within 7 days of exposure.
  activeDays: base({ id: 'active_days', type: 'dailyParticipation', numerator: sessions('$$distinctDates') }),
  activeDaysWeek: base({ id: 'active_days_week', type: 'dailyParticipation', numerator: sessions('$$distinctDates'), window: { type: 'conversion', delayHours: 0, windowHours: 168 } }),
  // The 90th percentile of revenue per unit, units without revenue left out.
  revenueP90: base({ id: 'revenue_p90', type: 'quantile', numerator: orders('amount'), quantile: { type: 'unit', level: 0.9, ignoreZeros: true } }),
  // The 90th percentile of all orders' amounts.
  orderP90: base({ id: 'order_p90', type: 'quantile', numerator: orders('amount'), quantile: { type: 'event', level: 0.9, ignoreZeros: false } }),
} satisfies Record<string, FrozenMetric>;

function inputs(engine: 'duckdb' | 'athena', metrics: FrozenMetric[]): AnalysisInputs {
  return {
    engine,
    datasourceId: 'ds_1',
    experimentId: 'exp_1',
    trackingKey: 'exp-key',
    phase: 0,
    start: new Date(START).toISOString(),
    end: new Date(END).toISOString(),
    variations: [
      { variationId: 'var_a', key: '0', name: 'A', weight: 0.5 },
      { variationId: 'var_b', key: '1', name: 'B', weight: 0.5 },
    ],
    assignmentQuery: {
      id: 'users',
      name: 'Users',
      sql: "SELECT user_id, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')",
      identifierType: 'user_id',
      dimensionColumns: [],
    },
    dimension: null,
    attributionModel: 'firstExposure',
    inProgressConversions: 'include',
    queryFilter: '',
    statsEngine: 'frequentist',
    sequentialTestingEnabled: false,
    sequentialTestingTuningParameter: 5000,
    settings: {},
    factTables: [
      { id: 'ftb_orders', name: 'Orders', sql: "SELECT user_id, timestamp, amount FROM read_csv('orders.csv')", userIdTypes: ['user_id'] },
      { id: 'ftb_sessions', name: 'Sessions', sql: "SELECT user_id, timestamp FROM read_csv('sessions.csv')", userIdTypes: ['user_id'] },
    ],
    metrics,
  };
}

const visits = base({
  id: 'page_views',
  type: 'mean',
  numerator: { factTableId: 'ftb_views', column: '$$count', aggregation: 'sum', where: [] },
});
const revenue72h = base({ id: 'revenue', type: 'mean', numerator: orders('amount'), window: { type: 'conversion', delayHours: 0, windowHours: 72 } });
const viewsTable = { id: 'ftb_views', name: 'Page views', sql: "SELECT device_id, timestamp FROM read_csv('views.csv')", userIdTypes: ['device_id'] };
const identityJoins = [{ identifierTypes: ['user_id', 'device_id'], sql: "SELECT user_id, device_id FROM read_csv('devices.csv')" }];
const segment = { id: 'seg_1', name: 'Newsletter', identifierTypes: ['user_id'], sql: "SELECT user_id, date FROM read_csv('segment.csv')" };
const plan = { type: 'unit' as const, id: 'dim_plan', name: 'Plan', identifierType: 'user_id', sql: "SELECT user_id, value FROM read_csv('plans.csv')" };
// An order within 48 hours of an exposure activates a unit.
const activation = base({ id: 'ordered', type: 'proportion', numerator: orders('$$distinctUsers'), window: { type: 'conversion', delayHours: 0, windowHours: 48 } });

/** Inputs with the extra configuration the test gives; the views table is added for the identity-join metric. */
const withInputs = (engine: 'duckdb' | 'athena', metrics: FrozenMetric[], extra: Partial<AnalysisInputs>): AnalysisInputs => {
  const snapshot = inputs(engine, metrics);
  return { ...snapshot, factTables: [...snapshot.factTables, viewsTable], ...extra };
};

// ---- The expected figures, from the raw rows ----

interface Unit { user: string; variation: 0 | 1; first: number }

function units(): Unit[] {
  const byUser = new Map<string, Unit>();
  for (const e of data.exposures.filter((x) => x.at >= START && x.at <= END)) {
    const seen = byUser.get(e.user);
    if (!seen || e.at < seen.first) byUser.set(e.user, { user: e.user, variation: e.variation, first: e.at });
  }
  return [...byUser.values()];
}

/** The rows of `rows` of one user inside [from, to]. */
const inside = <T extends { user: string; at: number }>(rows: T[], user: string, from: number, to: number) =>
  rows.filter((r) => r.user === user && r.at >= from && r.at <= to);
const distinctDays = (rows: { at: number }[]) => new Set(rows.map((r) => new Date(r.at).toISOString().slice(0, 10))).size;

/** gbstats' per-unit mean and variance of one variation: sample variance for counts, p(1-p) for proportions. */
function sampleStatistic(values: number[], binomial: boolean) {
  const n = values.length;
  const sum = values.reduce((a, b) => a + b, 0);
  const squares = values.reduce((a, b) => a + b * b, 0);
  const mean = sum / n;
  return { n, mean, variance: binomial ? mean * (1 - mean) : (squares - (sum * sum) / n) / (n - 1) };
}

/** gbstats' ratio statistic: the ratio of means and its delta-method variance per unit. */
function ratioStatistic(pairs: [number, number][]) {
  const n = pairs.length;
  const m = sampleStatistic(pairs.map((p) => p[0]), false);
  const d = sampleStatistic(pairs.map((p) => p[1]), false);
  const product = pairs.reduce((a, [x, y]) => a + x * y, 0);
  const covariance = (product - (m.mean * n * d.mean * n) / n) / (n - 1);
  const mean = m.mean / d.mean;
  const variance = m.variance / d.mean ** 2 - (2 * covariance * m.mean) / d.mean ** 3 + (m.mean ** 2 * d.variance) / d.mean ** 4;
  return { n, mean, variance };
}

/** gbstats' two-sided frequentist test of the relative difference (alpha 0.05, no sequential testing). */
function relativeTest(a: { n: number; mean: number; variance: number }, b: { n: number; mean: number; variance: number }) {
  const expected = b.mean / a.mean - 1;
  const variance = b.variance / (a.mean ** 2 * b.n) + (a.variance * b.mean ** 2) / (a.mean ** 4 * a.n);
  const stddev = Math.sqrt(variance);
  const df = (a.variance / a.n + b.variance / b.n) ** 2 / ((a.variance / a.n) ** 2 / (a.n - 1) + (b.variance / b.n) ** 2 / (b.n - 1));
  const half = tQuantile(0.975, df) * stddev;
  return { baselineCr: a.mean, cr: b.mean, expected, ci: [expected - half, expected + half], stddev, pValue: 2 * (1 - tCdf(Math.abs(expected / stddev), df)) };
}

/** numpy's default (linear) quantile of `values`. */
function linearQuantile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const h = (sorted.length - 1) * p;
  const low = Math.floor(h);
  return sorted[low]! + (h - low) * (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!);
}

/**
 * gbstats' QuantileStatistic of one variation's values, with GrowthBook's interval: the bounds at quantile levels
 * p ± z·sqrt(p(1-p)/n_star) for the largest n_star of its grid below n, and variance (n_star/n)(n-1)((upper-lower)/2z)²,
 * floored at 1e-5 from 100 values on.
 */
function quantileStatistic(values: number[], p: number) {
  const z = normalQuantile(0.975, 0, 1);
  const n = values.length;
  const grid = [100, 200, 400, 800, 1600, 3200].map((nStar) => {
    const half = z * Math.sqrt((p * (1 - p)) / nStar);
    return { nStar, lower: linearQuantile(values, Math.max(p - half, 1e-8)), upper: linearQuantile(values, Math.min(p + half, 0.99999999)) };
  });
  const usable = grid.filter((g) => g.nStar < n || g.nStar === 100);
  let chosen = usable.at(-1)!;
  if (chosen.lower === chosen.upper) chosen = [...usable].reverse().find((g) => g.lower !== g.upper) ?? chosen;
  const raw = (chosen.nStar / n) * (n - 1) * ((chosen.upper - chosen.lower) / (2 * z)) ** 2;
  const tooFew = n <= (z * z * p) / (1 - p) || n <= (z * z * (1 - p)) / p;
  return { n, mean: linearQuantile(values, p), variance: n < 100 ? raw : Math.max(raw, 1e-5), rawVariance: raw, zeroVariance: tooFew || raw <= 0 };
}

const byVariation = <T>(list: Unit[], value: (u: Unit) => T): [T[], T[]] => [
  list.filter((u) => u.variation === 0).map(value),
  list.filter((u) => u.variation === 1).map(value),
];

function close(expected: number, actual: number) {
  const diff = Math.abs(expected - actual);
  return diff <= TOLERANCE || diff <= TOLERANCE * Math.abs(expected);
}

/** Runs the snapshot's queries and analyses one metric as a snapshot does (the dimension value `dimension`). */
async function analyse(dataDir: string, metric: FrozenMetric, extra?: Partial<AnalysisInputs>, dimension = 'All') {
  const snapshot = extra ? withInputs('duckdb', [metric], extra) : inputs('duckdb', [metric]);
  const queries = buildSnapshotQueries(snapshot);
  const { rowsByQuery } = await runDuckDbQueries(queries, { dataDir });
  const rows = rowsByQuery[queries[0]!.id]!;
  const result = analyseMetric(metricRows(rows, 0), metricSettings(metric), analysisSettings(snapshot));
  const found = result.dimensions.find((d) => d.dimension === dimension);
  if (!found) throw new Error(`No dimension value ${dimension} in ${result.dimensions.map((d) => d.dimension).join(', ')}`);
  const [baseline, treatment] = found.variations as unknown as [FrequentistVariationResult, FrequentistVariationResult];
  return { rows, baseline, treatment };
}

function expectGbstats(actual: Awaited<ReturnType<typeof analyse>>, expected: ReturnType<typeof relativeTest>) {
  const pairs: [string, number, number][] = [
    ['baseline cr', expected.baselineCr, actual.baseline.cr],
    ['cr', expected.cr, actual.treatment.cr],
    ['expected', expected.expected, actual.treatment.expected],
    ['ci low', expected.ci[0]!, actual.treatment.ci[0]],
    ['ci high', expected.ci[1]!, actual.treatment.ci[1]],
    ['uplift stddev', expected.stddev, actual.treatment.uplift.stddev],
    ['p-value', expected.pValue, actual.treatment.pValue],
  ];
  expect(pairs.filter(([, e, a]) => !close(e, a)).map(([name, e, a]) => `${name}: expected ${e}, got ${a}`)).toEqual([]);
}

describe('metric kinds on DuckDB, against gbstats', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'metric-kinds-'));
  beforeAll(() => {
    const csv = (header: string, lines: (string | number)[][]) => `${header}\n${lines.map((l) => l.join(',')).join('\n')}\n`;
    writeFileSync(path.join(dataDir, 'exposures.csv'), csv('user_id,timestamp,experiment_id,variation_id', data.exposures.map((e) => [e.user, time(e.at), 'exp-key', e.variation])));
    writeFileSync(path.join(dataDir, 'orders.csv'), csv('user_id,timestamp,amount', data.orders.map((o) => [o.user, time(o.at), o.amount])));
    writeFileSync(path.join(dataDir, 'sessions.csv'), csv('user_id,timestamp', data.sessions.map((s) => [s.user, time(s.at)])));
    writeFileSync(path.join(dataDir, 'devices.csv'), csv('user_id,device_id', more.devices.map((d) => [d.user, d.device])));
    writeFileSync(path.join(dataDir, 'views.csv'), csv('device_id,timestamp', more.views.map((v) => [v.device, time(v.at)])));
    writeFileSync(path.join(dataDir, 'segment.csv'), csv('user_id,date', more.segment.map((r) => [r.user, time(r.date)])));
    writeFileSync(path.join(dataDir, 'plans.csv'), csv('user_id,value', more.plans.map((r) => [r.user, r.plan])));
  });

  it('computes a metric of a fact table keyed by another identifier type, through the identity join query', async () => {
    const devicesOf = (user: string) => more.devices.filter((d) => d.user === user).map((d) => d.device);
    const [a, b] = byVariation(units(), (u) => more.views.filter((v) => devicesOf(u.user).includes(v.device) && v.at >= u.first && v.at <= END).length);

    const actual = await analyse(dataDir, visits, { identityJoins });

    expectGbstats(actual, relativeTest(sampleStatistic(a, false), sampleStatistic(b, false)));
  });

  it('refuses a fact table keyed by another identifier type when no identity join query maps it', () => {
    expect(() => buildSnapshotQueries(withInputs('duckdb', [visits], {}))).toThrow(
      'Fact table ftb_views has identifier types device_id; the assignment query users uses user_id, and no identifier join query of the data source maps user_id to any of them',
    );
  });

  it('counts only units in the segment at an exposure, from their first such exposure', async () => {
    const inRange = data.exposures.filter((e) => e.at >= START && e.at <= END);
    const segmented = units().flatMap((u) => {
      const dates = more.segment.filter((r) => r.user === u.user).map((r) => r.date);
      const qualifying = inRange.filter((e) => e.user === u.user && dates.some((d) => d <= e.at)).map((e) => e.at);
      return qualifying.length ? [{ ...u, first: Math.min(...qualifying) }] : [];
    });
    const [a, b] = byVariation(segmented, (u) => inside(data.orders, u.user, u.first, u.first + 72 * H).reduce((sum, o) => sum + o.amount, 0));

    const actual = await analyse(dataDir, revenue72h, { segment });

    expect(actual.baseline.users + actual.treatment.users).toBe(segmented.length);
    expect(segmented.length).toBeLessThan(units().length);
    expectGbstats(actual, relativeTest(sampleStatistic(a, false), sampleStatistic(b, false)));
  });

  it('counts only activated units, with metric windows from their first activation', async () => {
    const inRange = data.exposures.filter((e) => e.at >= START && e.at <= END);
    const activated = units().flatMap((u) => {
      const times = inRange
        .filter((e) => e.user === u.user)
        .flatMap((e) => data.orders.filter((o) => o.user === u.user && o.at >= e.at && o.at <= e.at + 48 * H).map((o) => o.at));
      return times.length ? [{ ...u, first: Math.min(...times) }] : [];
    });
    const [a, b] = byVariation(activated, (u) => inside(data.orders, u.user, u.first, u.first + 72 * H).reduce((sum, o) => sum + o.amount, 0));

    // A query filter naming `timestamp` bare stays unambiguous beside the activation rows' own timestamp.
    const actual = await analyse(dataDir, revenue72h, { activationMetric: activation, queryFilter: `"timestamp" >= TIMESTAMP '2024-05-01 00:00:00'` });

    expect(actual.baseline.users + actual.treatment.users).toBe(activated.length);
    expect(activated.length).toBeLessThan(units().length);
    expectGbstats(actual, relativeTest(sampleStatistic(a, false), sampleStatistic(b, false)));
  });

  it('breaks results down by a unit dimension, with units it does not list under __NULL_DIMENSION', async () => {
    const planOf = (user: string) => more.plans.find((p) => p.user === user)?.plan ?? '__NULL_DIMENSION';
    const revenue = (u: Unit) => inside(data.orders, u.user, u.first, u.first + 72 * H).reduce((sum, o) => sum + o.amount, 0);

    for (const value of ['free', 'pro', '__NULL_DIMENSION']) {
      const [a, b] = byVariation(units().filter((u) => planOf(u.user) === value), revenue);

      const actual = await analyse(dataDir, revenue72h, { dimension: plan }, value);

      expect([actual.baseline.users, actual.treatment.users]).toEqual([a.length, b.length]);
      expectGbstats(actual, relativeTest(sampleStatistic(a, false), sampleStatistic(b, false)));
    }
  });

  it('computes a ratio whose numerator and denominator are in different fact tables', async () => {
    const window = (u: Unit): [number, number] => [u.first, u.first + 72 * H];
    const [a, b] = byVariation(units(), (u): [number, number] => [
      inside(data.orders, u.user, ...window(u)).reduce((sum, o) => sum + o.amount, 0),
      inside(data.sessions, u.user, ...window(u)).length,
    ]);

    const actual = await analyse(dataDir, METRICS.revenuePerSession);

    expectGbstats(actual, relativeTest(ratioStatistic(a), ratioStatistic(b)));
    expect(actual.treatment.denominator).toBe(b.reduce((sum, p) => sum + p[1], 0));
  });

  it('computes the pre-exposure columns of a cross-table ratio with CUPED from each table', async () => {
    const { rows } = await analyse(dataDir, METRICS.revenuePerSessionCuped);

    for (const variation of [0, 1] as const) {
      const list = units().filter((u) => u.variation === variation);
      const pre = (u: Unit) => [u.first - 7 * DAY, u.first - 1] as const;
      const sum = (f: (u: Unit) => number) => list.reduce((s, u) => s + f(u), 0);
      const preOrders = (u: Unit) => data.orders.filter((o) => o.user === u.user && o.at >= pre(u)[0] && o.at < u.first).reduce((s, o) => s + o.amount, 0);
      const preSessions = (u: Unit) => data.sessions.filter((s) => s.user === u.user && s.at >= pre(u)[0] && s.at < u.first).length;
      const postSessions = (u: Unit) => inside(data.sessions, u.user, u.first, END).length;
      const row = rows.find((r) => r.variation === String(variation))!;
      expect(Number(row.users)).toBe(list.length);
      expect(close(sum(preOrders), Number(row.m0_covariate_sum))).toBe(true);
      expect(Number(row.m0_denominator_pre_sum)).toBe(sum(preSessions));
      expect(Number(row.m0_denominator_sum)).toBe(sum(postSessions));
      expect(Number(row.m0_denominator_post_denominator_pre_sum_product)).toBe(sum((u) => postSessions(u) * preSessions(u)));
    }
  });

  it.each([
    ['the 80th percentile', 0.8, false],
    ['the median, leaving out units without revenue', 0.5, true],
    ['the 90th percentile, leaving out units without revenue', 0.9, true],
  ])('computes a unit quantile metric: %s of revenue per unit', async (_case, level, ignoreZeros) => {
    const metric = base({ id: 'revenue_quantile', type: 'quantile', numerator: orders('amount'), quantile: { type: 'unit', level, ignoreZeros }, window: { type: 'conversion', delayHours: 0, windowHours: 72 } });
    const [a, b] = byVariation(units(), (u) => inside(data.orders, u.user, u.first, u.first + 72 * H).reduce((sum, o) => sum + o.amount, 0));
    const kept = (values: number[]) => (ignoreZeros ? values.filter((v) => v !== 0) : values);
    const [qa, qb] = [quantileStatistic(kept(a), level), quantileStatistic(kept(b), level)];
    expect([qa.zeroVariance, qb.zeroVariance, qa.mean > 0]).toEqual([false, false, true]);

    const actual = await analyse(dataDir, metric);

    expectGbstats(actual, relativeTest(qa, qb));
    expect([actual.baseline.stats.count, actual.treatment.stats.count]).toEqual([qa.n, qb.n]);
    if (ignoreZeros) expect(qa.n).toBeLessThan(a.length);
  });

  it.each([0.5, 0.9])('computes an event quantile metric: the %s quantile of order amounts, clustered by unit', async (level) => {
    const metric = base({ id: 'order_quantile', type: 'quantile', numerator: orders('amount'), quantile: { type: 'event', level, ignoreZeros: false }, window: { type: 'conversion', delayHours: 0, windowHours: 72 } });
    const statistic = (list: Unit[]) => {
      const eventsOf = (u: Unit) => inside(data.orders, u.user, u.first, u.first + 72 * H).map((o) => o.amount);
      const q = quantileStatistic(list.flatMap(eventsOf), level);
      // gbstats' QuantileClusteredStatistic: the iid variance scaled by the clustered over the iid variance of the
      // share of events at or below the quantile (delta method over units: below / events).
      const pairs = list.map((u): [number, number] => [eventsOf(u).filter((v) => v <= q.mean).length, eventsOf(u).length]);
      const k = pairs.length;
      const muS = pairs.reduce((t, p) => t + p[0], 0) / k;
      const muN = pairs.reduce((t, p) => t + p[1], 0) / k;
      const varS = (pairs.reduce((t, p) => t + p[0] ** 2, 0) / k - muS ** 2) * (k / (k - 1));
      const varN = (pairs.reduce((t, p) => t + p[1] ** 2, 0) / k - muN ** 2) * (k / (k - 1));
      const cov = (pairs.reduce((t, p) => t + p[0] * p[1], 0) / k - muS * muN) * (k / (k - 1));
      const clustered = (varS - (2 * muS * cov) / muN + (muS ** 2 * varN) / muN ** 2) / (k * muN ** 2);
      const raw = (q.rawVariance * clustered) / ((level * (1 - level)) / q.n);
      return { ...q, variance: q.n < 100 ? raw : Math.max(raw, 1e-5), zeroVariance: q.zeroVariance || raw <= 0 };
    };
    const list = units();
    const [qa, qb] = [statistic(list.filter((u) => u.variation === 0)), statistic(list.filter((u) => u.variation === 1))];
    expect([qa.zeroVariance, qb.zeroVariance, qa.n > 50]).toEqual([false, false, true]);

    const actual = await analyse(dataDir, metric);

    expectGbstats(actual, relativeTest(qa, qb));
    expect([actual.baseline.stats.count, actual.treatment.stats.count]).toEqual([qa.n, qb.n]);
  });

  it('computes a retention metric: a session between 2 and 5 days after exposure', async () => {
    const [a, b] = byVariation(units(), (u) => (inside(data.sessions, u.user, u.first + 48 * H, u.first + 120 * H).length ? 1 : 0));

    const actual = await analyse(dataDir, METRICS.retained);

    expectGbstats(actual, relativeTest(sampleStatistic(a, true), sampleStatistic(b, true)));
  });

  it('computes daily participation: active days over the days since exposure', async () => {
    const [a, b] = byVariation(units(), (u) => {
      const days = Math.max(Math.floor((END - u.first) / DAY) + 1, 1);
      return distinctDays(inside(data.sessions, u.user, u.first, END)) / days;
    });

    const actual = await analyse(dataDir, METRICS.activeDays);

    expectGbstats(actual, relativeTest(sampleStatistic(a, false), sampleStatistic(b, false)));
  });

  it('computes daily participation inside a conversion window: active days over the window', async () => {
    const [a, b] = byVariation(units(), (u) => distinctDays(inside(data.sessions, u.user, u.first, u.first + 168 * H)) / 8);

    const actual = await analyse(dataDir, METRICS.activeDaysWeek);

    expectGbstats(actual, relativeTest(sampleStatistic(a, false), sampleStatistic(b, false)));
  });

  it('pre-aggregates distinct counts with a segment, an activation metric, a unit dimension and an identity join, as COUNT(DISTINCT) gives them', async () => {
    const sessionDays = base({ id: 'session_days', type: 'mean', numerator: sessions('$$distinctDates'), regressionAdjustment: { enabled: true, days: 7 } });
    const viewDays = base({ id: 'view_days', type: 'mean', numerator: { factTableId: 'ftb_views', column: '$$distinctDates', aggregation: 'sum', where: [] }, regressionAdjustment: { enabled: true, days: 7 } });
    const snapshot = withInputs('duckdb', [METRICS.activeDays, METRICS.activeDaysWeek, sessionDays, viewDays], { segment, activationMetric: activation, dimension: plan, identityJoins });
    const preAggregated = buildSnapshotQueries(snapshot);
    // The same queries with the distinct counts left in the per-unit grouping, as on an engine that does not materialise CTEs.
    const plain = preAggregated.map((q) => ({
      ...q,
      sql: buildFactTableQuery(snapshot, snapshot.factTables.find((t) => t.id === q.factTableId)!, snapshot.metrics.filter((m) => q.metricIds.includes(m.id)), {
        ...duckdbDialect,
        materializesCtes: false,
      }),
    }));

    const [fast, slow] = await Promise.all([runDuckDbQueries(preAggregated, { dataDir }), runDuckDbQueries(plain, { dataDir })]);

    expect(preAggregated.map((q) => q.metricIds)).toEqual([['active_days', 'active_days_week', 'session_days'], ['view_days']]);
    for (const q of preAggregated) {
      expect(q.sql).toContain('_distinct AS (');
      expect(q.sql).not.toMatch(/COUNT\(\s*DISTINCT/i);
    }
    for (const q of plain) expect(q.sql).toContain('COUNT(DISTINCT CASE WHEN');
    const differences = preAggregated.flatMap((q) => {
      const [a, b] = [fast.rowsByQuery[q.id]!, slow.rowsByQuery[q.id]!];
      expect(a.map((r) => [r.variation, r.dimension, r.users])).toEqual(b.map((r) => [r.variation, r.dimension, r.users]));
      return a.flatMap((row, i) =>
        Object.entries(row)
          .filter(([, v]) => typeof v === 'number')
          .filter(([k, v]) => !close(Number(b[i]![k]), v as number))
          .map(([k, v]) => `${q.id} ${String(row.variation)}/${String(row.dimension)} ${k}: ${String(v)} vs ${String(b[i]![k])}`),
      );
    });
    expect(differences).toEqual([]);
    // Sanity of the data: several dimension values, and active days on both sides of the exposure.
    const rows = fast.rowsByQuery[preAggregated[0]!.id]!;
    expect(new Set(rows.map((r) => r.dimension)).size).toBeGreaterThan(1);
    expect(rows.reduce((sum, r) => sum + Number(r.m2_main_sum), 0)).toBeGreaterThan(0);
    expect(rows.reduce((sum, r) => sum + Number(r.m2_covariate_sum), 0)).toBeGreaterThan(0);
    expect(fast.rowsByQuery[preAggregated[1]!.id]!.reduce((sum, r) => sum + Number(r.m0_main_sum), 0)).toBeGreaterThan(0);
  });
});

describe('metric kinds in Athena SQL', () => {
  it('is exactly the pinned SQL with a segment, an activation metric, a unit dimension and an identity join', () => {
    const queries = buildSnapshotQueries(withInputs('athena', [revenue72h, visits], { segment, activationMetric: activation, dimension: plan, identityJoins }));
    const sql = queries.map((q) => `-- query ${q.id}\n${q.sql}\n`).join('\n');
    const golden = path.join(__dirname, 'golden', 'athena-unit-inputs.sql');
    if (process.env.UPDATE_GOLDEN || !existsSync(golden)) writeFileSync(golden, sql);

    expect(sql).toBe(readFileSync(golden, 'utf8'));
    expect(sql).toContain('JOIN __segment s ON s.unit_id = e."user_id"');
    expect(sql).toContain('WHERE first_activation IS NOT NULL');
    expect(sql).toContain(') f_ids ON f_ids."device_id" = f."device_id"');
  });

  it('is exactly the pinned SQL', () => {
    const queries = buildSnapshotQueries(inputs('athena', Object.values(METRICS)));
    const sql = queries.map((q) => `-- query ${q.id}\n${q.sql}\n`).join('\n');
    const golden = path.join(__dirname, 'golden', 'athena-metric-kinds.sql');
    if (process.env.UPDATE_GOLDEN || !existsSync(golden)) writeFileSync(golden, sql);

    expect(sql).toBe(readFileSync(golden, 'utf8'));
    expect(queries.map((q) => q.id)).toEqual(['q0_ftb_orders', 'q1_ftb_sessions']);
    expect(sql).toContain('LEFT JOIN __units_d1 d1 ON d1.unit_id = u.unit_id');
    expect(sql).toContain("date_diff('day', ");
    // revenue_p90's per-unit revenue is rev_per_session_cuped's (m1_n), computed once and read by both.
    expect(sql).toContain('approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9) AS m2_quantile');
  });
});
