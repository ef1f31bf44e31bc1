import { ConflictError, InvalidInputError } from '../errors';
import type { RevisionRecord } from '../domain/revisions';
import { tableName } from '../db/client';
import { keys, type RevisionOf } from '../db/keys';
import { getItems, queryAll, transact, type TransactionOp } from '../db/repository';

/**
 * The revision engine's storage, shared by every resource with drafts (features, saved groups; configs
 * and constants later). A revision is stored next to its resource (`<TYPE>_REVISION#<id>#<version>`):
 * published ones never change; drafts are edited, each write conditional on `changeCount` and
 * `status` as read, so concurrent edits never lose one another. Numbers are taken in order (1, 2,
 * 3...) with a conditional create, so the newest revision's number is also how many there are.
 */

export type { RevisionRecord };

/** Which revisions a list keeps. */
export interface RevisionFilter {
  statuses?: string[];
  author?: string;
  /** Revisions created or edited by this member or key. */
  mine?: string;
}

/** Whether a revision passes the filter. */
export const matches = (revision: RevisionRecord, { statuses, author, mine }: RevisionFilter) =>
  (!statuses?.length || statuses.includes(revision.status)) &&
  (!author || revision.createdBy === author) &&
  (!mine || revision.createdBy === mine || !!revision.contributors?.includes(mine));

/** What a revision item may weigh, leaving room for keys and attribute names under DynamoDB's 400 KB. */
const MAX_REVISION_BYTES = 350 * 1024;

const hasFilter = (filter: RevisionFilter) => !!(filter.statuses?.length || filter.author || filter.mine);

/**
 * The revisions of one resource type, stored as `R`; `idField` names the attribute that holds the
 * resource's id in the record (`featureId`, `savedGroupId`).
 */
export function revisionStore<R extends RevisionRecord>(
  type: RevisionOf,
  idField: keyof R & string,
  /** Attributes the item carries besides the record (a list index's keys), from the record as stored. */
  listed: (orgId: string, record: R) => Record<string, unknown> = () => ({}),
) {
  const entityType = `${type}_REVISION`;
  const toRecord = ({ PK: _pk, SK: _sk, GSI1PK: _lpk, GSI1SK: _lsk, listTags: _tags, entityType: _type, ...record }: Record<string, unknown>) =>
    record as unknown as R;
  const idOf = (record: R) => record[idField] as unknown as string;
  const query = (orgId: string, id: string) => ({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.revision(orgId, type, id, 0).PK, ':prefix': keys.revisionPrefix(type, id) } as Record<string, unknown>,
  });

  async function newestVersion(orgId: string, id: string): Promise<number> {
    const [newest] = await queryAll({ ...query(orgId, id), ScanIndexForward: false, ProjectionExpression: 'SK', ConsistentRead: true }, 1);
    return newest ? Number((newest.SK as string).slice(keys.revisionPrefix(type, id).length)) : 0;
  }

  // DynamoDB stores at most 400 KB per item (a list group's revision holds its values twice): refused, not a 500.
  const assertStorable = (record: R) => {
    if (Buffer.byteLength(JSON.stringify(record)) > MAX_REVISION_BYTES) {
      throw new InvalidInputError(`The revision is too large to store: keep it under ${MAX_REVISION_BYTES / 1024} KB`);
    }
  };

  /** The Put of a new revision under its number, conditional on the number being free (a lost race reads again). */
  function prepareCreate(orgId: string, record: R): TransactionOp {
    assertStorable(record);
    return {
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.revision(orgId, type, idOf(record), record.version), entityType, ...record, ...listed(orgId, record) },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: () => new ConflictError('conflict', `Revision ${record.version} of ${idOf(record)} was taken by another request; retry`),
    };
  }

  /**
   * The Put that replaces a revision as read with its next state, conditional on nobody having changed
   * it since (`changeCount` and `status` as read); `written` is the revision as it will be stored.
   */
  function prepareWrite(orgId: string, read: R, next: R, options: { touch?: boolean } = {}): { written: R } & TransactionOp {
    // `touch: false` keeps `dateUpdated` (a comment is no change of the draft).
    const written = {
      ...next,
      changeCount: (read.changeCount ?? 0) + 1,
      dateUpdated: options.touch === false ? next.dateUpdated : new Date().toISOString(),
    };
    assertStorable(written);
    return {
      written,
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.revision(orgId, type, idOf(read), read.version), entityType, ...written, ...listed(orgId, written) },
          // A revision published without ever being a draft has no count yet.
          ...(read.changeCount === undefined
            ? {
                ConditionExpression: 'attribute_not_exists(changeCount) AND #status = :status',
                ExpressionAttributeValues: { ':status': read.status },
              }
            : {
                ConditionExpression: 'changeCount = :changeCount AND #status = :status',
                ExpressionAttributeValues: { ':changeCount': read.changeCount, ':status': read.status },
              }),
          ExpressionAttributeNames: { '#status': 'status' },
        },
      },
      onConditionFailed: () => new ConflictError('conflict', `Revision ${read.version} of ${idOf(read)} was changed by another request; retry`),
    };
  }

  return {
    prepareCreate,
    prepareWrite,
    toRecord,

    /** The number of a resource's newest revision (draft or published), 0 when it has none. One Query of one key. */
    newestVersion,

    /** One revision, any status, or undefined. One GetItem. */
    async read(orgId: string, id: string, version: number): Promise<R | undefined> {
      const [item] = await getItems([keys.revision(orgId, type, id, version)]);
      return item ? toRecord(item) : undefined;
    },

    /** Replaces a revision as read with its next state (see `prepareWrite`); answers it as written. */
    async write(orgId: string, read: R, next: R, options: { touch?: boolean } = {}): Promise<R> {
      const { written, ...op } = prepareWrite(orgId, read, next, options);
      await transact([op]);
      return written;
    },

    /**
     * One page of a resource's revisions, newest first, with the total. Unfiltered, the page is one
     * Query of a key range (numbers run 1..newest, so offset and limit name the range): the same cost
     * at any offset. A filter reads the resource's revisions and filters them.
     */
    async listPage(
      orgId: string,
      id: string,
      page: { limit: number; offset: number; filter?: RevisionFilter },
    ): Promise<{ items: R[]; total: number }> {
      const filter = page.filter ?? {};
      if (hasFilter(filter)) {
        const all = (await queryAll({ ...query(orgId, id), ScanIndexForward: false, ConsistentRead: true })).map(toRecord);
        const kept = all.filter((revision) => matches(revision, filter));
        return { items: kept.slice(page.offset, page.offset + page.limit), total: kept.length };
      }
      const total = await newestVersion(orgId, id);
      const highest = total - page.offset;
      const lowest = Math.max(1, highest - page.limit + 1);
      if (highest < 1 || page.limit < 1) return { items: [], total };
      const items = await queryAll({
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
        ExpressionAttributeValues: {
          ':pk': keys.revision(orgId, type, id, 0).PK,
          ':low': keys.revision(orgId, type, id, lowest).SK,
          ':high': keys.revision(orgId, type, id, highest).SK,
        },
        ScanIndexForward: false,
        ConsistentRead: true,
      });
      return { items: items.map(toRecord), total };
    },

    /** The newest `max` revisions of a resource whose status is one of `statuses` (all when absent), newest first. */
    async latest(orgId: string, id: string, max: number, statuses?: string[]): Promise<R[]> {
      if (!statuses) return (await queryAll({ ...query(orgId, id), ScanIndexForward: false, ConsistentRead: true }, max)).map(toRecord);
      const base = query(orgId, id);
      const values = Object.fromEntries(statuses.map((status, i) => [`:s${i}`, status]));
      // A filtered Query counts items before the filter; queryAll reads on until `max` are kept.
      const items = await queryAll(
        {
          ...base,
          FilterExpression: `#status IN (${Object.keys(values).join(', ')})`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ...values },
          ScanIndexForward: false,
          ConsistentRead: true,
        },
        max,
      );
      return items.map(toRecord);
    },

    /**
     * Every revision of every resource of this type in the organization that passes `filter`: one
     * Query of the organization's partition over the type's key prefix (no index), for the
     * organization-wide list, which sorts and pages what it gets.
     */
    async allOfType(orgId: string, filter: RevisionFilter = {}): Promise<R[]> {
      const items = await queryAll({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.revision(orgId, type, '', 0).PK, ':prefix': keys.revisionTypePrefix(type) },
        ConsistentRead: true,
      });
      return items.map(toRecord).filter((revision) => matches(revision, filter));
    },
  };
}
