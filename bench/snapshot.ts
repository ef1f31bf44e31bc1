/**
 * Snapshot wall time and peak memory on embedded DuckDB: one experiment with 5 metrics on one fact
 * table (proportion, capped mean with CUPED, count, ratio, distinct days), over N exposure rows and
 * 2N events generated as Parquet. Measures what a local snapshot run does between its frozen inputs
 * and its results: build the SQL, run it in the DuckDB process, analyse every metric. Storing the
 * results (a few DynamoDB items) is left out. Next to it runs a hand-written DuckDB query of the same
 * aggregates. `npx tsx bench/snapshot.ts 100000 1000000 10000000`, or `BENCH_SNAPSHOT_SIZES=… npm run bench -- snapshot`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { runDuckDbQueries } from '../shared/analysis/engines/duckdb';
import type { AnalysisInputs, FrozenMetric } from '../shared/analysis/inputs';
import { analyseSnapshotRows } from '../shared/analysis/results';
import { buildSnapshotQueries } from '../shared/analysis/sql/snapshot-queries';
import { printTable, round, saveResults, type Row } from './report';

const dataDir = path.resolve(process.env.BENCH_ANALYSIS_DIR || '.data/bench-analysis');
const PHASE_SECONDS = 14 * 24 * 3600;

/** Writes `n` exposure rows and 2n events as Parquet under the bench data directory (once per size). */
export async function generate(n: number): Promise<string> {
  const folder = `n${n}`;
  if (existsSync(path.join(dataDir, folder, 'events.parquet'))) return folder;
  mkdirSync(path.join(dataDir, folder), { recursive: true });
  const units = Math.max(1, Math.floor(n * 0.8));
  // Written by a DuckDB of the bench's own: the engine's process runs nothing but SELECTs.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  const target = (file: string) => `'${path.join(dataDir, folder, file).replace(/'/g, "''")}'`;
  await connection.run(`COPY (
  SELECT 'u' || (i % ${units}) AS user_id,
    TIMESTAMP '2024-03-01' + to_seconds(CAST(hash(i, 1) % ${PHASE_SECONDS} AS BIGINT)) AS timestamp,
    'bench' AS experiment_id,
    CAST(CASE WHEN hash(i, 2) % 100 = 0 THEN 1 - hash(i % ${units}, 3) % 2 ELSE hash(i % ${units}, 3) % 2 END AS VARCHAR) AS variation_id
  FROM range(${n}) t(i)
) TO ${target('exposures.parquet')} (FORMAT parquet)`);
  await connection.run(`COPY (
  SELECT 'u' || (hash(i, 4) % ${units}) AS user_id,
    TIMESTAMP '2024-02-20' + to_seconds(CAST(hash(i, 5) % ${PHASE_SECONDS + 20 * 24 * 3600} AS BIGINT)) AS timestamp,
    CASE WHEN hash(i, 6) % 4 = 0 THEN 'purchase' ELSE 'pageview' END AS event_type,
    (hash(i, 7) % 10000) / 100.0 + CASE WHEN hash(i, 8) % 1000 = 0 THEN 5000 ELSE 0 END AS amount
  FROM range(${2 * n}) t(i)
) TO ${target('events.parquet')} (FORMAT parquet)`);
  connection.closeSync();
  return folder;
}

const side = (column: string, where: string[] = [], aggregation: 'sum' | 'max' | 'count distinct' = 'sum') => ({ factTableId: 'ftb_events', column, aggregation, where });
const base = { inverse: false, capping: { type: 'none', value: 0, ignoreZeros: false }, window: { type: 'none', delayHours: 0, windowHours: 0 }, regressionAdjustment: { enabled: false, days: 0 }, prior: { proper: false, mean: 0, stddev: 0.3 } } as const;
const purchases = ["event_type = 'purchase'"];
const views = ["event_type = 'pageview'"];
const metrics: FrozenMetric[] = [
  { ...base, id: 'purchased', name: 'Purchased', type: 'proportion', numerator: side('$$distinctUsers', purchases), window: { type: 'conversion', delayHours: 0, windowHours: 72 } },
  { ...base, id: 'revenue', name: 'Revenue', type: 'mean', numerator: side('amount', purchases), capping: { type: 'percentile', value: 0.99, ignoreZeros: false }, regressionAdjustment: { enabled: true, days: 14 } },
  { ...base, id: 'views', name: 'Page views', type: 'mean', numerator: side('$$count', views) },
  { ...base, id: 'revenue_per_view', name: 'Revenue per view', type: 'ratio', numerator: side('amount', purchases), denominator: side('$$count', views) },
  { ...base, id: 'active_days', name: 'Active days', type: 'mean', numerator: side('$$distinctDates') },
];

export function benchInputs(folder: string): AnalysisInputs {
  return {
    engine: 'duckdb',
    datasourceId: 'ds_bench',
    experimentId: 'exp_bench',
    trackingKey: 'bench',
    phase: 0,
    start: '2024-03-01T00:00:00.000Z',
    end: '2024-03-15T00:00:00.000Z',
    variations: [
      { variationId: 'v0', key: '0', name: 'Control', weight: 0.5 },
      { variationId: 'v1', key: '1', name: 'Treatment', weight: 0.5 },
    ],
    assignmentQuery: { id: 'users', name: 'Users', sql: `SELECT * FROM read_parquet('${folder}/exposures.parquet')`, identifierType: 'user_id', dimensionColumns: [] },
    dimension: null,
    attributionModel: 'firstExposure',
    inProgressConversions: 'include',
    queryFilter: '',
    statsEngine: 'bayesian',
    sequentialTestingEnabled: false,
    sequentialTestingTuningParameter: 5000,
    settings: {},
    metrics,
    factTables: [{ id: 'ftb_events', name: 'Events', sql: `SELECT * FROM read_parquet('${folder}/events.parquet')`, userIdTypes: ['user_id'] }],
  };
}

/**
 * The same aggregates written by hand, plainly, as someone would query DuckDB directly: exposures per user,
 * one grouping per user for the sums and counts, active days from the distinct (user, day) pairs, the 99th
 * percentile cap of revenue, and the sufficient statistics per variation.
 */
export function handWrittenQuery(folder: string): string {
  const inPhase = "e.timestamp >= x.first_exposure AND e.timestamp <= TIMESTAMP '2024-03-15 00:00:00'";
  return `WITH exposures AS MATERIALIZED (
  SELECT user_id, MIN(timestamp) AS first_exposure,
    CASE WHEN MIN(variation_id) <> MAX(variation_id) THEN '__multiple__' ELSE MAX(variation_id) END AS variation
  FROM read_parquet('${folder}/exposures.parquet')
  WHERE experiment_id = 'bench' AND timestamp BETWEEN TIMESTAMP '2024-03-01 00:00:00' AND TIMESTAMP '2024-03-15 00:00:00'
  GROUP BY user_id
),
events AS (
  SELECT * FROM read_parquet('${folder}/events.parquet')
  WHERE timestamp BETWEEN TIMESTAMP '2024-02-16 00:00:00' AND TIMESTAMP '2024-03-18 00:00:00'
),
per_user AS (
  SELECT x.user_id, x.variation,
    MAX(CASE WHEN e.event_type = 'purchase' AND e.timestamp >= x.first_exposure AND e.timestamp <= x.first_exposure + INTERVAL 72 HOUR THEN 1 ELSE 0 END) AS purchased,
    SUM(CASE WHEN e.event_type = 'purchase' AND ${inPhase} THEN e.amount ELSE 0 END) AS revenue,
    SUM(CASE WHEN e.event_type = 'purchase' AND e.timestamp >= x.first_exposure - INTERVAL 14 DAY AND e.timestamp < x.first_exposure THEN e.amount ELSE 0 END) AS revenue_before,
    COUNT(CASE WHEN e.event_type = 'pageview' AND ${inPhase} THEN 1 END) AS views
  FROM exposures x LEFT JOIN events e ON e.user_id = x.user_id
  GROUP BY x.user_id, x.variation
),
active_days AS (
  SELECT user_id, COUNT(*) AS days
  FROM (SELECT DISTINCT x.user_id, CAST(e.timestamp AS DATE) FROM exposures x JOIN events e ON e.user_id = x.user_id WHERE ${inPhase})
  GROUP BY user_id
),
users AS MATERIALIZED (
  SELECT p.*, COALESCE(a.days, 0) AS days FROM per_user p LEFT JOIN active_days a ON a.user_id = p.user_id
),
cap AS (SELECT quantile_cont(revenue, 0.99) AS revenue_cap FROM users),
capped AS (SELECT u.*, LEAST(revenue, revenue_cap) AS capped_revenue, LEAST(revenue_before, revenue_cap) AS capped_before FROM users u, cap)
SELECT variation, COUNT(*) AS users,
  SUM(purchased) AS purchased_sum, SUM(purchased * purchased) AS purchased_sum_squares,
  SUM(capped_revenue) AS revenue_sum, SUM(capped_revenue ^ 2) AS revenue_sum_squares,
  SUM(capped_before) AS revenue_before_sum, SUM(capped_before ^ 2) AS revenue_before_sum_squares, SUM(capped_revenue * capped_before) AS revenue_product,
  SUM(views) AS views_sum, SUM(views * views) AS views_sum_squares,
  SUM(revenue) AS uncapped_revenue_sum, SUM(revenue ^ 2) AS uncapped_revenue_sum_squares, SUM(revenue * views) AS revenue_views_product,
  SUM(days) AS days_sum, SUM(days * days) AS days_sum_squares
FROM capped
GROUP BY variation
ORDER BY variation`;
}

/** Which column of Switchyard's output each hand-written column equals. */
const sameAs: Record<string, string> = {
  users: 'users',
  purchased_sum: 'm0_main_sum',
  purchased_sum_squares: 'm0_main_sum_squares',
  revenue_sum: 'm1_main_sum',
  revenue_sum_squares: 'm1_main_sum_squares',
  revenue_before_sum: 'm1_covariate_sum',
  revenue_before_sum_squares: 'm1_covariate_sum_squares',
  revenue_product: 'm1_main_covariate_sum_product',
  views_sum: 'm2_main_sum',
  views_sum_squares: 'm2_main_sum_squares',
  uncapped_revenue_sum: 'm3_main_sum',
  uncapped_revenue_sum_squares: 'm3_main_sum_squares',
  revenue_views_product: 'm3_main_denominator_sum_product',
  days_sum: 'm4_main_sum',
  days_sum_squares: 'm4_main_sum_squares',
};

/** Throws unless both queries found the same aggregates (up to the order of floating-point additions). */
function assertSameAggregates(ours: Record<string, unknown>[], theirs: Record<string, unknown>[]): void {
  for (const row of theirs) {
    const match = ours.find((r) => r.variation === row.variation);
    for (const [column, ourColumn] of Object.entries(sameAs)) {
      const [a, b] = [Number(row[column]), Number(match?.[ourColumn])];
      if (!(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)))) throw new Error(`Variation ${String(row.variation)}: hand-written ${column} = ${a}, Switchyard ${ourColumn} = ${b}`);
    }
  }
}

/** Sizes: the arguments, else `BENCH_SNAPSHOT_SIZES` (comma-separated, e.g. `100000,1000000,10000000`), else 100k and 1M. */
export function snapshotSizes(args: string[] = []): number[] {
  const listed = (args.length ? args : (process.env.BENCH_SNAPSHOT_SIZES ?? '').split(',')).map(Number).filter((n) => n > 0);
  return listed.length ? listed : [100_000, 1_000_000];
}

/**
 * Prints one row per size: Switchyard's snapshot end to end (SQL built, run in the DuckDB process, every
 * metric analysed) next to the hand-written query run in the same kind of process, with their ratio, the
 * CPU time of each DuckDB process and its peak resident memory. Each side runs `repeats` times (alternating),
 * and the fastest run of each counts: on a shared machine, the fastest is the one least slowed by others.
 */
export async function benchSnapshot(sizes = snapshotSizes()): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of sizes) {
    const folder = await generate(n);
    const repeats = n >= 10_000_000 ? 1 : 3;
    let ours = { seconds: Infinity, cpu: 0, peak: 0, rows: [] as Record<string, unknown>[], units: 0 };
    let theirs = { seconds: Infinity, cpu: 0, peak: 0, rows: [] as Record<string, unknown>[] };
    for (let i = 0; i < repeats; i++) {
      const started = performance.now();
      const frozen = benchInputs(folder);
      const queries = buildSnapshotQueries(frozen);
      const run = await runDuckDbQueries(queries, { dataDir });
      const { summary } = analyseSnapshotRows('snp_bench', frozen, queries, run.rowsByQuery, new Date());
      const seconds = (performance.now() - started) / 1000;
      if (seconds < ours.seconds) {
        ours = { seconds, cpu: run.cpuSeconds, peak: run.peakMemoryBytes, rows: run.rowsByQuery[queries[0]!.id]!, units: summary.dimensions[0]?.totalUsers ?? 0 };
      }

      const handStarted = performance.now();
      const hand = await runDuckDbQueries([{ id: 'hand', sql: handWrittenQuery(folder) }], { dataDir });
      const handSeconds = (performance.now() - handStarted) / 1000;
      if (handSeconds < theirs.seconds) theirs = { seconds: handSeconds, cpu: hand.cpuSeconds, peak: hand.peakMemoryBytes, rows: hand.rowsByQuery.hand! };
    }
    assertSameAggregates(ours.rows, theirs.rows);
    const mb = (bytes: number) => round(bytes / 1024 / 1024, 0);
    rows.push({
      'exposure rows': n,
      events: 2 * n,
      metrics: metrics.length,
      units: ours.units,
      runs: repeats,
      'Switchyard, end to end (s)': round(ours.seconds, 2),
      'hand-written query (s)': round(theirs.seconds, 2),
      '× hand-written': round(ours.seconds / theirs.seconds, 2),
      'Switchyard DuckDB CPU (s)': round(ours.cpu, 2),
      'hand-written CPU (s)': round(theirs.cpu, 2),
      'CPU × hand-written': round(ours.cpu / theirs.cpu, 2),
      'peak memory, Switchyard DuckDB process (MB)': mb(ours.peak),
      'peak memory, hand-written (MB)': mb(theirs.peak),
    });
  }
  printTable('Snapshot on DuckDB (5 metrics, one fact table) next to a hand-written query', rows);
  saveResults('snapshot', { rows, load: loadavg().map((l) => round(l, 1)) });
  return rows;
}

if (require.main === module) {
  benchSnapshot(snapshotSizes(process.argv.slice(2))).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
