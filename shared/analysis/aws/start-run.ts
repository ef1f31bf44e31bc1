import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

let client: SFNClient | undefined;

/** Input of the snapshot state machine: which snapshot of which organization to compute. */
export interface SnapshotRunInput {
  orgId: string;
  /** A snapshot's id, or a metric analysis's (`metan_…`), which the same machine runs (shared/analysis/metric-analysis-outcome.ts). */
  snapshotId: string;
}

/**
 * Starts the snapshot state machine (`SNAPSHOT_STATE_MACHINE_ARN`) for one snapshot. The execution
 * is named after the snapshot, so a retried request cannot start the same snapshot twice: Step
 * Functions refuses a second execution of that name, which counts here as already started.
 */
export async function startSnapshotStateMachine(input: SnapshotRunInput): Promise<void> {
  const stateMachineArn = process.env.SNAPSHOT_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('SNAPSHOT_STATE_MACHINE_ARN is not set');
  client ??= new SFNClient({});
  try {
    await client.send(new StartExecutionCommand({ stateMachineArn, name: executionName(input.snapshotId), input: JSON.stringify(input) }));
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists || (error as Error)?.name === 'ExecutionAlreadyExists') return;
    throw error;
  }
}

/** An execution name Step Functions accepts (1–80 of letters, digits, `-` and `_`) that is the snapshot id when it can be. */
export function executionName(snapshotId: string): string {
  return snapshotId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
}
