import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { queryAll } from '../db/repository';
import type { PayloadEntry } from './types';

/**
 * The stored payload of an environment as a reader sees it: its version items (one Query) and its
 * entries, cached per warm container and re-read only for the shards whose version moved (see write.ts
 * for the layout).
 */

/** The versions of an environment's payload as one Query read them. */
export interface PayloadVersions {
  /** Equal tokens mean equal stored payloads (entries and references). */
  token: string;
  /** The environment's shard versions, by shard. */
  versions: Map<string, number>;
  /** The latest `dateUpdated` of the version items; undefined when nothing was ever written. */
  dateUpdated?: string;
}

const isShard = (suffix: string) => /^\d\d$/.test(suffix);

/**
 * One consistent Query of the organization's version items, keeping the 16 references versions
 * and `environment`'s 16 shard versions: about 2 KB per environment and 2 KB more, so 1 RCU for one
 * environment and 1 more per two after that. Every SDK payload request makes it, so its input and
 * answer stay in attribute values (`db.queryWire`): it reads the three attributes it needs as they come.
 */
export async function readPayloadVersions(orgId: string, environment: string): Promise<PayloadVersions> {
  const prefix = keys.sdkVersionPrefix(environment);
  const referencesPrefix = keys.sdkReferencesVersionPrefix();
  const versions = new Map<string, number>();
  const references: string[] = [];
  let dateUpdated: string | undefined;
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    // All version items share a prefix, so one Query reads the references versions with the shards
    // (and other environments' shards, which are left out here: keys cannot be filtered on).
    const page = await db.queryWire({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :all)',
      ExpressionAttributeValues: { ':pk': { S: keys.sdkVersion(orgId, environment, '').PK }, ':all': { S: keys.sdkAllVersionsPrefix() } },
      ExpressionAttributeNames: { '#version': 'version' },
      ProjectionExpression: 'SK, #version, dateUpdated',
      ConsistentRead: true,
      ExclusiveStartKey,
    });
    for (const item of page.Items ?? []) {
      const SK = item.SK.S!;
      const shard = SK.slice(prefix.length);
      if (SK.startsWith(referencesPrefix)) references.push(`${SK.slice(referencesPrefix.length)}:${item.version.N}`);
      else if (SK.startsWith(prefix) && isShard(shard)) versions.set(shard, Number(item.version.N));
      else continue; // another environment's, or a per-environment `refs` item from before the organization's: never bumped now
      const date = item.dateUpdated?.S;
      if (date && (!dateUpdated || date > dateUpdated)) dateUpdated = date;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const token = [`refs ${references.join(',')}`, ...[...versions].map(([shard, version]) => `${shard}:${version}`)].join(',');
  return { token, versions, dateUpdated };
}

/** An environment's payload content at some versions: its entries. */
export interface PayloadState extends PayloadVersions {
  shards: Map<string, Record<string, PayloadEntry>>;
  /** Every entry of the environment, by feature id. */
  entries: Record<string, PayloadEntry>;
}

/** Per warm container: the last state read of each environment. */
const states = new Map<string, PayloadState>();
/** Refreshes under way, so concurrent requests that find the same change read it once. */
const refreshing = new Map<string, Promise<PayloadState>>();
const MAX_CACHED_STATES = 200;

/** More shards changed than this, and one Query of all the environment's entries costs fewer calls than one per shard. */
const QUERY_PER_SHARD_UP_TO = 2;

/** The entries under `prefix` (one shard's, or the whole environment's), by shard and feature id. */
async function readEntries(orgId: string, environment: string, prefix: string): Promise<Map<string, Record<string, PayloadEntry>>> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.sdkVersion(orgId, environment, '').PK, ':prefix': prefix },
    ProjectionExpression: 'SK, featureId, entry',
    ConsistentRead: true,
  });
  const shardAt = keys.sdkEntryPrefix(environment).length;
  const shards = new Map<string, Record<string, PayloadEntry>>();
  for (const item of items) {
    const shard = (item.SK as string).slice(shardAt, shardAt + 2);
    if (!shards.has(shard)) shards.set(shard, {});
    shards.get(shard)![item.featureId as string] = JSON.parse(item.entry as string) as PayloadEntry;
  }
  return shards;
}

/**
 * The payload content of an environment at `versions` (just read): this container's cached state
 * when the versions are the same, otherwise the cached state with the entries of the shards whose
 * version moved read again (every shard the first time). The entries read are at least as new as
 * `versions`, so a state is never older than its token says; at worst a later request reads a shard again.
 */
export async function payloadState(orgId: string, environment: string, versions: PayloadVersions): Promise<PayloadState> {
  const cacheKey = `${orgId}\n${environment}`;
  const cached = states.get(cacheKey);
  if (cached?.token === versions.token) return cached;
  const refreshKey = `${cacheKey}\n${versions.token}`;
  let pending = refreshing.get(refreshKey);
  if (!pending) {
    pending = refreshState(orgId, environment, versions, cached).finally(() => refreshing.delete(refreshKey));
    refreshing.set(refreshKey, pending);
  }
  const state = await pending;
  states.delete(cacheKey);
  states.set(cacheKey, state);
  if (states.size > MAX_CACHED_STATES) states.delete(states.keys().next().value!);
  return state;
}

async function refreshState(orgId: string, environment: string, versions: PayloadVersions, previous?: PayloadState): Promise<PayloadState> {
  const changed = [...versions.versions.keys()].filter((shard) => previous?.versions.get(shard) !== versions.versions.get(shard));
  const prefixes =
    changed.length > QUERY_PER_SHARD_UP_TO ? [keys.sdkEntryPrefix(environment)] : changed.map((shard) => keys.sdkEntryShardPrefix(environment, shard));
  const read = await Promise.all(prefixes.map((prefix) => readEntries(orgId, environment, prefix)));
  const shards = new Map(previous?.shards);
  for (const shard of changed) shards.set(shard, read.find((found) => found.has(shard))?.get(shard) ?? {});
  const entries: Record<string, PayloadEntry> = {};
  for (const shard of shards.values()) Object.assign(entries, shard);
  return { ...versions, shards, entries };
}
