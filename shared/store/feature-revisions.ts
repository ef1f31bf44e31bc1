import { ConflictError } from '../errors';
import type { FeatureRevisionRecord } from '../contracts/features';
import type { PendingRamp } from '../contracts/feature-revision-edits';
import type { RevisionFields, RevisionReview, RevisionStatus } from '../domain/revisions';
import type { RevisionLogEntry } from '../domain/revision-reviews';
import { tableName } from '../db/client';
import { keys } from '../db/keys';
import { transact, type TransactionOp, type Versioned } from '../db/repository';
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

const store = revisionStore<StoredRevision>('FEATURE', 'featureId');

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
