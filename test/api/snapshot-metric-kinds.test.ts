import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { snapshots } from '../../shared/store/snapshots';
import { referenceResultsValidator, waitForSnapshot } from '../support/analysis-api';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

// Metric kinds and inputs end to end over HTTP: what a snapshot freezes from the stored configuration (a segment, an
// activation metric, a unit dimension, an identity join) and the results it computes on DuckDB. The figures
// themselves are checked against gbstats' formulas in test/analysis/metric-kinds.test.ts; here the users per
// variation and dimension value are counted from the same rows.

const DAY = 86_400_000;
const H = 3_600_000;
const START = Date.parse('2024-06-01T00:00:00Z');
const END = Date.parse('2024-06-11T00:00:00Z');
const time = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

// 60 users, deterministic: variation by parity, exposure on day u % 9, sessions on some days, orders for some users.
const USERS = Array.from({ length: 60 }, (_, u) => ({
  user: `u${u}`,
  variation: u % 2,
  exposed: START + (u % 9) * DAY + u * 60_000,
  plan: u % 3 === 0 ? 'pro' : u % 3 === 1 ? 'free' : undefined,
  inSegment: u % 4 !== 0,
  // Users whose id is divisible by 5 never order, so they never activate.
  orders: u % 5 === 0 ? [] : [{ after: (u % 3) * 20 * H, amount: 10 + u }],
  sessions: Array.from({ length: u % 6 }, (_, s) => s * 30 * H),
}));

let api: Api;
let org: TestOrg;
const dataDir = mkdtempSync(path.join(tmpdir(), 'snapshot-kinds-'));

beforeAll(async () => {
  const csv = (header: string, rows: (string | number)[][]) => `${header}\n${rows.map((r) => r.join(',')).join('\n')}\n`;
  writeFileSync(path.join(dataDir, 'exposures.csv'), csv('user_id,timestamp,experiment_id,variation_id', USERS.map((u) => [u.user, time(u.exposed), 'kinds', u.variation])));
  writeFileSync(
    path.join(dataDir, 'orders.csv'),
    csv('user_id,timestamp,amount', USERS.flatMap((u) => u.orders.map((o) => [u.user, time(u.exposed + o.after), o.amount]))),
  );
  // Sessions are keyed by device: each user has one device, mapped by the identity join table.
  writeFileSync(path.join(dataDir, 'devices.csv'), csv('user_id,device_id', USERS.map((u) => [u.user, `d_${u.user}`])));
  writeFileSync(
    path.join(dataDir, 'sessions.csv'),
    csv('device_id,timestamp', USERS.flatMap((u) => u.sessions.map((after) => [`d_${u.user}`, time(u.exposed + after)]))),
  );
  writeFileSync(path.join(dataDir, 'segment.csv'), csv('user_id,date', USERS.filter((u) => u.inSegment).map((u) => [u.user, time(START - DAY)])));
  writeFileSync(path.join(dataDir, 'signups.csv'), csv('user_id,timestamp,source', USERS.filter((u) => u.inSegment).map((u, i) => [u.user, time(START - DAY), i % 2 ? 'email' : 'web'])));
  writeFileSync(path.join(dataDir, 'plans.csv'), csv('user_id,value', USERS.filter((u) => u.plan).map((u) => [u.user, u.plan!])));
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

async function setUp() {
  const { dataSource } = await post('/data-sources', {
    name: 'Local files',
    type: 'duckdb',
    params: {},
    identifierTypes: [{ id: 'user_id' }, { id: 'device_id' }],
    assignmentQueries: [{ id: 'user_exposures', name: 'Users', identifierType: 'user_id', sql: "SELECT * FROM read_csv('exposures.csv')" }],
    identifierJoinQueries: [{ identifierTypes: ['user_id', 'device_id'], sql: "SELECT user_id, device_id FROM read_csv('devices.csv')" }],
  });
  const table = async (name: string, userIdTypes: string[], file: string) =>
    (await post('/fact-tables', { name, datasource: dataSource.id, userIdTypes, sql: `SELECT * FROM read_csv('${file}')` })).factTable.id as string;
  const orders = await table('Orders', ['user_id'], 'orders.csv');
  const sessions = await table('Sessions', ['device_id'], 'sessions.csv');
  const metric = async (body: Record<string, unknown>) => (await post('/fact-metrics', body)).factMetric.id as string;
  const ids = {
    revenuePerSession: await metric({
      name: 'Revenue per session',
      metricType: 'ratio',
      numerator: { factTableId: orders, column: 'amount' },
      denominator: { factTableId: sessions, column: '$$count' },
    }),
    retained: await metric({
      name: 'Back after a day',
      metricType: 'retention',
      numerator: { factTableId: sessions },
      windowSettings: { type: 'conversion', delayValue: 1, delayUnit: 'days', windowValue: 3, windowUnit: 'days' },
    }),
    activeDays: await metric({ name: 'Active days', metricType: 'dailyParticipation', numerator: { factTableId: sessions } }),
    medianRevenue: await metric({
      name: 'Median revenue',
      metricType: 'quantile',
      numerator: { factTableId: orders, column: 'amount', aggregation: 'sum' },
      quantileSettings: { type: 'unit', quantile: 0.5, ignoreZeros: true },
    }),
    ordered: await metric({
      name: 'Ordered',
      metricType: 'proportion',
      numerator: { factTableId: orders, column: '$$distinctUsers' },
      windowSettings: { type: 'conversion', windowValue: 2, windowUnit: 'days' },
    }),
  };
  const { segment } = await post('/segments', {
    name: 'Newsletter',
    datasourceId: dataSource.id,
    identifierType: 'user_id',
    type: 'SQL',
    query: "SELECT user_id, date FROM read_csv('segment.csv')",
  });
  const { dimension } = await post('/dimensions', {
    name: 'Plan',
    datasourceId: dataSource.id,
    identifierType: 'user_id',
    query: "SELECT user_id, value FROM read_csv('plans.csv')",
  });
  const { experiment } = await post('/experiments', {
    trackingKey: 'kinds',
    bypassDuplicateKeyCheck: true,
    name: 'Kinds',
    status: 'running',
    datasourceId: dataSource.id,
    assignmentQueryId: 'user_exposures',
    variations: [
      { key: '0', name: 'Control' },
      { key: '1', name: 'Treatment' },
    ],
    phases: [{ name: 'Main', dateStarted: new Date(START).toISOString(), dateEnded: new Date(END).toISOString() }],
    metrics: [ids.revenuePerSession, ids.retained, ids.activeDays, ids.medianRevenue],
    activationMetric: ids.ordered,
    segmentId: segment.id,
    statsEngine: 'frequentist',
  });
  return { experiment, ids, dimensionId: dimension.id as string, segmentId: segment.id as string, dataSourceId: dataSource.id as string };
}

describe('snapshots with segments, activation metrics, unit dimensions, identity joins and the new metric kinds', () => {
  it('freezes them, runs on DuckDB, and counts only activated units of the segment, by plan', async () => {
    const { experiment, ids, dimensionId, segmentId } = await setUp();

    const triggered = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: { dimension: dimensionId } });
    expect(triggered.status).toBe(200);
    const snapshotId = triggered.body.snapshot.id;
    const stored = await snapshots.get(org.orgId, snapshotId);
    expect(stored.inputs).toMatchObject({
      segment: { id: segmentId, identifierTypes: ['user_id'] },
      activationMetric: { id: ids.ordered, type: 'proportion' },
      dimension: { type: 'unit', id: dimensionId, identifierType: 'user_id' },
      identityJoins: [{ identifierTypes: ['user_id', 'device_id'] }],
    });
    expect(stored.inputs!.metrics.map((m) => [m.id, m.type])).toEqual([
      [ids.revenuePerSession, 'ratio'],
      [ids.retained, 'proportion'],
      [ids.activeDays, 'dailyParticipation'],
      [ids.medianRevenue, 'quantile'],
    ]);
    expect(await waitForSnapshot(api, org, snapshotId)).toBe('success');

    const results = await api.request('GET', `/api/v1/experiments/${experiment.id}/results?dimension=${dimensionId}`, { key: org.keys.admin });
    expect(results.status).toBe(200);
    const validate = referenceResultsValidator();
    expect(validate(results.body.result) ? [] : validate.errors).toEqual([]);
    expect(results.body.result.dimension).toEqual({ type: 'user', id: dimensionId });

    // Activated (an order within 2 days of exposure) and in the segment (joined before exposure).
    const counted = USERS.filter((u) => u.inSegment && u.orders.some((o) => o.after <= 48 * H));
    expect(counted.length).toBeGreaterThan(0);
    expect(counted.length).toBeLessThan(USERS.length);
    const expected = ['pro', 'free', '__NULL_DIMENSION']
      .map((plan) => ({
        dimension: plan,
        users: [0, 1].map((v) => counted.filter((u) => (u.plan ?? '__NULL_DIMENSION') === plan && u.variation === v).length),
      }))
      .sort((a, b) => a.dimension.localeCompare(b.dimension));
    const actual = results.body.result.results
      .map((r: { dimension: string; metrics: { metricId: string; variations: { users: number }[] }[] }) => ({
        dimension: r.dimension,
        users: r.metrics.find((m) => m.metricId === ids.activeDays)!.variations.map((v) => v.users),
      }))
      .sort((a: { dimension: string }, b: { dimension: string }) => a.dimension.localeCompare(b.dimension));
    expect(actual).toEqual(expected);
    // The median revenue of each plan's activated units (each ordered once: 10 + its number), linear as numpy's.
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const h = (sorted.length - 1) / 2;
      return sorted[Math.floor(h)]! + (h - Math.floor(h)) * (sorted[Math.ceil(h)]! - sorted[Math.floor(h)]!);
    };
    for (const r of results.body.result.results) {
      const medians = r.metrics.find((m: { metricId: string }) => m.metricId === ids.medianRevenue).variations.map((v: { analyses: { mean: number }[] }) => v.analyses[0]!.mean);
      const revenue = (v: number) => counted.filter((u) => (u.plan ?? '__NULL_DIMENSION') === r.dimension && u.variation === v).map((u) => u.orders[0]!.amount);
      expect(medians).toEqual([median(revenue(0)), median(revenue(1))]);
    }
    for (const r of results.body.result.results) expect(r.metrics.map((m: { metricId: string }) => m.metricId).sort()).toEqual(Object.values(ids).filter((id) => id !== ids.ordered).sort());
  });

  it('counts only the units of a fact segment: the rows of its fact table that pass its filters', async () => {
    const { experiment, ids, dataSourceId } = await setUp();
    const { factTable } = await post('/fact-tables', { name: 'Signups', datasource: dataSourceId, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('signups.csv')" });
    const { factTableFilter } = await post(`/fact-tables/${factTable.id}/filters`, { name: 'By email', value: "source = 'email'" });
    const { segment } = await post('/segments', { name: 'Email signups', datasourceId: dataSourceId, identifierType: 'user_id', type: 'FACT', factTableId: factTable.id, filters: [factTableFilter.id] });
    await post(`/experiments/${experiment.id}`, { segmentId: segment.id });

    const triggered = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: {} });
    expect(triggered.status).toBe(200);
    expect(await waitForSnapshot(api, org, triggered.body.snapshot.id)).toBe('success');

    const results = await api.request('GET', `/api/v1/experiments/${experiment.id}/results`, { key: org.keys.admin });
    const email = new Set(USERS.filter((u) => u.inSegment).filter((_, i) => i % 2).map((u) => u.user));
    const counted = USERS.filter((u) => email.has(u.user) && u.orders.some((o) => o.after <= 48 * H));
    const users = results.body.result.results[0].metrics.find((m: { metricId: string }) => m.metricId === ids.activeDays).variations.map((v: { users: number }) => v.users);
    expect(users).toEqual([0, 1].map((v) => counted.filter((u) => u.variation === v).length));
    expect(counted.length).toBeGreaterThan(0);
  });

  it("answers 400 and records nothing when the experiment's segment has been deleted", async () => {
    const { experiment, segmentId } = await setUp();
    expect((await api.request('DELETE', `/api/v1/segments/${segmentId}`, { key: org.keys.admin })).status).toBe(200);

    const response = await api.request('POST', `/api/v1/experiments/${experiment.id}/snapshot`, { key: org.keys.admin, body: {} });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(`Experiment ${experiment.id}'s segment ${segmentId} does not exist`);
    expect((await snapshots.allTagged(org.orgId, [`experiment:${experiment.id}`])).length).toBe(0);
  });
});
