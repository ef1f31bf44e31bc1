import { canonicalJson, type FeatureContent } from '../domain/features';
import { tableName } from '../db/client';
import { keys } from '../db/keys';
import type { TransactionOp } from '../db/repository';
import { withInheritedSettings, type EnvironmentParents } from './environment-inheritance';
import { payloadEntry } from './entries';
import { payloadChangedMeanwhile as changedMeanwhile, shardOf, versionBump } from './versions';

/**
 * The materialised SDK payload, stored so that a feature change writes a fixed amount whatever the
 * number of features:
 * - one entry item per feature and environment where it is served (`SDK_ENTRY#<env>#<shard>#<feature>`),
 *   put or deleted in the same transaction as the feature;
 * - per environment, 16 small version items, one per shard of the features (`SDK_VERSION#<env>#<shard>`).
 *   A feature change bumps its shard's version with an `ADD` in the same transaction;
 * - per organization, 16 references versions (`SDK_VERSION!<shard>`, see versions.ts) for
 *   everything else the payload reads: saved groups, experiments, attributes, environments, connections.
 * Sharding the version spreads concurrent writers of one organization over 16 items, so they seldom
 * meet; when two do, the transaction fails and the writer retries it.
 * A reader (state.ts) proves its cached payload current with one Query of the version items, and
 * after a change re-reads only the entries of the shards whose version moved.
 *
 * This file is the write entry point: what a transaction that changes the payload carries. Stores
 * call it, so it reads nothing and imports only shared/db and the pure files of the payload.
 */

/** The version writes other stores put in their transactions, and the retried bump of changes written outside one. */
export { payloadChangedMeanwhile, prepareTouch, shardOf, touchSdkPayloads } from './versions';

/**
 * A feature shard's bump names the projects of the features it changed, so the table's stream tells
 * which SDK connections the change reaches (proxy pushes); a references bump reaches them all.
 */
function shardBump(orgId: string, environment: string, shard: string, date: string, projects: Set<string>) {
  const bump = versionBump(keys.sdkVersion(orgId, environment, shard), date);
  return {
    ...bump,
    UpdateExpression: `${bump.UpdateExpression}, changedProjects = :projects`,
    ExpressionAttributeValues: { ...bump.ExpressionAttributeValues, ':projects': [...projects] },
  };
}

/** A feature before and after a change (undefined before a create, after a delete). */
export interface FeatureTransition {
  id: string;
  before?: FeatureContent;
  after?: FeatureContent;
}

/**
 * The payload writes that keep every environment's payload in step with these feature changes: the
 * entry of each feature in each environment where it changed (put, or deleted when no longer
 * served), and one version bump per environment and shard touched; a child environment (of
 * `parents`) where a feature has no settings gets its entry from its parent's. Reads nothing;
 * belongs in the same transaction as the feature writes.
 */
export function preparePayloadChanges(orgId: string, transitions: FeatureTransition[], parents: EnvironmentParents = new Map()): TransactionOp[] {
  const ops: TransactionOp[] = [];
  // One bump per environment and shard (one op per item and transaction), naming the projects changed.
  const bumps = new Map<string, { environment: string; shard: string; projects: Set<string> }>();
  const date = new Date().toISOString();
  for (const transition of transitions) {
    // Child environments' entries are written with their parents', so serving them reads nothing more.
    const { id } = transition;
    const before = transition.before && withInheritedSettings(transition.before, parents);
    const after = transition.after && withInheritedSettings(transition.after, parents);
    const shard = shardOf(id);
    const environmentIds = new Set([...Object.keys(before?.environments ?? {}), ...Object.keys(after?.environments ?? {})]);
    for (const environment of environmentIds) {
      const old = before && payloadEntry(before, environment);
      const next = after && payloadEntry(after, environment);
      if (canonicalJson(old ?? null) === canonicalJson(next ?? null)) continue;
      const Key = keys.sdkEntry(orgId, environment, shard, id);
      ops.push({
        op: next
          ? { Put: { TableName: tableName(), Item: { ...Key, entityType: 'SDK_ENTRY', version: 1, featureId: id, entry: JSON.stringify(next) } } }
          : { Delete: { TableName: tableName(), Key } },
        onConditionFailed: changedMeanwhile,
      });
      const bump = bumps.get(`${environment}#${shard}`) ?? { environment, shard, projects: new Set<string>() };
      for (const entry of [old, next]) if (entry) bump.projects.add(entry.project ?? '');
      bumps.set(`${environment}#${shard}`, bump);
    }
  }
  for (const { environment, shard, projects } of bumps.values()) {
    ops.push({ op: { Update: shardBump(orgId, environment, shard, date, projects) }, onConditionFailed: changedMeanwhile });
  }
  return ops;
}
