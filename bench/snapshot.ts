/**
 * Snapshot wall time and peak memory on embedded DuckDB: one experiment with 5 metrics on one fact
 * table (proportion, capped mean with CUPED, count, ratio, distinct days), over N exposure rows and
 * 2N events generated as Parquet. Measures what a local snapshot run does between its frozen inputs
 * and its results: build the SQL, run it in the DuckDB process, analyse every metric. Storing the
 * results (a few DynamoDB items) is left out. `npx tsx bench/snapshot.ts 100000 1000000`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { runDuckDbQueries } from '../shared/analysis/engines/duckdb';
import type { AnalysisInputs, FrozenMetric } from '../shared/analysis/inputs';
import { analyseSnapshotRows } from '../shared/analysis/results';
import { buildSnapshotQueries } from '../shared/analysis/sql/snapshot-queries';
import { printTable, round, saveResults, type Row } from './report';

const dataDir = path.resolve(process.env.BENCH_ANALYSIS_DIR || '.data/bench-analysis');
const PHASE_SECONDS = 14 * 24 * 3600;

/** Writes `n` exposure rows and 2n events as Parquet under the bench data directory (once per size). */
async function generate(n: number): Promise<string> {
  const folder = `n${n}`;
  if (existsSync(path.join(dataDir, folder, 'events.parquet'))) return folder;
  mkdirSync(path.join(dataDir, folder), { recursive: true });
  const units = Math.max(1, Math.floor(n * 0.8));
  await runDuckDbQueries(
    [
      {
        id: 'exposures',
        sql: `COPY (
  SELECT 'u' || (i % ${units}) AS user_id,
    TIMESTAMP '2024-03-01' + to_seconds(CAST(hash(i, 1) % ${PHASE_SECONDS} AS BIGINT)) AS timestamp,
    'bench' AS experiment_id,
    CAST(CASE WHEN hash(i, 2) % 100 = 0 THEN 1 - hash(i % ${units}, 3) % 2 ELSE hash(i % ${units}, 3) % 2 END AS VARCHAR) AS variation_id
  FROM range(${n}) t(i)
) TO '${folder}/exposures.parquet' (FORMAT parquet)`,
      },
      {
        id: 'events',
        sql: `COPY (
  SELECT 'u' || (hash(i, 4) % ${units}) AS user_id,
    TIMESTAMP '2024-02-20' + to_seconds(CAST(hash(i, 5) % ${PHASE_SECONDS + 20 * 24 * 3600} AS BIGINT)) AS timestamp,
    CASE WHEN hash(i, 6) % 4 = 0 THEN 'purchase' ELSE 'pageview' END AS event_type,
    (hash(i, 7) % 10000) / 100.0 + CASE WHEN hash(i, 8) % 1000 = 0 THEN 5000 ELSE 0 END AS amount
  FROM range(${2 * n}) t(i)
) TO '${folder}/events.parquet' (FORMAT parquet)`,
      },
    ],
    { dataDir },
  );
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

function inputs(folder: string): AnalysisInputs {
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

/** Prints one row per size: exposure rows, events, wall time and peak memory of the DuckDB process. */
export async function benchSnapshot(sizes = [100_000, 1_000_000, 10_000_000]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of sizes) {
    const folder = await generate(n);
    const started = performance.now();
    const frozen = inputs(folder);
    const queries = buildSnapshotQueries(frozen);
    const run = await runDuckDbQueries(queries, { dataDir });
    const { summary } = analyseSnapshotRows('snp_bench', frozen, queries, run.rowsByQuery, new Date());
    const seconds = (performance.now() - started) / 1000;
    rows.push({
      'exposure rows': n,
      events: 2 * n,
      metrics: metrics.length,
      units: summary.dimensions[0]?.totalUsers,
      'wall time (s)': round(seconds, 2),
      'peak memory, DuckDB process (MB)': round(run.peakMemoryBytes / 1024 / 1024, 0),
    });
  }
  printTable('Snapshot on DuckDB (5 metrics, one fact table)', rows);
  saveResults('snapshot', { rows });
  return rows;
}

if (require.main === module) {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  benchSnapshot(sizes.length ? sizes : undefined).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
