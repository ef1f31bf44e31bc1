import { ConflictError } from '../errors';
import type { FeatureRevisionRecord } from '../contracts/features';
import type { PendingRamp } from '../contracts/feature-revision-edits';
import type { RevisionFields, RevisionReview, RevisionStatus } from '../domain/revisions';
import type { RevisionLogEntry } from '../domain/revision-reviews';
import { tableName } from '../db/client';
import { keys } from '../db/keys';
import { getItems, queryAll, transact, type TransactionOp, type Versioned } from '../db/repository';
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

const toRecord = ({ PK: _pk, SK: _sk, entityType: _type, ...record }: Record<string, unknown>) => record as unknown as StoredRevision;

const revisionQuery = (orgId: string, featureId: string) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.featureRevision(orgId, featureId, 0).PK, ':prefix': keys.featureRevisionPrefix(featureId) } as Record<
    string,
    unknown
  >,
});

/** The number of a feature's newest revision (draft or published), 0 when it has none. One Query of one key. */
export async function newestRevisionVersion(orgId: string, featureId: string): Promise<number> {
  const [newest] = await queryAll(
    { ...revisionQuery(orgId, featureId), ScanIndexForward: false, ProjectionExpression: 'SK', ConsistentRead: true },
    1,
  );
  return newest ? Number((newest.SK as string).slice(keys.featureRevisionPrefix(featureId).length)) : 0;
}

/** One revision of a feature, any status, or undefined. One GetItem. */
export async function readRevision(orgId: string, featureId: string, version: number): Promise<StoredRevision | undefined> {
  const [item] = await getItems([keys.featureRevision(orgId, featureId, version)]);
  return item ? toRecord(item) : undefined;
}

/**
 * Stores a new draft of the feature as read under the next number, and records that number on the
 * feature (with what `also` adds, e.g. its event), in one transaction conditional on the feature's version and the number being free: two
 * drafts created at once, or a draft and a change, never share a number (the loser gets
 * ConflictError `conflict`, to read again). The feature's content, and so what SDKs see, is untouched.
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
  const taken = () => new ConflictError('conflict', `Revision ${version} of feature ${featureId} was taken by another request; retry`);
  await transact([
    {
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.featureRevision(orgId, featureId, version), entityType: 'FEATURE_REVISION', ...record },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      onConditionFailed: taken,
    },
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
      onConditionFailed: taken,
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
  const written = {
    ...next,
    changeCount: (read.changeCount ?? 0) + 1,
    dateUpdated: options.touch === false ? next.dateUpdated : new Date().toISOString(),
    ...(options.log ? { log: [...(next.log ?? []), options.log] } : {}),
  };
  await transact([
    {
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.featureRevision(orgId, read.featureId, read.version), entityType: 'FEATURE_REVISION', ...written },
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
      onConditionFailed: () =>
        new ConflictError('conflict', `Revision ${read.version} of feature ${read.featureId} was changed by another request; retry`),
    },
    ...(options.also?.(written) ?? []),
  ]);
  return written;
}

/** Which revisions a list keeps. */
export interface RevisionFilter {
  statuses?: string[];
  author?: string;
  /** Revisions created or edited by this member or key. */
  mine?: string;
}

/** Whether a revision passes the filter. */
export const matches = (revision: StoredRevision, { statuses, author, mine }: RevisionFilter) =>
  (!statuses?.length || statuses.includes(revision.status)) &&
  (!author || revision.createdBy === author) &&
  (!mine || revision.createdBy === mine || !!revision.contributors?.includes(mine));

/**
 * One page of a feature's revisions, newest first, with the total. Unfiltered, the page is one Query
 * of a key range (numbers run 1..newest, so offset and limit name the range): the same cost at any
 * offset. A filter on status or author reads the feature's revisions and filters them.
 */
export async function listRevisionPage(
  orgId: string,
  featureId: string,
  page: { limit: number; offset: number; filter?: RevisionFilter },
): Promise<{ items: StoredRevision[]; total: number }> {
  const filter = page.filter ?? {};
  if (filter.statuses?.length || filter.author || filter.mine) {
    const all = (await queryAll({ ...revisionQuery(orgId, featureId), ScanIndexForward: false, ConsistentRead: true })).map(toRecord);
    const kept = all.filter((revision) => matches(revision, filter));
    return { items: kept.slice(page.offset, page.offset + page.limit), total: kept.length };
  }
  const total = await newestRevisionVersion(orgId, featureId);
  const highest = total - page.offset;
  const lowest = Math.max(1, highest - page.limit + 1);
  if (highest < 1 || page.limit < 1) return { items: [], total };
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
    ExpressionAttributeValues: {
      ':pk': keys.featureRevision(orgId, featureId, 0).PK,
      ':low': keys.featureRevision(orgId, featureId, lowest).SK,
      ':high': keys.featureRevision(orgId, featureId, highest).SK,
    },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return { items: items.map(toRecord), total };
}

/** The newest `max` revisions of a feature whose status is one of `statuses` (all when absent), newest first. */
export async function latestRevisions(orgId: string, featureId: string, max: number, statuses?: string[]): Promise<StoredRevision[]> {
  if (!statuses) return (await queryAll({ ...revisionQuery(orgId, featureId), ScanIndexForward: false, ConsistentRead: true }, max)).map(toRecord);
  const query = revisionQuery(orgId, featureId);
  const values = Object.fromEntries(statuses.map((status, i) => [`:s${i}`, status]));
  // A filtered Query counts items before the filter; queryAll reads on until `max` are kept.
  const items = await queryAll(
    {
      ...query,
      FilterExpression: `#status IN (${Object.keys(values).join(', ')})`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ...values },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    max,
  );
  return items.map(toRecord);
}
