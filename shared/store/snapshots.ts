import type { StoredSnapshot } from '../contracts/snapshots';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { queryAll, repository, type TransactionOp } from '../db/repository';
import { ConflictError } from '../errors';

export const snapshots = repository<StoredSnapshot>({
  type: 'SNAPSHOT',
  label: 'Snapshot',
  listTags: (snapshot) => [`experiment:${snapshot.experiment}`],
});

/*
 * A snapshot's watch: one item written in the transaction that creates the snapshot and deleted in
 * the one that records its outcome. The sparse index GSI2 lists it under `SNAPSHOT_DUE` by
 * deadline, so the scheduler finds snapshots whose run was lost (the function that created them
 * died before starting it, or the run stopped without recording anything) with a Query, never a scan.
 */

/** A watch whose deadline has passed. */
export interface OverdueSnapshot {
  orgId: string;
  snapshotId: string;
  deadline: string;
}

/** The write that starts watching a new snapshot, for the transaction that creates it. */
export function prepareSnapshotWatch(orgId: string, snapshotId: string, deadline: string): TransactionOp {
  return {
    op: {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.snapshotWatch(orgId, snapshotId),
          entityType: 'SNAPSHOT_WATCH',
          version: 1,
          organization: orgId,
          entityId: snapshotId,
          GSI2PK: keys.snapshotDuePartition(),
          GSI2SK: deadline,
        },
      },
    },
    onConditionFailed: () => new ConflictError('conflict', `Snapshot ${snapshotId} changed meanwhile; retry`),
  };
}

/** The delete that ends a snapshot's watch, for the transaction that records its outcome (a snapshot without one is fine). */
export function prepareSnapshotWatchEnd(orgId: string, snapshotId: string): TransactionOp {
  return {
    op: { Delete: { TableName: tableName(), Key: keys.snapshotWatch(orgId, snapshotId) } },
    onConditionFailed: () => new ConflictError('conflict', `Snapshot ${snapshotId} changed meanwhile; retry`),
  };
}

/** Ends the watch of a snapshot that has already ended (or is gone). */
export async function dropSnapshotWatch(orgId: string, snapshotId: string): Promise<void> {
  await db.delete({ TableName: tableName(), Key: keys.snapshotWatch(orgId, snapshotId) });
}

/** Watches whose deadline is at or before `now`, earliest first, at most `limit`: a Query of the sparse index. */
export async function overdueSnapshots(now: Date, limit: number): Promise<OverdueSnapshot[]> {
  const items = await queryAll(
    {
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':pk': keys.snapshotDuePartition(), ':now': now.toISOString() },
      ExpressionAttributeNames: { '#org': 'organization' },
      ProjectionExpression: '#org, GSI2SK, entityId',
    },
    limit,
  );
  return items.map((item) => ({ orgId: item.organization, snapshotId: item.entityId, deadline: item.GSI2SK }));
}
