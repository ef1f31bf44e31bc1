import * as contract from '../contracts/scheduled-publish';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import { principalOfKey } from '../store/principals';
import { DomainError, InvalidInputError } from '../errors';
import { logger } from '../logger';
import { assertCan, can, type Principal } from '../permissions';
import { retryOnConflict } from '../db/optimistic';
import { transact, type TransactionOp } from '../db/repository';
import { authorOf, publishedEnvironments, type StoredFeature } from '../domain/features';
import { decidePublishFailure } from '../domain/publish-failure-policy';
import { assertStatus, openStatuses, withFields } from '../domain/revisions';
import { listApiKeys } from '../store/api-keys';
import { environmentIds } from '../store/features';
import { latestRevisions, readRevision, writeDraft, type StoredRevision } from '../store/feature-revisions';
import { prepareClaim, preparePublishBoundary, type DueBoundary } from '../store/schedule-boundaries';
import { mergeOf, presentOne, projectsOf, publishRevision, readFeature, readRevisionOf, withoutSchedule } from './feature-revisions';
import { prepareRevisionEvent } from './revision-events';

/**
 * GrowthBook's scheduled publish of a draft: armed (or cancelled) by POST .../schedule-publish, fired
 * once by the scheduler through the schedule boundary the arming wrote (the conditional delete of
 * that boundary, in the publish's transaction, decides which run publishes), retried with backoff
 * when the publish fails and given up after GrowthBook's 10 attempts.
 */

/** When the draft's scheduled publish is next due (its boundary's date), if one is pending; for a feature's or a saved group's draft. */
export const pendingAt = (revision: Pick<StoredRevision, 'scheduledPublishAt' | 'scheduledPublishNextAttemptAt'>) =>
  revision.scheduledPublishAt ? (revision.scheduledPublishNextAttemptAt ?? revision.scheduledPublishAt) : undefined;

/** A client's date, as GrowthBook checks it: a valid date in the future (`null` cancels). */
function scheduledDate(value: string | null): string | undefined {
  if (value === null) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new InvalidInputError('Invalid scheduledPublishAt date');
  if (date.getTime() <= Date.now()) throw new InvalidInputError('scheduledPublishAt must be in the future');
  return date.toISOString();
}

/**
 * The caller's authority to arm or cancel the draft's publish, as GrowthBook checks it: publish
 * access in the environments the publish would change (every environment when the draft does not
 * merge), in the feature's project and in the one the draft moves it to.
 */
export async function assertMayPublish(auth: Principal, live: StoredFeature, draft: StoredRevision, ids: string[]): Promise<void> {
  const { outcome } = await mergeOf(auth.orgId, live, draft);
  const environments = outcome.success ? publishedEnvironments(live, withFields(live, outcome.merged), ids) : ids;
  assertCan(auth, 'publishFeatures', projectsOf(live), environments);
  const destination = draft.metadata?.project;
  if (destination !== undefined && destination !== live.project) assertCan(auth, 'publishFeatures', destination ? [destination] : [], environments);
}

/** `POST /v2/features/{id}/revisions/{version}/schedule-publish`: arms the draft's publish for a date, or cancels it (`null`). */
export async function postFeatureRevisionSchedulePublishV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postFeatureRevisionSchedulePublishV2>): UseCaseOutput<typeof contract.postFeatureRevisionSchedulePublishV2> {
  const at = scheduledDate(body.scheduledPublishAt);
  const { live, written } = await retryOnConflict(async () => {
    const [live, draft, ids] = await Promise.all([
      readFeature(auth.orgId, params.id),
      readRevisionOf(auth.orgId, params.id, params.version),
      environmentIds(auth.orgId),
    ]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    assertStatus(draft.status, openStatuses, 'schedule publish on');
    await assertMayPublish(auth, live.entity, draft, ids);
    if (at && body.lockOthers) {
      const others = await latestRevisions(auth.orgId, params.id, Infinity, openStatuses);
      const locking = others.find((other) => other.version !== draft.version && other.scheduledPublishLockOthers && other.scheduledPublishAt);
      if (locking) {
        throw new InvalidInputError(`Revision ${locking.version} already has a scheduled publish that locks other drafts. Cancel it before scheduling another.`);
      }
    }
    // GrowthBook keeps a requested bypass only for a caller who may bypass approvals; from anyone else it is ignored.
    const bypassApproval = !!body.bypassApproval && can(auth, 'bypassApprovalChecks', projectsOf(live.entity));
    const next: StoredRevision = at
      ? {
          ...withoutSchedule(draft),
          autoPublishOnApproval: true,
          autoPublishEnabledBy: authorOf(auth, '').by,
          scheduledPublishKeyId: auth.keyId,
          scheduledPublishAt: at,
          scheduledPublishLockEdits: !!body.lockEdits,
          scheduledPublishLockOthers: !!body.lockOthers,
          ...(bypassApproval ? { scheduledPublishBypassApproval: true } : {}),
        }
      : withoutSchedule(draft);
    const also = (revision: StoredRevision): TransactionOp[] => [
      ...preparePublishBoundary(auth.orgId, { featureId: draft.featureId, version: draft.version }, pendingAt(draft), pendingAt(revision)),
      prepareRevisionEvent(auth.orgId, 'publishScheduleChanged', { live: live.entity, revision, environmentIds: ids }),
    ];
    return { live: live.entity, written: await writeDraft(auth.orgId, draft, next, { also }) };
  });
  return presentOne(auth.orgId, live, written);
}

/** What firing a scheduled publish's boundary came to. */
export type ScheduledPublishOutcome = 'published' | 'retrying' | 'gave-up' | 'stale' | 'taken' | 'not-due';

/** The boundary was claimed by another run: not a race to retry (not a ConflictError), an answer. */
export class BoundaryFiredError extends DomainError {
  readonly code = 'boundary_fired';

  constructor() {
    super('The scheduled publish was fired by another run');
  }
}

/** The claim of a boundary for a run that fires it; fails with BoundaryFiredError (never retried) when another run took it. */
export const claim = (boundary: DueBoundary): TransactionOp => ({ ...prepareClaim(boundary), onConditionFailed: () => new BoundaryFiredError() });

/**
 * The principal an armed publish runs as: the key that armed it, read again now (a personal access
 * token with its member's current roles), so authority lost since is lost for the publish too.
 */
export async function armerOf(orgId: string, revision: Pick<StoredRevision, 'scheduledPublishKeyId'>): Promise<Principal> {
  const key = revision.scheduledPublishKeyId ? (await listApiKeys(orgId)).find((candidate) => candidate.id === revision.scheduledPublishKeyId) : undefined;
  const principal = key ? await principalOfKey(key) : undefined;
  if (!principal) throw new Error('enabling user could not be resolved');
  return principal;
}

/**
 * Fires the boundary of a draft's scheduled publish at `now`: publishes the draft as its armer,
 * through the one publish path, with the claim of the boundary in the publish's transaction, so of
 * two runs firing it at once exactly one publishes. A publish that fails is recorded on the draft
 * (attempts, last error) with the claim, and either tried again at GrowthBook's backoff (a new
 * boundary) or given up (the schedule cleared, `feature.revision.publishFailed` sent).
 */
export async function fireScheduledPublish(boundary: DueBoundary & { publish: { featureId: string; version: number } }, now: Date): Promise<ScheduledPublishOutcome> {
  if (boundary.at > now.toISOString()) return 'not-due';
  const { orgId, publish } = boundary;
  const revision = await readRevision(orgId, publish.featureId, publish.version);
  if (!revision || !openStatuses.includes(revision.status) || pendingAt(revision) !== boundary.at) return settleStale(boundary);
  try {
    const armer = await armerOf(orgId, revision);
    await publishRevision(armer, publish.featureId, publish.version, '', { also: () => [claim(boundary)] });
    return 'published';
  } catch (error) {
    if (error instanceof BoundaryFiredError) return 'taken';
    return recordFailure(boundary, error as Error, now);
  }
}

/** A boundary its draft no longer has pending (published, discarded, cancelled, moved): taken away. */
export async function settleStale(boundary: DueBoundary): Promise<ScheduledPublishOutcome> {
  try {
    await transact([claim(boundary)]);
    return 'stale';
  } catch (error) {
    if (error instanceof BoundaryFiredError) return 'taken';
    throw error;
  }
}

/** The draft fields a scheduled publish keeps between attempts (a feature's and a saved group's drafts share them). */
type ScheduleFields = Pick<
  StoredRevision,
  'autoPublishEnabledBy' | 'scheduledPublishAttempts' | 'scheduledPublishLastError' | 'scheduledPublishNextAttemptAt' | 'scheduledPublishGaveUpAt'
>;

/**
 * A draft after its scheduled publish failed at `now` (GrowthBook's policy): the attempt and error
 * recorded and the next attempt dated, or, given up, the schedule cleared (`withoutSchedule`) with
 * the attempts, the error and the date kept for context; the draft stays open.
 */
export function afterFailure<R extends ScheduleFields>(revision: R, reason: string, now: Date, withoutSchedule: (revision: R) => R) {
  const outcome = decidePublishFailure({ attempts: (revision.scheduledPublishAttempts ?? 0) + 1, terminal: false, now });
  const failed: R = { ...revision, scheduledPublishAttempts: outcome.attempts, scheduledPublishLastError: reason };
  const next: R =
    outcome.action === 'retry'
      ? { ...failed, scheduledPublishNextAttemptAt: outcome.nextAttemptAt }
      : {
          ...withoutSchedule(failed),
          ...(failed.autoPublishEnabledBy ? { autoPublishEnabledBy: failed.autoPublishEnabledBy } : {}),
          scheduledPublishAttempts: outcome.attempts,
          scheduledPublishLastError: reason,
          scheduledPublishGaveUpAt: now.toISOString(),
        };
  return { outcome, next };
}

/** Records a failed attempt on the draft with the claim of its boundary, and retries later or gives up. */
async function recordFailure(boundary: DueBoundary & { publish: { featureId: string; version: number } }, error: Error, now: Date): Promise<ScheduledPublishOutcome> {
  const { orgId, publish } = boundary;
  const reason = error.message || error.name;
  try {
    return await retryOnConflict(async () => {
      const [revision, live, ids] = await Promise.all([
        readRevision(orgId, publish.featureId, publish.version),
        readFeature(orgId, publish.featureId),
        environmentIds(orgId),
      ]);
      // Another run published it, or someone cancelled it, meanwhile: nothing failed for this boundary.
      if (!revision || !openStatuses.includes(revision.status) || pendingAt(revision) !== boundary.at) return settleStale(boundary);
      const { outcome, next } = afterFailure(revision, reason, now, withoutSchedule);
      const also = (written: StoredRevision): TransactionOp[] =>
        outcome.action === 'retry'
          ? [claim(boundary), ...preparePublishBoundary(orgId, publish, undefined, outcome.nextAttemptAt)]
          : [
              claim(boundary),
              prepareRevisionEvent(
                orgId,
                'publishFailed',
                { live: live.entity, revision: written, environmentIds: ids },
                { failureReason: reason, terminal: outcome.terminal, attempts: outcome.attempts },
              ),
            ];
      await writeDraft(orgId, revision, next, { also });
      logger.warn('A scheduled publish failed', { orgId, ...publish, reason, action: outcome.action, attempts: outcome.attempts });
      return outcome.action === 'retry' ? 'retrying' : 'gave-up';
    });
  } catch (recordError) {
    if (recordError instanceof BoundaryFiredError) return 'taken';
    throw recordError;
  }
}
