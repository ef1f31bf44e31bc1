import { ConflictError } from '../errors';
import { db, tableName } from './client';
import { keys, type EntityType, type ItemKey } from './keys';

/**
 * A page index lets a paginated list jump to any offset without walking the keys before it.
 *
 * One item per organization and entity type holds the exact `count` and a mark (the list sort
 * key) of every STRIDE-th entity in creation order. A page at offset 9,900 reads that item, then
 * at most STRIDE + limit keys from the list index starting at the nearest mark, then the page.
 *
 * Creates that append (the usual case) keep it exact in the same transaction as the entity.
 * Anything else that changes positions (a delete, a create out of order, a create inside another
 * transaction) marks it stale in the same transaction, and due for a rebuild once the list index
 * has settled (GSI2, `PAGE_INDEX_DUE`). Lists meanwhile walk the keys; the scheduler rebuilds due
 * indexes (`rebuildDuePageIndexes`). Lists never write: GET functions' roles may only read.
 */
export const STRIDE = 100;

/** An index is rebuilt only when nothing changed for this long, so list-index lag cannot creep in. */
const settleMs = () => Number(process.env.PAGE_INDEX_SETTLE_MS ?? 5_000);

export interface PageIndex {
  count: number;
  marks: string[];
  /** The greatest list sort key, to tell an append from an insert. */
  lastSort: string;
  stale: boolean;
  changedAt: string;
  version: number;
}

/** Raised inside a create when another writer moved the page index first; the create retries. */
export class PageIndexMovedError extends ConflictError {
  constructor() {
    super('conflict', 'The list changed at the same time; retry');
  }
}

export async function readPageIndex(orgId: string, type: EntityType): Promise<PageIndex | undefined> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.pageIndex(orgId, type), ConsistentRead: true });
  return Item as PageIndex | undefined;
}

/** The attributes that put a stale index on the due index, to be rebuilt once the list index has settled. */
function due(orgId: string, type: EntityType, changedAt: string) {
  return {
    GSI2PK: keys.pageIndexDuePartition(),
    GSI2SK: new Date(Date.parse(changedAt) + settleMs()).toISOString(),
    organization: orgId,
    entityId: type,
  };
}

function put(orgId: string, type: EntityType, index: Omit<PageIndex, 'version' | 'changedAt'>, previous?: PageIndex, changedAt = new Date().toISOString()) {
  return {
    TableName: tableName(),
    Item: {
      ...keys.pageIndex(orgId, type),
      entityType: 'PAGEINDEX',
      ...index,
      changedAt,
      version: (previous?.version ?? 0) + 1,
      ...(index.stale ? due(orgId, type, changedAt) : {}),
    },
    ...(previous
      ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': previous.version } }
      : { ConditionExpression: 'attribute_not_exists(PK)' }),
  };
}

/** The transaction op that records a create whose list sort key is `sort`: exact when it appends, stale otherwise. */
export function prepareAppend(orgId: string, type: EntityType, current: PageIndex | undefined, sort: string) {
  const appends = current && !current.stale && sort > current.lastSort;
  const next = appends
    ? {
        count: current.count + 1,
        marks: current.count % STRIDE === 0 ? [...current.marks, sort] : current.marks,
        lastSort: sort,
        stale: false,
      }
    : { count: 0, marks: [], lastSort: '', stale: true };
  return { op: { Put: put(orgId, type, next, current) }, onConditionFailed: () => new PageIndexMovedError() };
}

/** The transaction op that marks the page index stale (no read needed): for deletes and transactional creates. */
export function prepareMarkStale(orgId: string, type: EntityType) {
  const now = new Date().toISOString();
  const { GSI2PK, GSI2SK, organization, entityId } = due(orgId, type, now);
  return {
    op: {
      Update: {
        TableName: tableName(),
        Key: keys.pageIndex(orgId, type),
        UpdateExpression:
          'SET stale = :true, changedAt = :now, entityType = :type, GSI2PK = :due, GSI2SK = :dueAt, organization = :org, entityId = :entity ADD version :one',
        ExpressionAttributeValues: {
          ':true': true,
          ':now': now,
          ':type': 'PAGEINDEX',
          ':due': GSI2PK,
          ':dueAt': GSI2SK,
          ':org': organization,
          ':entity': entityId,
          ':one': 1,
        },
      },
    },
    onConditionFailed: () => new PageIndexMovedError(),
  };
}

/**
 * Rebuilds a stale index from a walk of every key of the list index, unless the list changed too
 * recently (the list index may still lag) or changes meanwhile (the write is conditional on the
 * version read). Answers whether it saved one.
 */
export async function rebuildPageIndex(orgId: string, type: EntityType): Promise<boolean> {
  const previous = await readPageIndex(orgId, type);
  if (!previous?.stale || Date.now() - Date.parse(previous.changedAt) < settleMs()) return false;
  const sorts: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const result = await db.query({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.listPartition(orgId, type) },
      ProjectionExpression: 'GSI1SK',
      ExclusiveStartKey,
    });
    for (const item of result.Items ?? []) sorts.push(item.GSI1SK as string);
    ExclusiveStartKey = result.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const index = {
    count: sorts.length,
    marks: sorts.filter((_, position) => position % STRIDE === 0),
    lastSort: sorts.at(-1) ?? '',
    stale: false,
  };
  try {
    // A Put without the due attributes: the rebuilt index leaves the due index.
    await db.put(put(orgId, type, index, previous, previous.changedAt));
    return true;
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    return false; // changed meanwhile: it is due again, later
  }
}

/** Rebuilds every page index due by `now` (the scheduler's job); answers how many it rebuilt. */
export async function rebuildDuePageIndexes(now = new Date(), limit = 100): Promise<number> {
  const { Items = [] } = await db.query({
    TableName: tableName(),
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
    ExpressionAttributeValues: { ':pk': keys.pageIndexDuePartition(), ':now': now.toISOString() },
    ExpressionAttributeNames: { '#org': 'organization', '#type': 'entityId' },
    ProjectionExpression: '#org, #type',
    Limit: limit,
  });
  const rebuilt = await Promise.all(Items.map((item) => rebuildPageIndex(item.organization as string, item.entityId as EntityType)));
  return rebuilt.filter(Boolean).length;
}

/** The keys of one page, read from the list index starting at the nearest mark. */
export async function pageKeys(
  listPartition: string,
  index: PageIndex,
  page: { offset: number; limit: number },
): Promise<ItemKey[]> {
  if (page.offset >= index.count) return [];
  const markAt = Math.floor(page.offset / STRIDE);
  const skip = page.offset - markAt * STRIDE;
  const found: ItemKey[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const result = await db.query({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK >= :mark',
      ExpressionAttributeValues: { ':pk': listPartition, ':mark': index.marks[markAt] },
      ProjectionExpression: 'PK, SK',
      Limit: skip + page.limit - found.length,
      ExclusiveStartKey,
    });
    for (const item of result.Items ?? []) found.push({ PK: item.PK, SK: item.SK });
    ExclusiveStartKey = result.LastEvaluatedKey;
  } while (ExclusiveStartKey && found.length < skip + page.limit);
  return found.slice(skip, skip + page.limit);
}
