import { athenaClientFor, readAthenaResults } from '../../shared/analysis/aws/athena-results';
import { athenaQueryRuns } from '../../shared/analysis/aws/query-executions';
import type { AnalyseInput } from '../../shared/analysis/aws/workflow';
import { analyseSnapshot } from '../../shared/analysis/snapshot-run';
import { recordQueryRuns } from '../../shared/store/queries';

/** Last working state of the snapshot state machine: reads every query's rows from Athena and analyses them. */
export async function handler(input: AnalyseInput): Promise<void> {
  const athena = await athenaClientFor(input.orgId, input.snapshotId);
  const rows = await Promise.all(input.executions.map(async (execution) => [execution.id, await readAthenaResults(execution.queryExecutionId, athena)] as const));
  await recordQueryRuns(input.orgId, input.snapshotId, await athenaQueryRuns(input.executions, athena));
  await analyseSnapshot(input.orgId, input.snapshotId, Object.fromEntries(rows));
}
