import type { StoredSnapshot } from '../contracts/snapshots';
import { newEvent, prepareEvent } from '../store/events';
import { retryOnConflict } from '../db/optimistic';
import { transact, type TransactionOp } from '../db/repository';
import { NewerSnapshotHoldsPointerError } from '../store/snapshot-results';
import { prepareSnapshotWatchEnd, snapshots } from '../store/snapshots';
import { emitMetrics } from '../metrics';

/*
 * How a snapshot run ends, kept apart from the statistics and the SQL so that the snapshot endpoint,
 * which only starts runs, bundles none of them.
 */

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
/**
 * Past its timeout, a run still has this long to record its outcome (the state machine's failure
 * step, a scheduler tick) before it counts as lost (`SNAPSHOT_LOST_MARGIN_MS`, 5 minutes).
 */
const lostRunMarginMs = () => Number(process.env.SNAPSHOT_LOST_MARGIN_MS ?? 5 * 60 * 1000);

/**
 * How long a snapshot may run (`SNAPSHOT_TIMEOUT_MS`): the local run stops it then, and in AWS the
 * stack sets it to the state machine's timeout (`analysisTimeoutMinutes`).
 */
export const snapshotTimeoutMs = () => Number(process.env.SNAPSHOT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS;

/** When a snapshot created at `now` counts as lost if it is still running: its timeout plus a margin. */
export const snapshotDeadline = (now: Date) => new Date(now.getTime() + snapshotTimeoutMs() + lostRunMarginMs()).toISOString();

const eventData = (snapshot: StoredSnapshot) => ({
  snapshotId: snapshot.id,
  phase: snapshot.phase,
  dimension: snapshot.dimension ?? null,
  status: snapshot.status,
  triggeredBy: snapshot.triggeredBy,
  ...(snapshot.error ? { error: snapshot.error } : {}),
});

/**
 * Moves a running snapshot to its final status in one transaction with `extra` writes and its
 * event; does nothing when it has already finished (a timeout or another worker got there first).
 */
export async function finish(
  orgId: string,
  snapshotId: string,
  change: Pick<StoredSnapshot, 'status'> & Partial<StoredSnapshot>,
  extra: (snapshot: StoredSnapshot) => TransactionOp[] = () => [],
): Promise<boolean> {
  return retryOnConflict(async () => {
    const current = await snapshots.read(orgId, snapshotId);
    if (!current) return false;
    if (current.entity.status !== 'running') return false;
    const update = snapshots.prepareUpdate(orgId, current, { ...current.entity, ...change });
    const event = newEvent(orgId, `experiment.snapshot.${change.status === 'success' ? 'completed' : 'failed'}`, {
      type: 'experiment',
      id: current.entity.experiment,
    }, eventData(update.entity));
    // The outcome ends the snapshot's watch (shared/store/snapshots.ts) in the same transaction.
    const ops = [update, prepareEvent(event), prepareSnapshotWatchEnd(orgId, snapshotId)];
    try {
      await transact([...ops, ...extra(current.entity)]);
    } catch (error) {
      if (!(error instanceof NewerSnapshotHoldsPointerError)) throw error;
      // A snapshot asked for later already serves these results: this one still succeeds, without the pointer.
      await transact(ops);
    }
    // Here, and only here, a snapshot ends, whichever worker (or timeout) ended it: its duration is measured once.
    emitMetrics({ Status: change.status }, [
      {
        dimensions: [['Service', 'Status']],
        metrics: [{ name: 'SnapshotDuration', unit: 'Milliseconds', value: Math.max(0, Date.now() - Date.parse(current.entity.dateCreated)) }],
      },
    ]);
    return true;
  });
}

/** Marks a running snapshot `error` with a message a user can act on, and writes `experiment.snapshot.failed`. */
export async function failSnapshot(orgId: string, snapshotId: string, message: string): Promise<void> {
  await finish(orgId, snapshotId, { status: 'error', error: message.slice(0, 4000) });
}
