import { payloadEntry } from './entries';
import { attributes } from '../store/attributes';
import { saveAttributeTypes } from '../store/attribute-types';
import { retryOnConflict } from '../db/optimistic';
import { db, tableName } from '../db/client';
import { allFeatures } from '../store/features';
import { keys, type ItemKey } from '../db/keys';
import { shardOf, touchSdkPayloads, versionBump } from './versions';
import { organizationIndexKeys } from '../store/organizations';
import { getItems, queryAll } from '../db/repository';

/**
 * `npm run admin -- migrate-payloads`: brings a deployment's stored SDK payloads to the per-feature
 * layout. Per organization it writes the payload entry of every served feature (only where none
 * is stored, so a newer entry is never overwritten), the complete attribute-types item, bumps the
 * version items so warm containers rebuild, and deletes the former items: the whole-payload gzip
 * chunks (`SDK_PAYLOAD#<env>#<n>`) and the per-environment `SDK_VERSION#<env>#refs` items. Running
 * it again changes nothing but the versions. It also lists the organization on the organizations'
 * index, for an organization created before that index.
 */

/** What one organization's migration did. */
export interface PayloadMigration {
  orgId: string;
  entriesWritten: number;
  entriesKept: number;
  formerItemsDeleted: number;
  attributeTypesWritten: boolean;
}

const PARALLEL_WRITES = 16;

/** Runs `work` on every item with at most `PARALLEL_WRITES` at once. */
async function eachInParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_WRITES, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) await work(items[i]);
    }),
  );
}

/** Puts an entry unless one is stored; true when it wrote. */
async function putEntryIfAbsent(item: Record<string, unknown>): Promise<boolean> {
  try {
    await db.put({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' });
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Deletes items by key, 25 per BatchWrite (unprocessed ones retried). */
async function deleteAll(itemKeys: ItemKey[]): Promise<void> {
  for (let start = 0; start < itemKeys.length; start += 25) {
    let request: Record<string, unknown[]> | undefined = {
      [tableName()]: itemKeys.slice(start, start + 25).map(({ PK, SK }) => ({ DeleteRequest: { Key: { PK, SK } } })),
    };
    while (request && Object.keys(request).length) {
      const result = await db.batchWrite({ RequestItems: request as never });
      request = result.UnprocessedItems as typeof request;
    }
  }
}

async function writeAttributeTypes(orgId: string): Promise<boolean> {
  // An attribute written meanwhile: read them again.
  return retryOnConflict(async () => {
    const [all, [current]] = await Promise.all([attributes.all(orgId), getItems([keys.attributeTypes(orgId)])]);
    return saveAttributeTypes(orgId, all, current);
  });
}

/** Migrates one organization's stored SDK payloads (see above). */
export async function migratePayloads(orgId: string): Promise<PayloadMigration> {
  await listOrganization(orgId);
  const features = await allFeatures(orgId, { all: [] });
  const entries = features.flatMap((feature) =>
    Object.keys(feature.environments).flatMap((environment) => {
      const entry = payloadEntry(feature, environment);
      if (!entry) return [];
      const shard = shardOf(feature.id);
      const Key = keys.sdkEntry(orgId, environment, shard, feature.id);
      return [{ environment, shard, item: { ...Key, entityType: 'SDK_ENTRY', version: 1, featureId: feature.id, entry: JSON.stringify(entry) } }];
    }),
  );
  let entriesWritten = 0;
  await eachInParallel(entries, async ({ item }) => {
    if (await putEntryIfAbsent(item)) entriesWritten += 1;
  });
  const attributeTypesWritten = await writeAttributeTypes(orgId);

  // Every shard that holds an entry gets a version item, so readers find its entries.
  const shards = new Map(entries.map(({ environment, shard }) => [`${environment}#${shard}`, keys.sdkVersion(orgId, environment, shard)]));
  await eachInParallel([...shards.values()], async (Key) => {
    try {
      await db.update(versionBump(Key, new Date().toISOString()));
    } catch (error) {
      // A write meanwhile moved it already, with a later date.
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  });
  await touchSdkPayloads(orgId);

  const partition = keys.organization(orgId).PK;
  const former = await Promise.all(
    [keys.formerSdkPayloadPrefix(), keys.sdkVersionsPrefix()].map((prefix) =>
      queryAll({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
        ProjectionExpression: 'PK, SK',
      }),
    ),
  );
  const formerItems = [...former[0], ...former[1].filter((item) => (item.SK as string).endsWith('#refs'))] as ItemKey[];
  await deleteAll(formerItems);
  return { orgId, entriesWritten, entriesKept: entries.length - entriesWritten, formerItemsDeleted: formerItems.length, attributeTypesWritten };
}

/**
 * Every listed organization's id: one Query of the organizations' partition of GSI2. An organization
 * created before that index existed is not listed until it is migrated once with `--org`.
 */
export async function allOrganizationIds(): Promise<string[]> {
  const items = await queryAll({
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.organizationsPartition() },
  });
  return items.map((item) => item.GSI2SK as string);
}

/** Lists an organization created before the organizations' index on it (no effect on one already listed). */
async function listOrganization(orgId: string): Promise<void> {
  const index = organizationIndexKeys(orgId);
  await db.update({
    TableName: tableName(),
    Key: keys.organization(orgId),
    UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':pk': index.GSI2PK, ':sk': index.GSI2SK },
  });
}
