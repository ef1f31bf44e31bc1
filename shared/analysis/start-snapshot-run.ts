import { startSnapshotStateMachine } from './aws/start-run';
import { failSnapshot } from './snapshot-outcome';

/*
 * Kept out of Lambda bundles by a specifier esbuild does not follow: the local run carries the SQL
 * builder, the statistics and the DuckDB engine, which only `npm start` and the tests run.
 */
const localRunModule: string = './snapshot-run';

/**
 * Starts a snapshot's run without waiting for it. In AWS (`SNAPSHOT_STATE_MACHINE_ARN` set) it
 * starts the Step Functions workflow, which owns retries, timeout and failure recording; locally it
 * runs in this process on DuckDB.
 */
export async function startSnapshotRun(orgId: string, snapshotId: string): Promise<void> {
  if (!process.env.SNAPSHOT_STATE_MACHINE_ARN) {
    const { runSnapshotLocally } = (await import(localRunModule)) as typeof import('./snapshot-run');
    runSnapshotLocally(orgId, snapshotId);
    return;
  }
  try {
    await startSnapshotStateMachine({ orgId, snapshotId });
  } catch (error) {
    // The workflow never started, so nothing else will finish this snapshot.
    await failSnapshot(orgId, snapshotId, `The snapshot could not be started: ${(error as Error).message}`);
  }
}
