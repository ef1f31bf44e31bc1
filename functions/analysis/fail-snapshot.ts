import { failureOf, type FailInput } from '../../shared/analysis/aws/workflow';
import { failSnapshot } from '../../shared/analysis/snapshot-run';

/**
 * Records a failed snapshot run: called by the state machine's Catch with the error, and by an
 * EventBridge rule when an execution times out or is stopped, so no snapshot stays `running`.
 */
export async function handler(input: FailInput): Promise<void> {
  const { orgId, snapshotId, message } = failureOf(input);
  await failSnapshot(orgId, snapshotId, message);
}
