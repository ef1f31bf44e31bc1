import { finish } from '../../shared/analysis/snapshot-outcome';
import { logger } from '../../shared/logger';
import { dropSnapshotWatch, overdueSnapshots, type OverdueSnapshot } from '../../shared/store/snapshots';

/**
 * Ends the snapshots whose run was lost: still `running` past their deadline (their timeout plus a
 * margin) because the function that created them died between its transaction and starting the
 * run, or the run stopped without recording an outcome (a local server stopped mid-run; in AWS, an
 * execution whose status rule or failure step did not get through). Each is found by its watch (shared/store/snapshots.ts), a Query of the due index, and
 * ended as a failure is: status `error` with a message and `experiment.snapshot.failed`, in one
 * transaction conditional on the snapshot's version, so of several runs at once exactly one ends it.
 */

export interface SweepResult {
  /** Snapshots this run ended as `error`. */
  ended: number;
  /** Watches of snapshots that had ended meanwhile (or are gone), removed. */
  cleared: number;
  /** Snapshots this run could not end: the next run tries again. */
  failed: number;
}

const lostRunMessage = (watch: OverdueSnapshot) =>
  `The snapshot was still running at its deadline (${watch.deadline}): its run was lost (it never started, or stopped without recording an outcome). Trigger a new snapshot.`;

/** Ends every snapshot overdue at `now` (at most `limit`), and reports how many it ended. */
export async function sweepLostSnapshots(options: { now?: Date; limit?: number } = {}): Promise<SweepResult> {
  const overdue = await overdueSnapshots(options.now ?? new Date(), options.limit ?? 100);
  const result: SweepResult = { ended: 0, cleared: 0, failed: 0 };
  for (const watch of overdue) {
    try {
      if (await finish(watch.orgId, watch.snapshotId, { status: 'error', error: lostRunMessage(watch) })) {
        result.ended += 1;
        logger.warn('A snapshot whose run was lost was ended as error', { orgId: watch.orgId, snapshotId: watch.snapshotId, deadline: watch.deadline });
      } else {
        // Ended by its run (or by another sweep) since the index was read, or deleted: only the watch is left.
        await dropSnapshotWatch(watch.orgId, watch.snapshotId);
        result.cleared += 1;
      }
    } catch (error) {
      logger.error('A lost snapshot could not be ended; the next run tries again', { orgId: watch.orgId, snapshotId: watch.snapshotId, error });
      result.failed += 1;
    }
  }
  if (overdue.length) logger.info('Lost snapshots swept', { overdue: overdue.length, ...result });
  return result;
}
