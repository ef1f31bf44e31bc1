import { failedAthenaQuery } from '../../shared/analysis/aws/query-runs';
import { failureOf, type FailInput } from '../../shared/analysis/aws/workflow';
import { failMetricAnalysis, isMetricAnalysisId } from '../../shared/analysis/metric-analysis-outcome';
import { logger } from '../../shared/logger';
import { recordQueryRuns } from '../../shared/store/queries';
import { failSnapshot } from '../../shared/analysis/snapshot-run';

/**
 * Records a failed snapshot run: called by the state machine's Catch with the error, and by an
 * EventBridge rule when an execution times out or is stopped, so no snapshot stays `running`.
 * A metric analysis's run (a `metan_` id) is recorded on the analysis the same way.
 */
export async function handler(input: FailInput): Promise<void> {
  const { orgId, snapshotId, message } = failureOf(input);
  if (isMetricAnalysisId(snapshotId)) {
    await failMetricAnalysis(orgId, snapshotId, message);
    return;
  }
  const failedQuery = 'error' in input ? failedAthenaQuery(input.error) : undefined;
  // The query's own record is a detail: the snapshot's outcome is recorded even if it cannot be written.
  if (failedQuery) await recordQueryRuns(orgId, snapshotId, [failedQuery]).catch((error) => logger.error('Query outcome could not be recorded', { orgId, snapshotId, error }));
  await failSnapshot(orgId, snapshotId, message);
}
