import { createHash } from 'node:crypto';
import { ConflictError } from '../errors';
import { retryOnConflict } from '../db/optimistic';
import { db, tableName } from '../db/client';
import { keys, type ItemKey } from '../db/keys';
import type { TransactionOp } from '../db/repository';

/**
 * The version items a cached SDK payload is checked against. Feature changes bump their
 * environment's shard versions (see write.ts); every other change a payload reads (saved
 * groups, experiments, attributes, environments, SDK connections, the salt, schedule boundaries)
 * bumps one of the organization's 16 references versions (`SDK_VERSION!<shard>`, by the id of
 * what changed) in the same transaction as the change where the change is a repository write,
 * otherwise with one write of its own. One item would do, but every such write in the organization
 * would then meet every other on it; 16 spread them as the feature shards do.
 */

export const PAYLOAD_SHARDS = 16;

/** The shard of an id, `00`..`15`: a stable hash of it. */
export function shardOf(id: string): string {
  const hash = createHash('sha1').update(id).digest();
  return String(hash.readUInt16BE(0) % PAYLOAD_SHARDS).padStart(2, '0');
}

/** The error a version write raises when it loses a race; every writer retries it. */
export const payloadChangedMeanwhile = () =>
  new ConflictError('conflict', 'The SDK payload was changed by another request at the same time; retry');

/**
 * Bumps one version item: `ADD` the version and move `dateUpdated` forward. The condition keeps
 * `dateUpdated` from going back when a write prepared earlier commits later (SDKs ignore a payload
 * older than the one they have): such a write fails and is retried with a fresh date.
 */
export function versionBump(Key: ItemKey, date: string) {
  return {
    TableName: tableName(),
    Key,
    UpdateExpression: 'ADD #version :one SET entityType = :type, dateUpdated = :date',
    ConditionExpression: 'attribute_not_exists(dateUpdated) OR dateUpdated <= :date',
    ExpressionAttributeNames: { '#version': 'version' },
    ExpressionAttributeValues: { ':one': 1, ':type': 'SDK_VERSION', ':date': date },
  };
}

/** The transaction op that says "the organization's payloads changed", to go with the write of `id`, something they read. */
export function prepareTouch(orgId: string, id: string): TransactionOp {
  return { op: { Update: versionBump(keys.sdkReferencesVersion(orgId, shardOf(id)), new Date().toISOString()) }, onConditionFailed: payloadChangedMeanwhile };
}

/**
 * Says "the organization's payloads changed" on its own, for a change not written through a
 * repository (the salt, a schedule boundary passing): one UpdateItem, so every cached payload is
 * rebuilt and its `dateUpdated` moves (SDKs only reload a payload whose `dateUpdated` moved).
 */
export async function touchSdkPayloads(orgId: string): Promise<void> {
  // Such changes are rare: one shard takes them all.
  await retryOnConflict(() => db.update(versionBump(keys.sdkReferencesVersion(orgId, '00'), new Date().toISOString())), payloadChangedMeanwhile);
}
