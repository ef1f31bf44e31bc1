import type { PutCommandInput, QueryCommandInput, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConflictError, DomainError, InvalidInputError, NotFoundError } from '../errors';
import { db, tableName } from './client';
import type { DynamoError } from './dynamo-http';
import { keys, storageAttributes, type EntityType, type ItemKey } from './keys';
import { decided, retryOnConflict } from './optimistic';
import { PageIndexMovedError, pageKeys, prepareAppend, prepareMarkStale, readPageIndex } from './page-index';
import type { Page } from '../domain/pagination';

/** Fields the store owns on every resource. */
export interface Dated {
  id: string;
  dateCreated: string;
  dateUpdated: string;
}

export type StoredItem = Record<string, unknown> & { version: number };

/** An entity together with the version it was read at, for writes conditional on that version. */
export interface Versioned<T> {
  entity: T;
  version: number;
}

export type { Page };

/** One write of a transaction, and the error to raise when its condition fails. */
export interface TransactionOp {
  op: NonNullable<TransactWriteCommandInput['TransactItems']>[number];
  onConditionFailed: () => DomainError;
}

/** DynamoDB stores at most 400 KB per item; leave room for keys and attribute names. */
const MAX_ITEM_BYTES = 350 * 1024;
const BATCH_GET_LIMIT = 100;

/** Strips storage attributes from an item read from the table. */
export function toEntity<T>(item: Record<string, unknown>): T {
  const entity: Record<string, unknown> = { ...item };
  for (const attribute of storageAttributes) delete entity[attribute];
  return entity as T;
}

/** Every item a Query matches (or the first `max`), following its pages. */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  max = Infinity,
): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let ExclusiveStartKey: QueryCommandInput['ExclusiveStartKey'];
  do {
    const Limit = max === Infinity ? input.Limit : Math.min(max - items.length, 1000);
    const page = await db.query({ TableName: tableName(), ...input, Limit, ExclusiveStartKey });
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < max);
  return items;
}

const now = () => new Date().toISOString();

const isConditionFailure = (error: unknown) => (error as Error)?.name === 'ConditionalCheckFailedException';

/** An item read from the table as its entity and the version it was read at. */
export function toVersioned<T>(item: Record<string, unknown>): Versioned<T> {
  return { entity: toEntity<T>(item), version: item.version as number };
}

/**
 * Reads items by key with consistent reads, in BatchGets of 100 keys (unprocessed keys retried);
 * the answer is aligned with `itemKeys`, undefined where no item is stored.
 */
export async function getItems(itemKeys: ItemKey[]): Promise<Array<StoredItem | undefined>> {
  const id = (key: ItemKey) => `${key.PK}|${key.SK}`;
  const unique = [...new Map(itemKeys.map((key) => [id(key), { PK: key.PK, SK: key.SK }])).values()];
  const found = new Map<string, StoredItem>();
  // The batches go out side by side, so many keys cost about one round trip, not one per hundred.
  const batches = Array.from({ length: Math.ceil(unique.length / BATCH_GET_LIMIT) }, (_, i) =>
    unique.slice(i * BATCH_GET_LIMIT, (i + 1) * BATCH_GET_LIMIT),
  );
  await Promise.all(
    batches.map(async (batch) => {
      let request: Record<string, { Keys: ItemKey[]; ConsistentRead: boolean }> | undefined = {
        [tableName()]: { Keys: batch, ConsistentRead: true },
      };
      while (request && Object.keys(request).length) {
        const result = await db.batchGet({ RequestItems: request });
        for (const item of result.Responses?.[tableName()] ?? []) found.set(id(item as ItemKey), item as StoredItem);
        request = result.UnprocessedKeys as typeof request;
      }
    }),
  );
  return itemKeys.map((key) => found.get(id(key)));
}

/** A reference a request body makes: the id, and the field that names it. */
export interface Reference {
  field: string;
  id: string;
}

/**
 * Raises 400 naming the field of the first reference whose id names nothing in `repo` for this
 * organization. One BatchGet per hundred distinct ids.
 */
export async function assertReferences(
  orgId: string,
  repo: { label: string; getMany(orgId: string, ids: string[]): Promise<{ id: string }[]> },
  references: Reference[],
): Promise<void> {
  if (references.length === 0) return;
  const found = new Set((await repo.getMany(orgId, references.map((r) => r.id))).map((entity) => entity.id));
  const missing = references.find((r) => !found.has(r.id));
  if (missing) {
    throw new InvalidInputError(`Request body: [${missing.field}] no ${repo.label.toLowerCase()} has the id ${missing.id}`);
  }
}

/** DynamoDB's limit of items in one TransactWriteItems call. */
export const TRANSACTION_MAX_ITEMS = 100;

/** Writes several items atomically; a failed condition raises the error its op names. */
export async function transact(ops: TransactionOp[]): Promise<void> {
  try {
    await db.transactWrite({ TransactItems: ops.map((o) => o.op) });
  } catch (error) {
    if ((error as Error)?.name === 'TransactionCanceledException') {
      const reasons = (error as DynamoError).CancellationReasons ?? [];
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw ops[failed].onConditionFailed();
      if (reasons.some((r) => r.Code === 'TransactionConflict')) {
        throw new ConflictError('conflict', 'Another change to the same data happened at the same time; retry');
      }
    }
    throw error;
  }
}

/** A tag an item must carry on the list index, or a list of tags of which it must carry one. */
export type ListTagFilter = string | string[];

/** Which listed items the caller may see, judged from their list tags (read access by project); absent: all. */
export type ListVisibility = (tags: string[]) => boolean;

export interface RepositoryOptions<T> {
  type: EntityType;
  /** How error messages name the resource, e.g. "Saved group". */
  label: string;
  /** Values a list can filter on (e.g. `project:prj_1`), kept on the list index. */
  listTags?: (entity: T) => string[];
  /**
   * Keep a page index (see page-index.ts) so an unfiltered page at any offset costs the same. For
   * resources whose organizations hold thousands of items; creates then cost one more write.
   */
  pageIndex?: boolean;
  /**
   * Ops written in the same transaction as every create, update (`after` set) and delete of this
   * type: the version of something other readers cache (the SDK payload's references version, say).
   */
  touch?: (orgId: string, change: { id: string; after?: T }) => TransactionOp[];
}

/**
 * A versioned repository of one resource type in the single table. Every write is conditional:
 * creates on the id being free, updates and deletes on the version that was read.
 */
export function repository<T extends Dated>(options: RepositoryOptions<T>) {
  const { type, label } = options;
  const notFound = (id: string) => new NotFoundError(`${label} ${id} not found`);
  const taken = (id: string) => new ConflictError('already_exists', `${label} ${id} already exists`);
  const changedMeanwhile = (id: string) =>
    new ConflictError('conflict', `${label} ${id} was changed by another request; retry`);

  function toItem(orgId: string, entity: T, version: number): StoredItem {
    if (Buffer.byteLength(JSON.stringify(entity)) > MAX_ITEM_BYTES) {
      throw new InvalidInputError(`${label} is too large to store: keep it under ${MAX_ITEM_BYTES / 1024} KB`);
    }
    const key = keys.entity(orgId, type, entity.id);
    return {
      ...(entity as Record<string, unknown>),
      ...key,
      GSI1PK: keys.listPartition(orgId, type),
      GSI1SK: keys.listSort(entity.dateCreated, entity.id),
      entityType: type,
      version,
      ...(options.listTags ? { listTags: options.listTags(entity) } : {}),
    };
  }

  async function read(orgId: string, id: string): Promise<Versioned<T> | undefined> {
    const { Item } = await db.get({ TableName: tableName(), Key: keys.entity(orgId, type, id), ConsistentRead: true });
    return Item ? toVersioned<T>(Item) : undefined;
  }

  /** Readies a new entity and the conditional Put that creates it, for use inside a transaction. */
  function prepareCreate(orgId: string, data: Omit<T, 'dateCreated' | 'dateUpdated'>, date = now()): { entity: T } & TransactionOp {
    const entity = { ...data, dateCreated: date, dateUpdated: date } as T;
    return {
      entity,
      op: { Put: { TableName: tableName(), Item: toItem(orgId, entity, 1), ConditionExpression: 'attribute_not_exists(PK)' } },
      onConditionFailed: () => taken(entity.id),
    };
  }

  /** Readies the Put that replaces `current` by `next`, conditional on the version `current` was read at. */
  function prepareUpdate(orgId: string, current: Versioned<T>, next: T): { entity: T } & TransactionOp {
    const entity = { ...next, id: current.entity.id, dateCreated: current.entity.dateCreated, dateUpdated: now() };
    return {
      entity,
      op: {
        Put: {
          TableName: tableName(),
          Item: toItem(orgId, entity, current.version + 1),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': current.version },
        },
      },
      onConditionFailed: () => changedMeanwhile(entity.id),
    };
  }

  /**
   * Walks the keys-only list index; returns the keys in creation order, with their list sort keys.
   * An item matches when it carries every tag; a list of tags matches when it carries any of them,
   * and `visible` (when given) passes its tags: the index holds them, so hiding costs no extra read.
   */
  async function listKeys(orgId: string, tags: ListTagFilter[], visible?: ListVisibility): Promise<(ItemKey & { sort: string })[]> {
    const found: (ItemKey & { sort: string })[] = [];
    const values: Record<string, string> = {};
    const clauses = tags.map((tag, i) => {
      const anyOf = (Array.isArray(tag) ? tag : [tag]).map((one, j) => {
        values[`:tag${i}_${j}`] = one;
        return `contains(listTags, :tag${i}_${j})`;
      });
      return anyOf.length === 1 ? anyOf[0] : `(${anyOf.join(' OR ')})`;
    });
    const filter = tags.length ? { FilterExpression: clauses.join(' AND '), ExpressionAttributeValues: values } : { ExpressionAttributeValues: {} };
    const items = await queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ...filter,
      ExpressionAttributeValues: { ...filter.ExpressionAttributeValues, ':pk': keys.listPartition(orgId, type) },
      ProjectionExpression: visible ? 'PK, SK, GSI1SK, listTags' : 'PK, SK, GSI1SK',
    });
    for (const item of items) {
      if (visible && !visible((item.listTags as string[] | undefined) ?? [])) continue;
      found.push({ PK: item.PK, SK: item.SK, sort: item.GSI1SK });
    }
    return found;
  }

  /** Reads whole items by key, keeping the order of `itemKeys` and leaving out the ones that are gone. */
  async function readItems(itemKeys: ItemKey[]): Promise<T[]> {
    return (await getItems(itemKeys)).flatMap((item) => (item ? [toEntity<T>(item)] : []));
  }

  /** A create that also appends to the page index, in one transaction; retried when the index moved meanwhile. */
  async function createIndexed(orgId: string, data: Omit<T, 'dateCreated' | 'dateUpdated'>): Promise<T> {
    return retryOnConflict(async () => {
      const index = await readPageIndex(orgId, type);
      const created = prepareCreate(orgId, data);
      const sort = keys.listSort(created.entity.dateCreated, created.entity.id);
      await transact([created, prepareAppend(orgId, type, index, sort), ...touches(orgId, created.entity.id, created.entity)]);
      return created.entity;
    });
  }

  const touches = (orgId: string, id: string, after?: T): TransactionOp[] => options.touch?.(orgId, { id, after }) ?? [];

  return {
    type,
    label,
    read,
    prepareCreate,
    prepareUpdate,

    /** Stores a new entity; 409 `already_exists` when the id is taken. */
    async create(orgId: string, data: Omit<T, 'dateCreated' | 'dateUpdated'>): Promise<T> {
      if (options.pageIndex) return createIndexed(orgId, data);
      const { entity, op, onConditionFailed } = prepareCreate(orgId, data);
      // The touch can lose a race to another writer of it; the id being taken (already_exists) is no race.
      if (options.touch) {
        return retryOnConflict(async () => {
          await transact([{ op, onConditionFailed }, ...touches(orgId, entity.id, entity)]);
          return entity;
        });
      }
      try {
        await db.put(op.Put as PutCommandInput);
      } catch (error) {
        if (isConditionFailure(error)) throw onConditionFailed();
        throw error;
      }
      return entity;
    },

    /** The ops a transaction that creates or deletes this type must add, so lists stay right. */
    prepareListChange(orgId: string): TransactionOp[] {
      return options.pageIndex ? [prepareMarkStale(orgId, type)] : [];
    },

    /** The entity, or undefined when it does not exist in this organization. */
    async find(orgId: string, id: string): Promise<T | undefined> {
      return (await read(orgId, id))?.entity;
    },

    /** The entity; 404 when it does not exist in this organization. */
    async get(orgId: string, id: string): Promise<T> {
      const found = await read(orgId, id);
      if (!found) throw notFound(id);
      return found.entity;
    },

    /**
     * Read-modify-write: applies `change` to the current entity and writes the result on condition
     * that nobody wrote in between; on a race it re-reads and applies `change` again.
     */
    async update(orgId: string, id: string, change: (current: T) => T | Promise<T>): Promise<T> {
      return retryOnConflict(async () => {
        const current = await read(orgId, id);
        if (!current) throw notFound(id);
        const update = prepareUpdate(orgId, current, await decided(() => change(current.entity)));
        if (options.touch) await transact([update, ...touches(orgId, id, update.entity)]);
        else await db.put(update.op.Put as PutCommandInput);
        return update.entity;
      }, () => changedMeanwhile(id));
    },

    /**
     * Deletes the entity and returns what it was (undefined when a type with a touch deletes it
     * unread); 404 when it does not exist. With `check`, the current entity is read first and `check`
     * may refuse (by throwing, also asynchronously); the delete is then conditional on the version that was checked.
     */
    async remove(orgId: string, id: string, check?: (current: T) => void | Promise<void>): Promise<T | undefined> {
      return retryOnConflict(async () => {
        const current = check ? await read(orgId, id) : undefined;
        if (check && !current) throw notFound(id);
        if (current) await decided(() => check!(current.entity));
        try {
          const deleteItem = {
            TableName: tableName(),
            Key: keys.entity(orgId, type, id),
            ...(current
              ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': current.version } }
              : { ConditionExpression: 'attribute_exists(PK)' }),
          };
          if (options.pageIndex) {
            const before = current ?? (await read(orgId, id));
            if (!before) throw notFound(id);
            await transact([
              { op: { Delete: deleteItem }, onConditionFailed: () => new PageIndexMovedError() },
              prepareMarkStale(orgId, type),
              ...touches(orgId, id),
            ]);
            return before.entity;
          }
          if (options.touch) {
            // Unread (no check), the delete's condition fails only when there is nothing to delete.
            const failed = () => (current ? changedMeanwhile(id) : notFound(id));
            await transact([{ op: { Delete: deleteItem }, onConditionFailed: failed }, ...touches(orgId, id)]);
            return current?.entity;
          }
          const { Attributes } = await db.delete({ ...deleteItem, ReturnValues: 'ALL_OLD' });
          // No old item when an earlier attempt of this delete was applied and its answer lost (see dynamo-http.ts).
          return Attributes ? toEntity<T>(Attributes) : current?.entity;
        } catch (error) {
          // Unread, a plain delete's condition fails only when there is nothing to delete: no race.
          if (isConditionFailure(error) && !current && !options.pageIndex && !options.touch) throw notFound(id);
          throw error;
        }
      }, () => changedMeanwhile(id));
    },

    /**
     * One page in creation order. Counting and skipping read only the list index's keys;
     * whole items are read for the page alone. With `visible`, the page and the total count only
     * what the caller may see (as GrowthBook filters before it paginates).
     */
    async list(orgId: string, page: { limit: number; offset: number; tags?: ListTagFilter[]; visible?: ListVisibility }): Promise<Page<T>> {
      const tags = page.tags ?? [];
      if (page.visible) {
        const all = await listKeys(orgId, tags, page.visible);
        const items = await readItems(all.slice(page.offset, page.offset + page.limit).map(({ PK, SK }) => ({ PK, SK })));
        return { items, total: all.length };
      }
      const index = options.pageIndex && tags.length === 0 ? await readPageIndex(orgId, type) : undefined;
      if (index && !index.stale) {
        const items = await readItems(await pageKeys(keys.listPartition(orgId, type), index, page));
        return { items, total: index.count };
      }
      // Stale (or not built yet): walk the keys. A list never writes (GET roles only read); the scheduler rebuilds it.
      const all = await listKeys(orgId, tags);
      const items = await readItems(all.slice(page.offset, page.offset + page.limit).map(({ PK, SK }) => ({ PK, SK })));
      return { items, total: all.length };
    },

    /** Every entity of this type in the organization, in creation order (for small, unpaginated lists). */
    async all(orgId: string): Promise<T[]> {
      const items = await queryAll({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.entity(orgId, type, '').PK, ':prefix': keys.entityPrefix(type) },
        ConsistentRead: true,
      });
      return items
        .map((item) => toEntity<T>(item))
        // Code-point order (ISO timestamps sort by time in it): localeCompare would load ICU's collator, ~25 ms of a cold start.
        .sort((a, b) => (a.dateCreated !== b.dateCreated ? (a.dateCreated < b.dateCreated ? -1 : 1) : a.id < b.id ? -1 : 1));
    },

    /** The entities with these ids that exist, in the order asked. */
    async getMany(orgId: string, ids: string[]): Promise<T[]> {
      return readItems([...new Set(ids)].map((id) => keys.entity(orgId, type, id)));
    },

    /** The entities with these ids that exist, each with the version it was read at, in the order asked. */
    async readMany(orgId: string, ids: string[]): Promise<Versioned<T>[]> {
      const items = await getItems([...new Set(ids)].map((id) => keys.entity(orgId, type, id)));
      return items.flatMap((item) => (item ? [toVersioned<T>(item)] : []));
    },

    /** Every entity carrying all of `tags` on the list index, in creation order (for small, unpaginated lists). */
    async allTagged(orgId: string, tags: string[], visible?: ListVisibility): Promise<T[]> {
      return readItems((await listKeys(orgId, tags, visible)).map(({ PK, SK }) => ({ PK, SK })));
    },
  };
}

export type Repository<T extends Dated> = ReturnType<typeof repository<T>>;
