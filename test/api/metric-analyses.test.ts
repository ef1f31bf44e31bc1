import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/metric-analyses';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { metricAnalyses } from '../../shared/store/metric-analyses';
import { DAY, HOUR, seededRandom, writeCsv } from '../support/analysis-data';
import { createDuckDbDataSource } from '../support/analysis-api';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceResponseValidator } from '../support/reference';

let api: Api;
let org: TestOrg;
let other: TestOrg;
const dataDir = mkdtempSync(path.join(tmpdir(), 'metric-analysis-'));

// Events over the last 40 days (today included), in a seeded data set: the default 30-day window leaves the oldest out.
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const random = seededRandom(20261126);
interface Event {
  user_id: string;
  anonymous_id: string;
  timestamp: number;
  event_type: 'purchase' | 'pageview';
  amount: number;
}
const events: Event[] = [];
for (let day = 40; day >= 0; day--) {
  for (let i = 0; i < 25; i++) {
    const user = `u${Math.floor(random() * 60)}`;
    const purchase = random() < 0.3;
    events.push({
      user_id: user,
      anonymous_id: `a-${user}`,
      timestamp: today - day * DAY + Math.floor(random() * 23 * HOUR),
      event_type: purchase ? 'purchase' : 'pageview',
      amount: purchase ? Math.round(random() * 10_000) / 100 : 0,
    });
  }
}

beforeAll(async () => {
  writeCsv(path.join(dataDir, 'events.csv'), events);
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Metric analyses'), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const post = async (testOrg: TestOrg, route: string, body: unknown) => {
  const response = await api.request('POST', `/api/v1${route}`, { key: testOrg.keys.admin, body });
  if (response.status !== 200) throw new Error(`${route}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

/** A DuckDB data source over the events file, its fact table with a purchases filter, and a metric. */
async function setUp(metric: Record<string, unknown>, testOrg = org) {
  const dataSource = await createDuckDbDataSource(api, testOrg);
  const { factTable } = await post(testOrg, '/fact-tables', {
    name: 'Events',
    datasource: dataSource.id,
    userIdTypes: ['user_id', 'anonymous_id'],
    sql: "SELECT * FROM read_csv('events.csv')",
  });
  const purchases = (await post(testOrg, `/fact-tables/${factTable.id}/filters`, { name: 'Purchases', value: "event_type = 'purchase'" }))
    .factTableFilter;
  const sides = (side: Record<string, unknown>) => ({ factTableId: factTable.id, ...side });
  const { factMetric } = await post(testOrg, '/fact-metrics', {
    ...metric,
    numerator: sides(metric.numerator as Record<string, unknown>),
    ...(metric.denominator ? { denominator: sides(metric.denominator as Record<string, unknown>) } : {}),
  });
  return { metricId: factMetric.id as string, purchasesFilter: purchases.id as string, factTableId: factTable.id as string };
}

const analyse = (metricId: string, body: unknown = {}, key = org.keys.admin) =>
  api.request('POST', `/api/v1/fact-metrics/${metricId}/analysis`, { key, body });

/** The stored analysis once its run has ended. */
async function finished(orgId: string, id: string) {
  for (let i = 0; i < 600; i++) {
    const analysis = await metricAnalyses.get(orgId, id);
    if (analysis.status !== 'running') return analysis;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`analysis ${id} still running`);
}

// ---- The same numbers computed here from the events, without SQL ----

const windowStart = (lookbackDays: number) => today - lookbackDays * DAY;
const dayOf = (ms: number) => new Date(Math.floor(ms / DAY) * DAY).toISOString();
function moments(values: number[]) {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const variance = n > 1 ? values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : 0;
  return { units: n, mean, stddev: Math.sqrt(variance), numerator: values.reduce((a, b) => a + b, 0) };
}
/** Per unit (optionally per unit and day), the metric's value from the events in the window. */
function perUnit(lookbackDays: number, value: (rows: Event[]) => number, byDay: boolean) {
  const groups = new Map<string, Event[]>();
  for (const e of events) {
    if (e.timestamp < windowStart(lookbackDays)) continue;
    const key = byDay ? `${dayOf(e.timestamp)}|${e.user_id}` : e.user_id;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return [...groups].map(([key, rows]) => ({ day: key.split('|')[0]!, value: value(rows) }));
}
const revenue = (rows: Event[]) => rows.filter((r) => r.event_type === 'purchase').reduce((a, r) => a + r.amount, 0);

describe('POST /fact-metrics/{id}/analysis', () => {
  it('starts an analysis that computes the mean per unit over the last 30 days, overall and per day, as computed from the events', async () => {
    const { metricId } = await setUp({
      name: 'Revenue',
      metricType: 'mean',
      numerator: { column: 'amount', aggregation: 'sum', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] },
    });

    const response = await analyse(metricId);

    expect(response.status).toBe(200);
    expectShape(contract.postFactMetricAnalysis, response.body);
    expect(referenceResponseValidator('POST', '/v1/fact-metrics/{id}/analysis')(response.body)).toBe(true);
    const { id, status, settings } = response.body.metricAnalysis;
    expect(status).toBe('running');
    expect(settings).toEqual({
      userIdType: 'user_id',
      startDate: new Date(windowStart(30)).toISOString(),
      endDate: new Date(today + DAY - 1).toISOString(),
      lookbackDays: 30,
      populationType: 'factTable',
      populationId: null,
    });
    const analysis = await finished(org.orgId, id);
    expect(analysis.error).toBeUndefined();
    expect(analysis.status).toBe('success');
    const overall = moments(perUnit(30, revenue, false).map((u) => u.value));
    expect(analysis.result!.units).toBe(overall.units);
    expect(analysis.result!.numerator).toBeCloseTo(overall.numerator, 6);
    expect(analysis.result!.mean).toBeCloseTo(overall.mean, 6);
    expect(analysis.result!.stddev).toBeCloseTo(overall.stddev, 6);
    const days = perUnit(30, revenue, true);
    const expectedDates = [...new Set(days.map((d) => d.day))]
      .sort()
      .map((day) => ({ date: day, ...moments(days.filter((d) => d.day === day).map((d) => d.value)) }));
    expect(analysis.result!.dates).toHaveLength(31);
    analysis.result!.dates.forEach((date, i) => {
      expect(date.date).toBe(expectedDates[i]!.date);
      expect(date.units).toBe(expectedDates[i]!.units);
      expect(date.mean).toBeCloseTo(expectedDates[i]!.mean, 6);
      expect(date.stddev).toBeCloseTo(expectedDates[i]!.stddev, 6);
    });
  });

  it('computes a proportion over another identifier type and window, and a ratio with the ad hoc filters on top of the metric’s', async () => {
    const purchasedSetup = await setUp({
      name: 'Purchased',
      metricType: 'proportion',
      numerator: { column: '$$distinctUsers', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] },
    });
    const ratioSetup = await setUp({
      name: 'Revenue per event',
      metricType: 'ratio',
      numerator: { column: 'amount' },
      denominator: { column: '$$count' },
    });

    const purchased = await analyse(purchasedSetup.metricId, { userIdType: 'anonymous_id', lookbackDays: 7 });
    const ratio = await analyse(ratioSetup.metricId, { additionalNumeratorFilters: [ratioSetup.purchasesFilter], lookbackDays: 40 });

    expect([purchased.status, ratio.status]).toEqual([200, 200]);
    const proportion = await finished(org.orgId, purchased.body.metricAnalysis.id);
    const converted = perUnit(7, (rows) => (rows.some((r) => r.event_type === 'purchase') ? 1 : 0), false).map((u) => u.value);
    expect(proportion.settings.userIdType).toBe('anonymous_id');
    expect(proportion.result!.units).toBe(converted.length);
    expect(proportion.result!.mean).toBeCloseTo(converted.reduce((a, b) => a + b, 0) / converted.length, 9);
    const p = proportion.result!.mean;
    expect(proportion.result!.stddev).toBeCloseTo(Math.sqrt(p * (1 - p)), 9);

    const ratioAnalysis = await finished(org.orgId, ratio.body.metricAnalysis.id);
    const inWindow = events.filter((e) => e.timestamp >= windowStart(40));
    expect(ratioAnalysis.result!.numerator).toBeCloseTo(revenue(inWindow), 6);
    expect(ratioAnalysis.result!.denominator).toBe(inWindow.length);
    expect(ratioAnalysis.result!.mean).toBeCloseTo(revenue(inWindow) / inWindow.length, 9);
    expect(ratioAnalysis.settings.additionalNumeratorFilters).toEqual([ratioSetup.purchasesFilter]);
  });

  it('answers an analysis of the same settings from the cache unless useCache is false', async () => {
    const { metricId } = await setUp({ name: 'Events', metricType: 'mean', numerator: { column: '$$count' } });
    const first = await analyse(metricId, { lookbackDays: 3 });
    await finished(org.orgId, first.body.metricAnalysis.id);

    const cached = await analyse(metricId, { lookbackDays: 3 });
    const fresh = await analyse(metricId, { lookbackDays: 3, useCache: false });
    const otherWindow = await analyse(metricId, { lookbackDays: 4 });

    expect(cached.body.metricAnalysis).toEqual({ ...first.body.metricAnalysis, status: 'success' });
    expect(fresh.body.metricAnalysis.id).not.toBe(first.body.metricAnalysis.id);
    expect(otherWindow.body.metricAnalysis.id).not.toBe(first.body.metricAnalysis.id);
    await Promise.all([finished(org.orgId, fresh.body.metricAnalysis.id), finished(org.orgId, otherWindow.body.metricAnalysis.id)]);
  });

  it('never answers from the cache an analysis still running past its deadline (a lost run): it starts a new one', async () => {
    const { metricId } = await setUp({ name: 'Events', metricType: 'mean', numerator: { column: '$$count' } });
    const first = await analyse(metricId, { lookbackDays: 3 });
    await finished(org.orgId, first.body.metricAnalysis.id);
    // As a run that died an hour ago would have left it (the deadline is the 10-minute timeout plus 5).
    const anHourAgo = new Date(Date.now() - 3600_000).toISOString();
    await db.update({
      TableName: tableName(),
      Key: keys.entity(org.orgId, 'METRIC_ANALYSIS', first.body.metricAnalysis.id),
      UpdateExpression: 'SET #status = :running, dateCreated = :then REMOVE #result',
      ExpressionAttributeNames: { '#status': 'status', '#result': 'result' },
      ExpressionAttributeValues: { ':running': 'running', ':then': anHourAgo },
    });

    const again = await analyse(metricId, { lookbackDays: 3 });

    expect(again.status).toBe(200);
    expect(again.body.metricAnalysis.id).not.toBe(first.body.metricAnalysis.id);
    expect((await finished(org.orgId, again.body.metricAnalysis.id)).status).toBe('success');
    // A running one inside its deadline is still answered from the cache.
    const running = await analyse(metricId, { lookbackDays: 5 });
    const cached = await analyse(metricId, { lookbackDays: 5 });
    expect(cached.body.metricAnalysis.id).toBe(running.body.metricAnalysis.id);
    await finished(org.orgId, running.body.metricAnalysis.id);
  });

  it.each([
    ['an identifier type the fact table lacks', { userIdType: 'device_id' }, /\[userIdType\] fact table .* has no identifier type device_id/],
    ['a filter the fact table lacks', { additionalNumeratorFilters: ['flt_missing'] }, /Filter flt_missing of fact table/],
    ['a segment population', { populationType: 'segment', populationId: 'seg_1' }, /\[populationType\] segment populations are not supported yet/],
    ['a lookback under a day', { lookbackDays: 0 }, /lookbackDays/],
    ['an unknown field', { lookback: 3 }, /lookback/],
  ])('refuses %s with 400, starting nothing', async (_case, body, message) => {
    const { metricId } = await setUp({ name: 'Revenue', metricType: 'mean', numerator: { column: 'amount' } });

    const response = await analyse(metricId, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await metricAnalyses.allTagged(org.orgId, [`metric:${metricId}`])).toEqual([]);
  });

  it('refuses a metric kind it cannot compute yet (quantile) with 400', async () => {
    const { metricId } = await setUp({
      name: 'P90',
      metricType: 'quantile',
      numerator: { column: 'amount' },
      quantileSettings: { type: 'unit', quantile: 0.9, ignoreZeros: false },
    });

    const response = await analyse(metricId);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/quantile metrics are not supported yet/);
  });

  it('records the analysis of an Athena metric as an error naming why, in a server without the state machine', async () => {
    const { dataSource } = await post(org, '/data-sources', {
      name: 'Warehouse',
      type: 'athena',
      params: { workGroup: 'primary', database: 'events' },
      identifierTypes: [{ id: 'user_id' }],
      assignmentQueries: [{ id: 'user_id', name: 'Users', identifierType: 'user_id', sql: 'SELECT 1' }],
    });
    const { factTable } = await post(org, '/fact-tables', {
      name: 'Events',
      datasource: dataSource.id,
      userIdTypes: ['user_id'],
      sql: 'SELECT * FROM events',
    });
    const { factMetric } = await post(org, '/fact-metrics', {
      name: 'Events',
      metricType: 'mean',
      numerator: { factTableId: factTable.id, column: '$$count' },
    });

    const response = await analyse(factMetric.id);

    expect(response.status).toBe(200);
    expect(response.body.metricAnalysis.status).toBe('error');
    expect((await metricAnalyses.get(org.orgId, response.body.metricAnalysis.id)).error).toBe(
      'Metric analyses of athena data sources run in AWS (the snapshot state machine); this server runs DuckDB data sources only',
    );
  });

  it("answers 404 for another organization's metric and 403 to a role that may not run queries", async () => {
    const { metricId } = await setUp({ name: 'Revenue', metricType: 'mean', numerator: { column: 'amount' } });

    const foreign = await analyse(metricId, {}, other.keys.admin);
    const readonly = await analyse(metricId, {}, org.keys.readonly);

    expect(foreign.status).toBe(404);
    expect(readonly.status).toBe(403);
    expect(await metricAnalyses.allTagged(org.orgId, [`metric:${metricId}`])).toEqual([]);
  });
});
