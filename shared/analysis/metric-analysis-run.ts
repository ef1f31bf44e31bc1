import { logger } from '../logger';
import type { FrozenMetric } from './inputs';
import { metricAnalyses } from '../store/metric-analyses';
import { metricAnalysisResult } from './metric-analysis';
import { finishMetricAnalysis, METRIC_ANALYSIS_QUERY_ID as QUERY_ID } from './metric-analysis-outcome';
import { snapshotTimeoutMs, trackLocalRun } from './snapshot-run';

/**
 * Runs a stored metric analysis in this process on DuckDB without waiting for it, as a local snapshot runs: it always
 * ends `success` (with its result) or `error` (with the engine's message, or the timeout's), never stays `running`.
 */
export function runMetricAnalysisLocally(orgId: string, analysisId: string, metricType: FrozenMetric['type']): void {
  const run = async () => {
    const analysis = await metricAnalyses.get(orgId, analysisId);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`The analysis did not finish within ${snapshotTimeoutMs() / 1000} s and was stopped`)), snapshotTimeoutMs());
    let outcome: { status: 'success'; result: ReturnType<typeof metricAnalysisResult> } | { status: 'error'; error: string };
    try {
      // Loaded on use, as the snapshot run loads it: DuckDB is for local runs only.
      const { runDuckDbQueries } = await import('./engines/duckdb');
      const { rowsByQuery } = await runDuckDbQueries([{ id: QUERY_ID, sql: analysis.sql }], { signal: controller.signal });
      outcome = { status: 'success', result: metricAnalysisResult(rowsByQuery[QUERY_ID] ?? [], { type: metricType }, analysis.ratio) };
    } catch (error) {
      outcome = { status: 'error', error: (controller.signal.reason as Error | undefined)?.message ?? (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
    await finishMetricAnalysis(orgId, analysisId, outcome);
  };
  trackLocalRun(run().catch((error) => logger.error('Metric analysis could not record its outcome', { orgId, analysisId, error })));
}
