import { athenaClientFor, readAthenaResults } from '../../shared/analysis/aws/athena-results';
import { athenaQueryRuns } from '../../shared/analysis/aws/query-executions';
import type { AnalyseInput } from '../../shared/analysis/aws/workflow';
import { analyseMetricAnalysis } from '../../shared/analysis/analyse-metric-analysis';
import { isMetricAnalysisId, METRIC_ANALYSIS_QUERY_ID } from '../../shared/analysis/metric-analysis-outcome';
import { analyseSnapshot } from '../../shared/analysis/snapshot-run';
import { recordQueryRuns } from '../../shared/store/queries';

/**
 * Last working state of the snapshot state machine: reads every query's rows from Athena and analyses them, into the
 * snapshot or, for a `metan_` id, the metric analysis.
 */
export async function handler(input: AnalyseInput): Promise<void> {
  const athena = await athenaClientFor(input.orgId, input.snapshotId);
  const rows = await Promise.all(input.executions.map(async (execution) => [execution.id, await readAthenaResults(execution.queryExecutionId, athena)] as const));
  if (isMetricAnalysisId(input.snapshotId)) {
    // A metric analysis keeps no query records: its one query's SQL is on the analysis itself.
    await analyseMetricAnalysis(input.orgId, input.snapshotId, Object.fromEntries(rows)[METRIC_ANALYSIS_QUERY_ID] ?? []);
    return;
  }
  await recordQueryRuns(input.orgId, input.snapshotId, await athenaQueryRuns(input.executions, athena));
  await analyseSnapshot(input.orgId, input.snapshotId, Object.fromEntries(rows));
}
