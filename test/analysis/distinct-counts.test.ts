import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runDuckDbQueries } from '../../shared/analysis/engines/duckdb';
import type { AnalysisInputs, FrozenMetric, MetricSide } from '../../shared/analysis/inputs';
import { buildSnapshotQueries } from '../../shared/analysis/sql/snapshot-queries';
import { DAY, HOUR, syntheticExperiment, writeSyntheticFiles, type FactEvent } from '../support/analysis-data';

const START = Date.parse('2024-03-01T00:00:00Z');
const END = Date.parse('2024-03-15T00:00:00Z');
const TRACKING_KEY = 'distinct-days';
const data = syntheticExperiment({ seed: 20241126, units: 3000, trackingKey: TRACKING_KEY, start: START, end: END });

const metric = (fields: Partial<FrozenMetric> & Pick<FrozenMetric, 'id' | 'type' | 'numerator'>): FrozenMetric => ({
  name: fields.id,
  inverse: false,
  capping: { type: 'none', value: 0, ignoreZeros: false },
  window: { type: 'none', delayHours: 0, windowHours: 0 },
  regressionAdjustment: { enabled: false, days: 0 },
  prior: { proper: false, mean: 0, stddev: 0.3 },
  ...fields,
});
const side = (column: string, where: string[] = [], aggregation: MetricSide['aggregation'] = 'sum'): MetricSide => ({ factTableId: 'ftb_events', column, aggregation, where });
const purchases = ["event_type = 'purchase'"];
const views = ["event_type = 'pageview'"];

// Every kind of distinct count, after exposure and in the CUPED pre-period, next to a plain count.
const metrics: FrozenMetric[] = [
  metric({ id: 'active_days', type: 'mean', numerator: side('$$distinctDates'), regressionAdjustment: { enabled: true, days: 7 } }),
  metric({
    id: 'purchase_days_per_view_day',
    type: 'ratio',
    numerator: side('$$distinctDates', purchases),
    denominator: side('$$distinctDates', views),
    window: { type: 'conversion', delayHours: 0, windowHours: 72 },
  }),
  metric({ id: 'distinct_amounts', type: 'mean', numerator: side('amount', purchases, 'count distinct'), regressionAdjustment: { enabled: true, days: 14 } }),
  metric({ id: 'views', type: 'mean', numerator: side('$$count', views) }),
];

const inputs: AnalysisInputs = {
  engine: 'duckdb',
  datasourceId: 'ds_1',
  experimentId: 'exp_1',
  trackingKey: TRACKING_KEY,
  phase: 0,
  start: new Date(START).toISOString(),
  end: new Date(END).toISOString(),
  variations: [
    { variationId: 'var_a', key: '0', name: 'A', weight: 0.5 },
    { variationId: 'var_b', key: '1', name: 'B', weight: 0.5 },
  ],
  assignmentQuery: { id: 'users', name: 'Users', sql: "SELECT * FROM read_csv('exposures.csv')", identifierType: 'user_id', dimensionColumns: [] },
  dimension: null,
  attributionModel: 'firstExposure',
  inProgressConversions: 'include',
  queryFilter: '',
  statsEngine: 'frequentist',
  sequentialTestingEnabled: false,
  sequentialTestingTuningParameter: 5000,
  settings: {},
  factTables: [{ id: 'ftb_events', name: 'Events', sql: "SELECT * FROM read_csv('events/events.csv')", userIdTypes: ['user_id'] }],
  metrics,
};

// ---- The per-unit values, computed here from the raw data without SQL ----

function referenceUnits() {
  const exposed = new Map<string, { variations: Set<string>; first: number }>();
  for (const e of data.exposures) {
    if (e.experiment_id !== TRACKING_KEY || e.timestamp < START || e.timestamp > END) continue;
    const unit = exposed.get(e.user_id) ?? { variations: new Set<string>(), first: Infinity };
    unit.variations.add(e.variation_id);
    unit.first = Math.min(unit.first, e.timestamp);
    exposed.set(e.user_id, unit);
  }
  const byUser = new Map<string, FactEvent[]>();
  for (const event of data.events) byUser.set(event.user_id, [...(byUser.get(event.user_id) ?? []), event]);
  return [...exposed].map(([user, unit]) => {
    const events = byUser.get(user) ?? [];
    const fe = unit.first;
    const select = (type: string | undefined, from: number, to: number, toInclusive = true) =>
      events.filter((e) => (!type || e.event_type === type) && e.timestamp >= from && (toInclusive ? e.timestamp <= to : e.timestamp < to));
    const days = (list: FactEvent[]) => new Set(list.map((e) => Math.floor(e.timestamp / DAY))).size;
    const distinctAmounts = (list: FactEvent[]) => new Set(list.map((e) => e.amount)).size;
    return {
      variation: unit.variations.size > 1 ? '__multiple__' : [...unit.variations][0]!,
      // [main, covariate] or [numerator, denominator], as the query's statistics pair them.
      active_days: [days(select(undefined, fe, END)), days(select(undefined, fe - 7 * DAY, fe, false))],
      purchase_days_per_view_day: [days(select('purchase', fe, fe + 72 * HOUR)), days(select('pageview', fe, fe + 72 * HOUR))],
      distinct_amounts: [distinctAmounts(select('purchase', fe, END)), distinctAmounts(select('purchase', fe - 14 * DAY, fe, false))],
      views: [select('pageview', fe, END).length],
    };
  });
}

/** Per variation: the sufficient statistics the query reports for each metric, from the reference values. */
function referenceRows() {
  const rows = new Map<string, Record<string, number>>();
  for (const unit of referenceUnits()) {
    const row = rows.get(unit.variation) ?? { users: 0 };
    rows.set(unit.variation, row);
    const add = (name: string, value: number) => (row[name] = (row[name] ?? 0) + value);
    add('users', 1);
    metrics.forEach((m, i) => {
      const [x, y] = unit[m.id as 'active_days'];
      add(`m${i}_main_sum`, x!);
      add(`m${i}_main_sum_squares`, x! ** 2);
      if (m.type === 'ratio') {
        add(`m${i}_denominator_sum`, y!);
        add(`m${i}_denominator_sum_squares`, y! ** 2);
        add(`m${i}_main_denominator_sum_product`, x! * y!);
      } else if (m.regressionAdjustment.enabled) {
        add(`m${i}_covariate_sum`, y!);
        add(`m${i}_covariate_sum_squares`, y! ** 2);
        add(`m${i}_main_covariate_sum_product`, x! * y!);
      }
    });
  }
  return Object.fromEntries(rows);
}

describe('distinct counts on DuckDB', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'distinct-counts-'));
  beforeAll(() => {
    mkdirSync(path.join(dataDir, 'events'));
    writeSyntheticFiles(dataDir, data);
  });

  it('are pre-aggregated per (unit, value): no COUNT(DISTINCT) in the per-unit aggregation, or anywhere else', () => {
    const [query] = buildSnapshotQueries(inputs);
    const sql = query!.sql;
    const perUnit = sql.slice(sql.indexOf('__unit_aggregates AS ('), sql.indexOf('\n)', sql.indexOf('__unit_aggregates AS (')));

    expect(perUnit).toMatch(/GROUP BY x\.unit_id, x\.variation$/);
    expect(perUnit).not.toMatch(/COUNT\(\s*DISTINCT/i);
    expect(sql).not.toMatch(/COUNT\(\s*DISTINCT/i);
    // One pre-aggregation per distinct-count side (the post and pre windows of a side share it).
    expect(sql.match(/GROUP BY x\.unit_id, f\.m\d_[nd]\b/g)).toEqual([
      'GROUP BY x.unit_id, f.m0_n',
      'GROUP BY x.unit_id, f.m1_n',
      'GROUP BY x.unit_id, f.m1_d',
      'GROUP BY x.unit_id, f.m2_n',
    ]);
    // Read more than once, the exposures and the per-unit values are computed once.
    expect(sql).toContain('__exposures AS MATERIALIZED (');
  });

  it('stay in the per-unit aggregation on Athena, where reading the fact table again would scan it again', () => {
    const [query] = buildSnapshotQueries({ ...inputs, engine: 'athena' });
    const sql = query!.sql;

    expect(sql.match(/(FROM|JOIN) __facts\b/g)).toEqual(['JOIN __facts']);
    expect(sql.match(/(FROM|JOIN) __exposures\b/g)).toEqual(['FROM __exposures']);
    expect(sql).toContain('COUNT(DISTINCT CASE WHEN');
    expect(sql).not.toContain('MATERIALIZED');
  });

  it('give exactly the reference computation on generated data', async () => {
    const queries = buildSnapshotQueries(inputs);

    const { rowsByQuery } = await runDuckDbQueries(queries, { dataDir });

    const expected = referenceRows();
    const rows = rowsByQuery[queries[0]!.id]!;
    expect(rows.map((r) => r.variation)).toEqual(Object.keys(expected).sort());
    // Sanity of the data: days on both sides of the exposure, and units with several active days.
    expect(expected['0']!.m0_covariate_sum).toBeGreaterThan(100);
    expect(expected['0']!.m0_main_sum).toBeGreaterThan(expected['0']!.users);
    for (const row of rows) {
      const reference = expected[row.variation as string]!;
      // Counts and their squares and products: integers, so exactly equal.
      expect(Object.fromEntries(Object.keys(reference).map((k) => [k, row[k]]))).toEqual(reference);
    }
  });
});
