import { retryOnConflict } from '../db/optimistic';
import { transact, type TransactionOp } from '../db/repository';
import { openStatuses } from '../domain/revisions';
import type { StoredSavedGroupRevision } from '../domain/saved-group-revisions';
import { logger } from '../logger';
import { savedGroupRevisions as store } from '../store/saved-group-revisions';
import { savedGroups } from '../store/saved-groups';
import { preparePublishBoundary, type DueBoundary, type GroupPublish } from '../store/schedule-boundaries';
import { prepareSavedGroupRevisionEvent } from './saved-group-revision-events';
import { publishSavedGroupDraft, withoutSchedule } from './saved-group-revisions';
import { afterFailure, armerOf, BoundaryFiredError, claim, pendingAt, settleStale, type ScheduledPublishOutcome } from './scheduled-publish';

/**
 * A saved-group draft's scheduled publish, fired as a feature draft's is (scheduled-publish.ts): the
 * boundary the arming wrote is claimed in the transaction of the group's one publish path, so of two
 * runs firing it exactly one publishes; a failed publish is recorded on the draft and tried again at
 * GrowthBook's backoff, or given up (`savedGroup.revision.publishFailed`).
 */

type GroupBoundary = DueBoundary & { groupPublish: GroupPublish };

/** Whether the draft still has this boundary's publish pending. */
const stillPending = (revision: StoredSavedGroupRevision | undefined, boundary: GroupBoundary): revision is StoredSavedGroupRevision =>
  !!revision && openStatuses.includes(revision.status) && pendingAt(revision) === boundary.at;

/** Fires the boundary of a saved-group draft's scheduled publish at `now`: publishes it as its armer, once. */
export async function fireScheduledGroupPublish(boundary: GroupBoundary, now: Date): Promise<ScheduledPublishOutcome> {
  if (boundary.at > now.toISOString()) return 'not-due';
  const { orgId, groupPublish } = boundary;
  const [revision, group] = await Promise.all([
    store.read(orgId, groupPublish.savedGroupId, groupPublish.version),
    savedGroups.read(orgId, groupPublish.savedGroupId),
  ]);
  // A group deleted since has nothing to publish into: its schedule is let go, as GrowthBook cancels it.
  if (!stillPending(revision, boundary) || !group) return settleStale(boundary);
  try {
    const armer = await armerOf(orgId, revision);
    await publishSavedGroupDraft(armer, groupPublish.savedGroupId, groupPublish.version, { claim: claim(boundary) });
    return 'published';
  } catch (error) {
    if (error instanceof BoundaryFiredError) return 'taken';
    return recordFailure(boundary, error as Error, now);
  }
}

/** Records a failed attempt on the draft with the claim of its boundary, and retries later or gives up. */
async function recordFailure(boundary: GroupBoundary, error: Error, now: Date): Promise<ScheduledPublishOutcome> {
  const { orgId, groupPublish } = boundary;
  const reason = error.message || error.name;
  try {
    return await retryOnConflict(async () => {
      const revision = await store.read(orgId, groupPublish.savedGroupId, groupPublish.version);
      // Another run published it, or someone cancelled it, meanwhile: nothing failed for this boundary.
      if (!stillPending(revision, boundary)) return settleStale(boundary);
      const { outcome, next } = afterFailure(revision, reason, now, withoutSchedule);
      const { written, ...op } = store.prepareWrite(orgId, revision, next);
      const also: TransactionOp[] =
        outcome.action === 'retry'
          ? preparePublishBoundary(orgId, groupPublish, undefined, outcome.nextAttemptAt)
          : [prepareSavedGroupRevisionEvent(orgId, 'publishFailed', written, { failureReason: reason, terminal: outcome.terminal, attempts: outcome.attempts })];
      await transact([op, claim(boundary), ...also]);
      logger.warn('A scheduled saved-group publish failed', { orgId, ...groupPublish, reason, action: outcome.action, attempts: outcome.attempts });
      return outcome.action === 'retry' ? 'retrying' : 'gave-up';
    });
  } catch (recordError) {
    if (recordError instanceof BoundaryFiredError) return 'taken';
    throw recordError;
  }
}
