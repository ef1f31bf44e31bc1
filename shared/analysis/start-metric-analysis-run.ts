import type { FrozenMetric } from './inputs';

/*
 * Kept out of Lambda bundles by a specifier esbuild does not follow, as the snapshot's local run is: it carries the
 * DuckDB engine, which only `npm start` and the tests run.
 */
const localRunModule: string = './metric-analysis-run';

/** Starts a stored DuckDB metric analysis in this process without waiting for it. */
export async function startMetricAnalysisRun(orgId: string, analysisId: string, metricType: FrozenMetric['type']): Promise<void> {
  const { runMetricAnalysisLocally } = (await import(localRunModule)) as typeof import('./metric-analysis-run');
  runMetricAnalysisLocally(orgId, analysisId, metricType);
}
