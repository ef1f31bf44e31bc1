import { athenaClientFor, readAthenaResults } from '../../shared/analysis/aws/athena-results';
import type { AnalyseInput } from '../../shared/analysis/aws/workflow';
import { analyseSnapshot } from '../../shared/analysis/snapshot-run';

/** Last working state of the snapshot state machine: reads every query's rows from Athena and analyses them. */
export async function handler(input: AnalyseInput): Promise<void> {
  const athena = await athenaClientFor(input.orgId, input.snapshotId);
  const rows = await Promise.all(input.executions.map(async (execution) => [execution.id, await readAthenaResults(execution.queryExecutionId, athena)] as const));
  await analyseSnapshot(input.orgId, input.snapshotId, Object.fromEntries(rows));
}
