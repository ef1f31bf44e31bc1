import type { StoredSnapshot } from '../contracts/snapshots';
import { newEvent, prepareEvent } from '../store/events';
import { retryOnConflict } from '../db/optimistic';
import { transact, type TransactionOp } from '../db/repository';
import { NewerSnapshotHoldsPointerError } from '../store/snapshot-results';
import { snapshots } from '../store/snapshots';
import { emitMetrics } from '../metrics';

/*
 * How a snapshot run ends, kept apart from the statistics and the SQL so that the snapshot endpoint,
 * which only starts runs, bundles none of them.
 */

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
    const ops = [update, prepareEvent(event)];
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
