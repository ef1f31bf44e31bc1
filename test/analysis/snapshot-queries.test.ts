import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runDuckDbQueries } from '../../shared/analysis/engines/duckdb';
import type { AnalysisInputs, FrozenMetric } from '../../shared/analysis/inputs';
import { buildSnapshotQueries, compileTemplate } from '../../shared/analysis/sql/snapshot-queries';

const T = Date.parse('2024-05-02T00:00:00Z');
const H = 3_600_000;
const time = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');

const metric = (fields: Partial<FrozenMetric> & Pick<FrozenMetric, 'id' | 'type' | 'numerator'>): FrozenMetric => ({
  name: fields.id,
  inverse: false,
  capping: { type: 'none', value: 0, ignoreZeros: false },
  window: { type: 'none', delayHours: 0, windowHours: 0 },
  regressionAdjustment: { enabled: false, days: 0 },
  prior: { proper: false, mean: 0, stddev: 0.3 },
  ...fields,
});

const purchase = (column: string, aggregation: 'sum' | 'max' | 'count distinct' = 'sum') => ({
  factTableId: 'ftb_events',
  column,
  aggregation,
  where: ["event_type = 'purchase'"],
});

function inputs(engine: 'duckdb' | 'athena', fields: Partial<AnalysisInputs> = {}): AnalysisInputs {
  return {
    engine,
    datasourceId: 'ds_1',
    experimentId: 'exp_1',
    trackingKey: 'exp-key',
    phase: 0,
    start: '2024-05-01T00:00:00.000Z',
    end: '2024-05-10T00:00:00.000Z',
    variations: [
      { variationId: 'var_a', key: '0', name: 'A', weight: 0.5 },
      { variationId: 'var_b', key: '1', name: 'B', weight: 0.5 },
    ],
    assignmentQuery: {
      id: 'users',
      name: 'Users',
      sql: "SELECT user_id, timestamp, experiment_id, variation_id, country FROM read_csv('exposures.csv')",
      identifierType: 'user_id',
      dimensionColumns: ['country'],
    },
    dimension: null,
    attributionModel: 'firstExposure',
    inProgressConversions: 'include',
    queryFilter: '',
    statsEngine: 'frequentist',
    sequentialTestingEnabled: false,
    sequentialTestingTuningParameter: 5000,
    settings: {},
    factTables: [{ id: 'ftb_events', name: 'Events', sql: "SELECT * FROM read_csv('events.csv')", userIdTypes: ['user_id'] }],
    metrics: [
      metric({ id: 'purchased', type: 'proportion', numerator: purchase('$$distinctUsers'), window: { type: 'conversion', delayHours: 0, windowHours: 72 } }),
      metric({
        id: 'revenue',
        type: 'mean',
        numerator: purchase('amount'),
        window: { type: 'conversion', delayHours: 0, windowHours: 72 },
        capping: { type: 'absolute', value: 15, ignoreZeros: false },
        regressionAdjustment: { enabled: true, days: 14 },
      }),
      metric({
        id: 'per_view',
        type: 'ratio',
        numerator: purchase('amount'),
        denominator: { factTableId: 'ftb_events', column: '$$count', aggregation: 'sum', where: ["event_type = 'view'"] },
        capping: { type: 'percentile', value: 0.9, ignoreZeros: true },
        regressionAdjustment: { enabled: true, days: 7 },
      }),
    ],
    ...fields,
  };
}

describe('snapshot SQL for Athena', () => {
  it('is exactly the pinned SQL', () => {
    const queries = buildSnapshotQueries(inputs('athena', { dimension: { type: 'experiment', id: 'exp:country', column: 'country' }, inProgressConversions: 'exclude' }));
    const sql = queries.map((q) => `-- query ${q.id}\n${q.sql}\n`).join('\n');
    const golden = path.join(__dirname, 'golden', 'athena-snapshot.sql');
    if (process.env.UPDATE_GOLDEN || !existsSync(golden)) writeFileSync(golden, sql);

    expect(sql).toBe(readFileSync(golden, 'utf8'));
    expect(sql).toContain("from_iso8601_timestamp('2024-05-01T00:00:00.000Z')");
    expect(sql).toContain("date_add('minute', 4320, x.first_exposure)");
    expect(sql).toContain('approx_percentile(');
  });

  it('is exactly the pinned SQL for a snapshot without metrics: one traffic query over the same exposures', () => {
    const queries = buildSnapshotQueries(inputs('athena', { dimension: { type: 'experiment', id: 'exp:country', column: 'country' }, metrics: [], factTables: [] }));
    const sql = queries.map((q) => `-- query ${q.id}\n${q.sql}\n`).join('\n');
    const golden = path.join(__dirname, 'golden', 'athena-traffic.sql');
    if (process.env.UPDATE_GOLDEN || !existsSync(golden)) writeFileSync(golden, sql);

    expect(queries.map((q) => q.id)).toEqual(['q0_traffic']);
    expect(sql).toBe(readFileSync(golden, 'utf8'));
    // The exposures are the metric queries' own, word for word.
    const withMetrics = buildSnapshotQueries(inputs('athena', { dimension: { type: 'experiment', id: 'exp:country', column: 'country' } }))[0]!.sql;
    const exposures = (text: string) => text.slice(text.indexOf('WITH __exposures'), text.indexOf('\n)') + 2);
    expect(exposures(sql)).toBe(exposures(withMetrics));
    expect(sql).not.toContain('HAVING');
  });

  it('fills GrowthBook template variables in user SQL', () => {
    const sql = compileTemplate("WHERE ts >= '{{ startDate }}' AND d <= '{{endDateISO}}' AND e = '{{experimentId}}' AND x = '{{unknown}}'", {
      start: '2024-05-01T00:00:00.000Z',
      end: '2024-05-10T12:00:00.000Z',
      experimentId: 'exp-key',
    });

    expect(sql).toBe("WHERE ts >= '2024-05-01 00:00:00' AND d <= '2024-05-10T12:00:00.000Z' AND e = 'exp-key' AND x = '{{unknown}}'");
  });
});

describe('snapshot SQL on DuckDB', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'snapshot-sql-'));
  beforeAll(() => {
    mkdirSync(dataDir, { recursive: true });
    const exposures = [
      ['u1', T, 'exp-key', 0, 'US'],
      ['u1', T + 5 * H, 'exp-key', 0, 'DE'], // a later exposure: the first one decides time and country
      ['u2', T, 'exp-key', 1, 'DE'],
      ['u3', T, 'exp-key', 0, 'US'],
      ['u3', T + H, 'exp-key', 1, 'US'], // both variations
      ['u4', Date.parse('2024-04-20T00:00:00Z'), 'exp-key', 1, 'US'], // before the phase
      ['u5', T, 'other-key', 1, 'US'], // another experiment
    ];
    const events = [
      ['u1', T + H, 'purchase', 10],
      ['u1', T + 2 * H, 'purchase', 20], // revenue 30, capped to 15
      ['u1', T - 24 * H, 'purchase', 4], // pre-exposure: covariate only
      ['u1', T + 100 * H, 'purchase', 50], // outside the 72-hour window, inside the phase
      ['u1', T + 3 * H, 'view', 0],
      ['u2', T - H, 'purchase', 7], // before exposure only
      ['u2', T + 3 * H, 'view', 0],
      ['u2', T + 4 * H, 'view', 0],
      ['u3', T + H, 'purchase', 100],
      ['u4', T + H, 'purchase', 100],
    ];
    writeFileSync(path.join(dataDir, 'exposures.csv'), `user_id,timestamp,experiment_id,variation_id,country\n${exposures.map((r) => [r[0], time(r[1] as number), ...r.slice(2)].join(',')).join('\n')}\n`);
    writeFileSync(path.join(dataDir, 'events.csv'), `user_id,timestamp,event_type,amount\n${events.map((r) => [r[0], time(r[1] as number), ...r.slice(2)].join(',')).join('\n')}\n`);
  });

  it('counts only events inside each window after the first exposure, keeps units of two variations apart, and caps', async () => {
    const queries = buildSnapshotQueries(inputs('duckdb'));

    const { rowsByQuery } = await runDuckDbQueries(queries, { dataDir });

    const rows = rowsByQuery[queries[0]!.id]!;
    const byVariation = Object.fromEntries(rows.map((r) => [r.variation, r]));
    expect(Object.keys(byVariation).sort()).toEqual(['0', '1', '__multiple__']);
    expect(byVariation['0']).toMatchObject({
      dimension: 'All',
      users: 1,
      m0_main_sum: 1,
      m1_main_sum: 15, // 10 + 20 inside the window, capped at 15; 50 is outside
      m1_covariate_sum: 4,
      m2_denominator_sum: 1,
    });
    expect(byVariation['1']).toMatchObject({ users: 1, m0_main_sum: 0, m1_main_sum: 0, m1_covariate_sum: 7, m2_main_sum: 0 });
    // The denominator is capped too: the 90th percentile of the non-zero view counts 1 and 2 is 1.9.
    expect(byVariation['1']!.m2_denominator_sum).toBeCloseTo(1.9, 9);
    expect(byVariation.__multiple__).toMatchObject({ users: 1 });
    // The percentile cap (90th, zeros ignored) of the ratio's numerator over units: 80 (u1) and 100 (u3) -> 98.
    expect(byVariation['0']!.m2_main_sum).toBe(80);
    expect(byVariation.__multiple__!.m2_main_sum).toBeCloseTo(98, 9);
  });

  it('breaks results down by an assignment-query column, taking the value of the first exposure', async () => {
    const queries = buildSnapshotQueries(inputs('duckdb', { dimension: { type: 'experiment', id: 'exp:country', column: 'country' } }));

    const { rowsByQuery } = await runDuckDbQueries(queries, { dataDir });

    const rows = rowsByQuery[queries[0]!.id]!.map((r) => [r.variation, r.dimension, r.users]);
    expect(rows).toEqual([
      ['0', 'US', 1],
      ['1', 'DE', 1],
      ['__multiple__', 'US', 1],
    ]);
  });

  it('counts the users per variation and dimension value of a snapshot without metrics, as the metric queries do', async () => {
    const dimension = { type: 'experiment' as const, id: 'exp:country', column: 'country' };
    const traffic = buildSnapshotQueries(inputs('duckdb', { dimension, metrics: [], factTables: [] }));
    const withMetrics = buildSnapshotQueries(inputs('duckdb', { dimension }));

    const { rowsByQuery } = await runDuckDbQueries([...traffic, ...withMetrics], { dataDir });

    const users = (id: string) => rowsByQuery[id]!.map((r) => [r.variation, r.dimension, Number(r.users)]);
    expect(users('q0_traffic')).toEqual([
      ['0', 'US', 1],
      ['1', 'DE', 1],
      ['__multiple__', 'US', 1],
    ]);
    expect(users('q0_traffic')).toEqual(users(withMetrics[0]!.id));
  });

  it('ignores conversion windows under the experiment-duration attribution model', async () => {
    const queries = buildSnapshotQueries(inputs('duckdb', { attributionModel: 'experimentDuration' }));

    const { rowsByQuery } = await runDuckDbQueries(queries, { dataDir });

    const control = rowsByQuery[queries[0]!.id]!.find((r) => r.variation === '0')!;
    expect(control.m1_main_sum).toBe(15); // 80 uncapped, capped at 15
    expect(control.m1_main_sum_squares).toBe(225);
  });
});
