import { startSnapshotStateMachine } from './aws/start-run';
import type { FrozenMetric } from './inputs';
import { failMetricAnalysis } from './metric-analysis-outcome';

/*
 * Kept out of Lambda bundles by a specifier esbuild does not follow, as the snapshot's local run is: it carries the
 * DuckDB engine, which only `npm start` and the tests run.
 */
const localRunModule: string = './metric-analysis-run';

/**
 * Starts a stored metric analysis without waiting for it. In AWS (`SNAPSHOT_STATE_MACHINE_ARN` set) it starts the
 * snapshot state machine with the analysis's id (its `metan_` prefix tells the machine's steps what they run); locally
 * it runs in this process on DuckDB.
 */
export async function startMetricAnalysisRun(orgId: string, analysisId: string, metricType: FrozenMetric['type']): Promise<void> {
  if (!process.env.SNAPSHOT_STATE_MACHINE_ARN) {
    const { runMetricAnalysisLocally } = (await import(localRunModule)) as typeof import('./metric-analysis-run');
    runMetricAnalysisLocally(orgId, analysisId, metricType);
    return;
  }
  try {
    await startSnapshotStateMachine({ orgId, snapshotId: analysisId });
  } catch (error) {
    // The workflow never started, so nothing else will finish this analysis.
    await failMetricAnalysis(orgId, analysisId, `The analysis could not be started: ${(error as Error).message}`);
  }
}
