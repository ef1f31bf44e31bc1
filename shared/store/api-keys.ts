import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '../errors';
import type { Role } from '../permissions';
import { db, tableName } from '../db/client';
import { newId } from '../ids';
import { keys } from '../db/keys';
import { getItems, queryAll, toEntity } from '../db/repository';

/** What is stored for a key: never the secret, only its SHA-256 hash (in the item's key). */
export interface ApiKeyRecord {
  id: string;
  orgId: string;
  /** The role of an organization secret key; personal access tokens take their member's role. */
  role: Role | 'user';
  memberId?: string;
  description: string;
  dateCreated: string;
}

/** SHA-256 of a secret, hex-encoded: the only form in which a key is stored. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** A new secret: `secret_<role>_<32 random bytes, base64url>`; `secret_user_...` for tokens. */
export const newSecret = (role: Role | 'user') => `secret_${role}_${randomBytes(32).toString('base64url')}`;

/** Stores a key under the hash of `secret` (a new one unless given) and returns the secret once. */
export async function createApiKey(
  input: Omit<ApiKeyRecord, 'id' | 'dateCreated'> & { secret?: string },
): Promise<{ record: ApiKeyRecord; secret: string }> {
  const { secret = newSecret(input.role), ...fields } = input;
  const record: ApiKeyRecord = { ...fields, id: newId('key_'), dateCreated: new Date().toISOString() };
  try {
    await db.put({
      TableName: tableName(),
      Item: {
        ...record,
        ...keys.apiKey(hashSecret(secret)),
        GSI1PK: keys.listPartition(record.orgId, 'APIKEY'),
        GSI1SK: keys.listSort(record.dateCreated, record.id),
        entityType: 'APIKEY',
        version: 1,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') throw new ConflictError('already_exists', 'That key already exists');
    throw error;
  }
  return { record, secret };
}

/** The key stored under this hash, if any. One GetItem. */
export async function findApiKey(hash: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.apiKey(hash) });
  return Item ? toEntity<ApiKeyRecord>(Item) : undefined;
}

/** The organization's key items, oldest first (the list index is in creation order). */
async function keyItemsOf(orgId: string) {
  const found = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.listPartition(orgId, 'APIKEY') },
    ProjectionExpression: 'PK, SK',
  });
  const items = await getItems(found.map(({ PK, SK }) => ({ PK, SK })));
  return items.filter((item) => item !== undefined);
}

/** The organization's keys and tokens, oldest first, without their secrets. */
export async function listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
  return (await keyItemsOf(orgId)).map((item) => toEntity<ApiKeyRecord>(item));
}

/** Deletes a key by its record id; it stops working once warm containers' caches expire. */
export async function revokeApiKey(orgId: string, id: string): Promise<void> {
  const item = (await keyItemsOf(orgId)).find((candidate) => candidate.id === id);
  if (!item) throw new NotFoundError(`API key ${id} not found`);
  await db.delete({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } });
}
