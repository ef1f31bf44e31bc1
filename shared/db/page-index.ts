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

/**
 * An extendable index records no creates: lists count the keys after `lastSort` (the tail) beside it,
 * and the scheduler folds the tail in this often. For lists whose creates ride on writes too frequent
 * and too concurrent to share one item (every feature change makes a revision): creates then write nothing.
 */
export const EXTEND_EVERY_MS = 60_000;

/** An extendable index whose list had nothing new is looked at again only after this long: idle organizations cost a write per 10 minutes, not per minute. */
export const EXTEND_IDLE_MS = 10 * EXTEND_EVERY_MS;

/** An index is rebuilt only when nothing changed for this long, so list-index lag cannot creep in. */
const settleMs = () => Number(process.env.PAGE_INDEX_SETTLE_MS ?? 5_000);

export interface PageIndex {
  count: number;
  marks: string[];
  /** The greatest list sort key, to tell an append from an insert. */
  lastSort: string;
  stale: boolean;
  /** Creates are not recorded: the keys after `lastSort` follow the marks (see EXTEND_EVERY_MS). */
  extendable?: boolean;
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

/** The attributes that put an index on the due index: a stale one to be rebuilt once the list index has settled. */
function due(orgId: string, type: EntityType, changedAt: string, after = settleMs()) {
  return {
    GSI2PK: keys.pageIndexDuePartition(),
    GSI2SK: new Date(Date.parse(changedAt) + after).toISOString(),
    organization: orgId,
    entityId: type,
  };
}

function put(
  orgId: string,
  type: EntityType,
  index: Omit<PageIndex, 'version' | 'changedAt'>,
  previous?: PageIndex,
  changedAt = new Date().toISOString(),
  extendAfter = EXTEND_EVERY_MS,
) {
  return {
    TableName: tableName(),
    Item: {
      ...keys.pageIndex(orgId, type),
      entityType: 'PAGEINDEX',
      ...index,
      changedAt,
      version: (previous?.version ?? 0) + 1,
      // An extendable index stays due: the scheduler folds its tail in every EXTEND_EVERY_MS (EXTEND_IDLE_MS when idle).
      ...(index.stale ? due(orgId, type, changedAt) : index.extendable ? due(orgId, type, new Date().toISOString(), extendAfter) : {}),
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

/**
 * The transaction op that marks the page index stale (no read needed): for deletes and transactional
 * creates. `extendable` makes (or keeps) it an extendable index once rebuilt.
 */
export function prepareMarkStale(orgId: string, type: EntityType, options: { extendable?: boolean } = {}) {
  const now = new Date().toISOString();
  const { GSI2PK, GSI2SK, organization, entityId } = due(orgId, type, now);
  return {
    op: {
      Update: {
        TableName: tableName(),
        Key: keys.pageIndex(orgId, type),
        UpdateExpression:
          'SET stale = :true, changedAt = :now, entityType = :type, GSI2PK = :due, GSI2SK = :dueAt, organization = :org, entityId = :entity' +
          (options.extendable ? ', extendable = :true' : '') +
          ' ADD version :one',
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
 * The transaction op that makes an extendable page index where there is none (stale, due for its
 * first build) and changes nothing where there is one: no version is bumped, so it never moves an
 * index another writer read. For the creates that may be a list's first (a feature's first revision).
 */
export function prepareEnsureExtendable(orgId: string, type: EntityType) {
  const now = new Date().toISOString();
  const { GSI2PK, GSI2SK, organization, entityId } = due(orgId, type, now);
  const missing = (name: string) => `${name} = if_not_exists(${name}, :${name.replace('#', '')})`;
  return {
    op: {
      Update: {
        TableName: tableName(),
        Key: keys.pageIndex(orgId, type),
        UpdateExpression: `SET ${['#count', 'marks', 'lastSort', 'stale', 'extendable', 'changedAt', 'entityType', 'version', 'GSI2PK', 'GSI2SK', 'organization', 'entityId'].map(missing).join(', ')}`,
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: {
          ':count': 0,
          ':marks': [],
          ':lastSort': '',
          ':stale': true,
          ':extendable': true,
          ':changedAt': now,
          ':entityType': 'PAGEINDEX',
          ':version': 1,
          ':GSI2PK': GSI2PK,
          ':GSI2SK': GSI2SK,
          ':organization': organization,
          ':entityId': entityId,
        },
      },
    },
    onConditionFailed: () => new PageIndexMovedError(),
  };
}

/** The keys of a list index after `index.lastSort` (an extendable index's tail), oldest first. */
export async function tailKeys(listPartition: string, index: PageIndex): Promise<Array<ItemKey & { sort: string }>> {
  const found: Array<ItemKey & { sort: string }> = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    // An index built from an empty list has no last key: its tail is the whole list (DynamoDB refuses an empty key value).
    const result = await db.query({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: index.lastSort ? 'GSI1PK = :pk AND GSI1SK > :last' : 'GSI1PK = :pk',
      ExpressionAttributeValues: index.lastSort ? { ':pk': listPartition, ':last': index.lastSort } : { ':pk': listPartition },
      ProjectionExpression: 'PK, SK, GSI1SK',
      ExclusiveStartKey,
    });
    for (const item of result.Items ?? []) found.push({ PK: item.PK, SK: item.SK, sort: item.GSI1SK });
    ExclusiveStartKey = result.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}

/**
 * Rebuilds a stale index from a walk of every key of the list index, unless the list changed too
 * recently (the list index may still lag) or changes meanwhile (the write is conditional on the
 * version read). Answers whether it saved one.
 */
export async function rebuildPageIndex(orgId: string, type: EntityType): Promise<boolean> {
  const previous = await readPageIndex(orgId, type);
  if (previous && !previous.stale && previous.extendable) return extendPageIndex(orgId, type, previous);
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
    ...(previous.extendable ? { extendable: true } : {}),
  };
  return saveRebuilt(orgId, type, index, previous);
}

/**
 * Folds an extendable index's tail in (reading only the tail's keys); saved, and due again, even when
 * the tail is empty. Keys sorted after the settle time ago stay in the tail: one written just before
 * may not be on the list index yet, and counted after a later one it would shift every position.
 */
async function extendPageIndex(orgId: string, type: EntityType, previous: PageIndex): Promise<boolean> {
  const settled = new Date(Date.now() - settleMs()).toISOString();
  const all = await tailKeys(keys.listPartition(orgId, type), previous);
  const tail = all.filter(({ sort }) => sort < settled);
  const marks = [...previous.marks, ...tail.flatMap(({ sort }, i) => ((previous.count + i) % STRIDE === 0 ? [sort] : []))];
  const index = { count: previous.count + tail.length, marks, lastSort: tail.at(-1)?.sort ?? previous.lastSort, stale: false, extendable: true };
  return saveRebuilt(orgId, type, index, previous, all.length ? EXTEND_EVERY_MS : EXTEND_IDLE_MS);
}

async function saveRebuilt(
  orgId: string,
  type: EntityType,
  index: Omit<PageIndex, 'version' | 'changedAt'>,
  previous: PageIndex,
  extendAfter?: number,
): Promise<boolean> {
  try {
    // A Put without the due attributes: the rebuilt index leaves the due index (an extendable one is due again later).
    await db.put(put(orgId, type, index, previous, previous.changedAt, extendAfter));
    return true;
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    return false; // changed meanwhile: it is due again, later
  }
}

/**
 * Rebuilds every page index due by `now` (the scheduler's job), `limit` at a time, oldest first, up to
 * `maxPages` pages a run; answers how many it rebuilt. Every organization's revision list stays due
 * (extendable), so one page per run would leave stale indexes behind the queue.
 */
export async function rebuildDuePageIndexes(now = new Date(), limit = 100, maxPages = 20): Promise<number> {
  let rebuilt = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await db.query({
      TableName: tableName(),
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':pk': keys.pageIndexDuePartition(), ':now': now.toISOString() },
      ExpressionAttributeNames: { '#org': 'organization', '#type': 'entityId' },
      ProjectionExpression: '#org, #type',
      Limit: limit,
      ExclusiveStartKey,
    });
    const done = await Promise.all((result.Items ?? []).map((item) => rebuildPageIndex(item.organization as string, item.entityId as EntityType)));
    rebuilt += done.filter(Boolean).length;
    ExclusiveStartKey = result.LastEvaluatedKey;
    if (!ExclusiveStartKey) break;
  }
  return rebuilt;
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
