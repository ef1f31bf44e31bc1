import { ConflictError } from '../errors';
import type { FeatureRevisionRecord } from '../contracts/features';
import type { PendingRamp } from '../contracts/feature-revision-edits';
import type { RevisionFields, RevisionReview, RevisionStatus } from '../domain/revisions';
import type { RevisionLogEntry } from '../domain/revision-reviews';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { getItems, queryAll, transact, type TransactionOp, type Versioned } from '../db/repository';
import { pageKeys, prepareEnsureExtendable, prepareMarkStale, readPageIndex, tailKeys } from '../db/page-index';
import { revisionStore, type RevisionFilter } from './revisions';
import type { StoredFeature } from '../domain/features';

/**
 * A feature revision as stored, next to the feature (`FEATURE_REVISION#<feature>#<version>`): published
 * ones never change; drafts are edited, each edit conditional on `changeCount`. Numbers are shared by
 * drafts and published revisions and taken in order (1, 2, 3...) with a conditional create, so the
 * newest revision's number is also how many a feature has.
 */
export type StoredRevision = Omit<FeatureRevisionRecord, 'status'> &
  Partial<Omit<RevisionFields, 'defaultValue' | 'rules'>> & {
    status: RevisionStatus;
    dateUpdated?: string;
    datePublished?: string;
    title?: string;
    reviews?: RevisionReview[];
    /** Who edited the draft besides its author (member or key ids), for `mine`. */
    contributors?: string[];
    /** Edits so far: each draft write is conditional on it, so concurrent edits never lose one another. */
    changeCount?: number;
    /** Ramp schedules the draft creates for its rules when published (GrowthBook's `rampActions`). */
    rampActions?: PendingRamp[];
    /** What was done to the revision, oldest first; each entry is written with the action it records. */
    log?: RevisionLogEntry[];
  } & ScheduledPublish;

/** GrowthBook's deferred-publish fields of a draft (scheduled-publish.ts arms, fires and cancels them). */
export interface ScheduledPublish {
  autoPublishOnApproval?: boolean;
  /** Who armed the publish (member or key id); the publish runs with their authority, checked again when it fires. */
  autoPublishEnabledBy?: string;
  /** The key the armer used, to read that authority again when the publish fires. */
  scheduledPublishKeyId?: string;
  scheduledPublishAt?: string;
  scheduledPublishLockEdits?: boolean;
  scheduledPublishLockOthers?: boolean;
  scheduledPublishBypassApproval?: boolean;
  scheduledPublishAttempts?: number;
  scheduledPublishLastError?: string;
  /** When a failed publish is tried again: its schedule boundary is at this date. */
  scheduledPublishNextAttemptAt?: string;
  scheduledPublishGaveUpAt?: string;
}

/** A draft's record with all its fields (drafts always hold every field). */
export type StoredDraft = StoredRevision & RevisionFields & { changeCount: number; reviews: RevisionReview[]; dateUpdated: string };

/** A revision's place on the organization's revision list (GSI1): by creation date, which never changes. */
const revisionListSort = (record: Pick<StoredRevision, 'date' | 'featureId' | 'version'>) =>
  `${record.date}#${keys.featureRevision('', record.featureId, record.version).SK.slice(keys.entityPrefix('FEATURE_REVISION').length)}`;

/** What the revision list filters on without reading whole revisions: the feature, the status, the author and the contributors. */
const revisionListTags = (record: StoredRevision) => [
  `feature:${record.featureId}`,
  `status:${record.status}`,
  ...(record.createdBy ? [`author:${record.createdBy}`] : []),
  ...(record.contributors ?? []).map((by) => `contributor:${by}`),
];

/** A revision's entry on the organization's revision list (GSI1), written on its item. */
const revisionListEntry = (orgId: string, record: StoredRevision) => ({
  GSI1PK: keys.listPartition(orgId, 'FEATURE_REVISION'),
  GSI1SK: revisionListSort(record),
  listTags: revisionListTags(record),
});

/** The stored item of a revision: its keys, and its entry on the organization's revision list (GSI1). */
export function revisionItem(orgId: string, record: StoredRevision): Record<string, unknown> {
  return {
    ...keys.featureRevision(orgId, record.featureId, record.version),
    entityType: 'FEATURE_REVISION',
    ...record,
    ...revisionListEntry(orgId, record),
  };
}

const store = revisionStore<StoredRevision>('FEATURE', 'featureId', revisionListEntry);
const toRecord = store.toRecord;

/**
 * The op a feature's create writes beside its first revision: the organization's revision list gets
 * its (extendable) page index if it has none. Other revision writes touch no index: a list counts the
 * revisions since the index was last extended itself (page-index.ts, EXTEND_EVERY_MS), so concurrent
 * changes of different features never meet on one item.
 */
export const prepareRevisionListStart = (orgId: string): TransactionOp => prepareEnsureExtendable(orgId, 'FEATURE_REVISION');

/** The op that marks the revision list's page index stale: revisions were deleted (or written in bulk). */
export const prepareRevisionListRemoval = (orgId: string): TransactionOp => prepareMarkStale(orgId, 'FEATURE_REVISION', { extendable: true });

/** The number of a feature's newest revision (draft or published), 0 when it has none. One Query of one key. */
export const newestRevisionVersion = (orgId: string, featureId: string): Promise<number> => store.newestVersion(orgId, featureId);

/** One revision of a feature, any status, or undefined. One GetItem. */
export const readRevision = (orgId: string, featureId: string, version: number): Promise<StoredRevision | undefined> =>
  store.read(orgId, featureId, version);

/**
 * Stores a new draft of the feature as read under the next number, and records that number on the
 * feature, in one transaction conditional on the feature's version and the number being free: two
 * drafts created at once, or a draft and a change, never share a number (the loser gets
 * ConflictError `conflict`, to read again), with what `also` adds (its event). The feature's content,
 * and so what SDKs see, is untouched.
 */
export async function createDraft(
  orgId: string,
  current: Versioned<StoredFeature>,
  draft: Omit<StoredDraft, 'version' | 'featureId'>,
  also: (created: StoredDraft) => TransactionOp[] = () => [],
): Promise<StoredDraft> {
  const featureId = current.entity.id;
  const version = (current.entity.newestRevision ?? current.entity.revision.version) + 1;
  const record: StoredDraft = { ...draft, featureId, version };
  await transact([
    store.prepareCreate(orgId, record),
    {
      op: {
        Update: {
          TableName: tableName(),
          Key: keys.entity(orgId, 'FEATURE', featureId),
          UpdateExpression: 'SET newestRevision = :newest, version = :next',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':newest': version, ':next': current.version + 1, ':version': current.version },
        },
      },
      onConditionFailed: () => new ConflictError('conflict', `Revision ${version} of feature ${featureId} was taken by another request; retry`),
    },
    ...also(record),
  ]);
  return record;
}

/**
 * Replaces a draft as read with its next state (edited, rebased, discarded, reopened, reviewed),
 * conditional on nobody having changed it since: `changeCount` and `status` as read. `log` is appended to
 * the revision's log in the same write, and what `also` adds (its event, a schedule boundary) goes in the
 * same transaction. `touch: false` keeps `dateUpdated` (a comment is no change of the draft). Answers the
 * draft as written.
 */
export async function writeDraft(
  orgId: string,
  read: StoredRevision,
  next: StoredRevision,
  options: { log?: RevisionLogEntry; touch?: boolean; also?: (written: StoredRevision) => TransactionOp[] } = {},
): Promise<StoredRevision> {
  const logged = options.log ? { ...next, log: [...(next.log ?? []), options.log] } : next;
  const { written, ...op } = store.prepareWrite(orgId, read, logged, { touch: options.touch });
  await transact([op, ...(options.also?.(written) ?? [])]);
  return written;
}
export { matches, type RevisionFilter } from './revisions';

/**
 * One page of a feature's revisions, newest first, with the total. Unfiltered, the page is one Query
 * of a key range (numbers run 1..newest, so offset and limit name the range): the same cost at any
 * offset. A filter on status or author reads the feature's revisions and filters them.
 */
export const listRevisionPage = (
  orgId: string,
  featureId: string,
  page: { limit: number; offset: number; filter?: RevisionFilter },
): Promise<{ items: StoredRevision[]; total: number }> => store.listPage(orgId, featureId, page);

/** The newest `max` revisions of a feature whose status is one of `statuses` (all when absent), newest first. */
export const latestRevisions = (orgId: string, featureId: string, max: number, statuses?: string[]): Promise<StoredRevision[]> =>
  store.latest(orgId, featureId, max, statuses);

/** Which revisions a list across features keeps: a `RevisionFilter`, one feature, and the features the caller may read. */
export interface OrganizationRevisionFilter extends RevisionFilter {
  featureId?: string;
  /** Only revisions of these features (the ones the caller may read); absent: every feature. */
  features?: Set<string>;
}

/** The list-index filter of a revision filter: each entry a tag the key must carry, or tags of which it must carry one. */
function filterTags({ statuses, author, mine }: OrganizationRevisionFilter): Array<string | string[]> {
  return [
    ...(statuses?.length ? [statuses.map((status) => `status:${status}`)] : []),
    ...(author ? [`author:${author}`] : []),
    ...(mine ? [[`author:${mine}`, `contributor:${mine}`]] : []),
  ];
}

/** The keys of the organization's revisions carrying the filter's tags, oldest first, from the keys-only list index. */
async function revisionKeys(orgId: string, filter: OrganizationRevisionFilter): Promise<Array<{ PK: string; SK: string }>> {
  const values: Record<string, string> = { ':pk': keys.listPartition(orgId, 'FEATURE_REVISION') };
  const clauses = filterTags(filter).map((tag, i) => {
    const anyOf = (Array.isArray(tag) ? tag : [tag]).map((one, j) => {
      values[`:tag${i}_${j}`] = one;
      return `contains(listTags, :tag${i}_${j})`;
    });
    return anyOf.length === 1 ? anyOf[0]! : `(${anyOf.join(' OR ')})`;
  });
  const found = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ...(clauses.length ? { FilterExpression: clauses.join(' AND ') } : {}),
    ExpressionAttributeValues: values,
    ProjectionExpression: 'PK, SK, listTags',
  });
  const wanted = filter.features;
  return found
    .filter((key) => !wanted || (key.listTags as string[]).some((tag) => tag.startsWith('feature:') && wanted.has(tag.slice('feature:'.length))))
    .map(({ PK, SK }) => ({ PK: PK as string, SK: SK as string }));
}

const readRevisions = async (itemKeys: Array<{ PK: string; SK: string }>) =>
  (await getItems(itemKeys)).flatMap((item) => (item ? [toRecord(item)] : []));

/**
 * One page of the organization's revisions (every feature), newest first, with the total. Unfiltered,
 * it goes through the revision list's page index (page-index.ts): the index item, the keys written
 * since it was last extended, at most STRIDE + limit keys from the nearest mark, and the page's items:
 * the same cost at any offset. One feature's are its own key range (`listRevisionPage`). Otherwise
 * filtered, or while the index is stale, it walks the keys-only list index and reads the page's items alone.
 */
export async function listOrganizationRevisionPage(
  orgId: string,
  page: { limit: number; offset: number; filter?: OrganizationRevisionFilter },
): Promise<{ items: StoredRevision[]; total: number }> {
  const filter = page.filter ?? {};
  // One feature's revisions are one key range of its own (numbered, newest first, as the list orders them).
  if (filter.featureId) {
    if (filter.features && !filter.features.has(filter.featureId)) return { items: [], total: 0 };
    const { statuses, author, mine } = filter;
    return listRevisionPage(orgId, filter.featureId, { limit: page.limit, offset: page.offset, filter: { statuses, author, mine } });
  }
  const filtered = filterTags(filter).length > 0 || !!filter.features;
  const partition = keys.listPartition(orgId, 'FEATURE_REVISION');
  const index = filtered ? undefined : await readPageIndex(orgId, 'FEATURE_REVISION');
  if (index && !index.stale) {
    // Newest first: the revisions since the index was extended (its tail), then the indexed ones from the end.
    const tail = (await tailKeys(partition, index)).reverse();
    const fromTail = tail.slice(page.offset, page.offset + page.limit);
    const wanted = page.limit - fromTail.length;
    const end = index.count - Math.max(0, page.offset - tail.length);
    const start = Math.max(0, end - wanted);
    const indexed = wanted > 0 && end > 0 ? (await pageKeys(partition, index, { offset: start, limit: end - start })).reverse() : [];
    const chosen = [...fromTail, ...indexed].map(({ PK, SK }) => ({ PK, SK }));
    return { items: chosen.length ? await readRevisions(chosen) : [], total: index.count + tail.length };
  }
  const all = await revisionKeys(orgId, filter);
  const end = all.length - page.offset;
  const chosen = end <= 0 ? [] : all.slice(Math.max(0, end - page.limit), end).reverse();
  return { items: chosen.length ? await readRevisions(chosen) : [], total: all.length };
}

/**
 * Puts every revision the organization stored before revisions were listed across features on that
 * list (GSI1 keys and tags), each Put conditional on the revision still being off it (an edit since
 * put it on), then marks the list's page index stale for the scheduler's rebuild. Answers how many it put on.
 */
export async function migrateRevisionList(orgId: string): Promise<number> {
  const unlisted = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: 'attribute_not_exists(GSI1PK)',
    ExpressionAttributeValues: { ':pk': keys.organization(orgId).PK, ':prefix': keys.entityPrefix('FEATURE_REVISION') },
    ConsistentRead: true,
  });
  let listed = 0;
  for (const item of unlisted) {
    try {
      await db.put({ TableName: tableName(), Item: revisionItem(orgId, toRecord(item)), ConditionExpression: 'attribute_not_exists(GSI1PK)' });
      listed += 1;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }
  await transact([prepareRevisionListRemoval(orgId)]);
  return listed;
}
