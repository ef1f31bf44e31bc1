import * as contract from '../contracts/feature-reviews';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import { ForbiddenError, InvalidInputError } from '../errors';
import { assertCan, type Permission, type Principal } from '../permissions';
import { retryOnConflict } from '../db/optimistic';
import { startEarly } from '../concurrency';
import type { StoredFeature } from '../domain/features';
import {
  deleteLogEntry,
  editLogComment,
  logEntry,
  recallReview,
  requestReview,
  reviewLogAction,
  submitReview,
  undoReview,
  type RevisionLogEntry,
} from '../domain/revision-reviews';
import { environmentIds } from '../store/features';
import { writeDraft, type StoredRevision } from '../store/feature-revisions';
import { eventReviewer, prepareRevisionEvent, type RevisionEventName } from './revision-events';
import { approvalSettings, featureReviewRule } from './approvals';
import { armedBy, disarmed, publishOnApproval } from './auto-publish';
import { presentOne, projectsOf, publishRevision, readFeature, readRevisionOf } from './feature-revisions';
import { assertMayPublish } from './scheduled-publish';
import { readableOr404 } from './read-access';

/**
 * Reviewers are people: the member behind a personal access token. An organization's secret key has no
 * user to review as, so its verdicts are refused.
 */
function reviewerOf(auth: Principal): string {
  if (!auth.memberId) {
    throw new ForbiddenError("Reviews must come from a person: an organization secret key has no user identity. Use a member's personal access token");
  }
  return auth.memberId;
}

/** What one action does to a revision: its next state, the log entry recording it, whether it changes the draft. */
interface Step {
  next: StoredRevision;
  log?: RevisionLogEntry;
  /** False for a comment: the draft itself is unchanged, so its `dateUpdated` stays. */
  touch?: boolean;
  /** The `feature.revision.*` event reporting it (GrowthBook's name and own fields), written with it. */
  event?: { name: RevisionEventName; extra?: Record<string, unknown> };
}

/**
 * One action on a revision of a feature: the caller needs `permission` in the feature's projects; `act`
 * works out the next state from the revision as read, which is written with its log entry in one write,
 * conditional on nobody having changed the revision meanwhile (a lost race acts again on a fresh read).
 */
async function actOnRevision(auth: Principal, featureId: string, version: number, permission: Permission, act: (revision: StoredRevision, live: StoredFeature) => Step | Promise<Step>) {
  const { live, written } = await retryOnConflict(async () => {
    const [live, revision, ids] = await Promise.all([
      readFeature(auth.orgId, featureId),
      readRevisionOf(auth.orgId, featureId, version),
      environmentIds(auth.orgId),
    ]);
    assertCan(auth, permission, projectsOf(live.entity));
    const { next, log, touch, event } = await act(revision, live.entity);
    const also = (written: StoredRevision) =>
      event ? [prepareRevisionEvent(auth.orgId, event.name, { live: live.entity, revision: written, environmentIds: ids }, event.extra)] : [];
    return { live: live.entity, written: await writeDraft(auth.orgId, revision, next, { log, touch, also }) };
  });
  return { live, written };
}

/**
 * Whether the caller may arm the draft to publish on approval (GrowthBook's
 * `canEnableFeatureAutoPublishOnApproval`): the flag's approval rule allows it, and the caller may publish
 * where the draft's publish would change the flag.
 */
async function mayArm(auth: Principal, live: StoredFeature, draft: StoredRevision): Promise<boolean> {
  if (!featureReviewRule(await approvalSettings(auth.orgId), projectsOf(live))?.autopublishOnApproval) return false;
  try {
    await assertMayPublish(auth, live, draft, await environmentIds(auth.orgId));
    return true;
  } catch (error) {
    // The schedule's authority check, reused: here a refusal means "not armed", as GrowthBook answers it, not an error.
    if (error instanceof ForbiddenError) return false;
    throw error;
  }
}

/**
 * `POST /v2/features/{id}/revisions/{version}/request-review`: the draft goes to review; earlier verdicts
 * are dropped. `autoPublishOnApproval` arms it to publish on approval where the caller may (see `mayArm`);
 * elsewhere it goes to review unarmed, as in GrowthBook (the answer shows whether it was armed).
 */
export async function postFeatureRevisionRequestReviewV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionRequestReviewV2>): UseCaseOutput<typeof contract.postFeatureRevisionRequestReviewV2> {
  if (body?.scheduledPublishAt) throw new InvalidInputError('Request body: [scheduledPublishAt] a scheduled publish is not set with a review request');
  const { live, written } = await actOnRevision(auth, params.id, params.version, 'manageFeatures', async (revision, feature) => {
    const state = requestReview({ status: revision.status, reviews: revision.reviews ?? [] });
    const comment = body?.comment;
    const armed = body?.autoPublishOnApproval && (await mayArm(auth, feature, revision));
    return {
      next: { ...(armed ? { ...revision, ...armedBy(auth) } : disarmed(revision)), ...state, ...(comment !== undefined ? { comment } : {}) },
      log: logEntry(auth, 'Review Requested', { value: comment ? { comment } : {} }),
      event: { name: 'reviewRequested', extra: { reviewComment: comment ?? null } },
    };
  });
  return presentOne(auth.orgId, live, written);
}

/**
 * `POST /v2/features/{id}/revisions/{version}/submit-review`: an approval, a request for changes or a
 * comment (the default). Verdicts come from people other than the revision's author. An approval that
 * leaves an armed draft approved publishes it (unless `skipAutoPublish`), in this request, through the one
 * publish path: `autoPublished` says whether it went live (see auto-publish.ts).
 */
export async function postFeatureRevisionSubmitReviewV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionSubmitReviewV2>): UseCaseOutput<typeof contract.postFeatureRevisionSubmitReviewV2> {
  const action = body?.action ?? 'comment';
  const comment = body?.comment;
  // Whether the rule blocks self-approval: read beside the revision.
  const settings = action === 'comment' ? undefined : startEarly(approvalSettings(auth.orgId));
  const reviewedBy = startEarly(eventReviewer(auth));
  const { live, written } = await actOnRevision(auth, params.id, params.version, 'reviewFeatures', async (revision, feature) => {
    const log = logEntry(auth, reviewLogAction[action], { value: comment ? { comment } : {} });
    // GrowthBook's review events: an empty comment reports nothing.
    const name = ({ approve: 'approved', 'request-changes': 'changesRequested', comment: 'commented' } as const)[action];
    const event = action !== 'comment' || comment ? { name, extra: { reviewer: await reviewedBy, reviewComment: comment ?? null } } : undefined;
    if (action === 'comment') return { next: revision, log, touch: false, event };
    const reviewer = reviewerOf(auth);
    const rule = featureReviewRule(await (settings ?? approvalSettings(auth.orgId)), projectsOf(feature));
    const state = submitReview(
      { status: revision.status, reviews: revision.reviews ?? [] },
      { createdBy: revision.createdBy, contributors: revision.contributors },
      { id: reviewer, at: log.timestamp },
      action,
      { blockSelfApproval: rule?.blockSelfApproval },
    );
    return { next: { ...revision, ...state }, log, event };
  });
  if (action !== 'approve' || body?.skipAutoPublish) return presentOne(auth.orgId, live, written);
  let published: StoredFeature | undefined;
  const autoPublished = await publishOnApproval(
    auth.orgId,
    written,
    async (armer) => {
      ({ changed: published } = await publishRevision(armer, params.id, params.version, ''));
    },
    { featureId: params.id, version: params.version },
  );
  if (!published) return { ...(await presentOne(auth.orgId, live, written)), ...(autoPublished === false ? { autoPublished } : {}) };
  return { ...(await presentOne(auth.orgId, published, await readRevisionOf(auth.orgId, params.id, params.version))), autoPublished: true };
}

/** `POST /v2/features/{id}/revisions/{version}/recall-review`: back to a plain draft; the cycle's verdicts no longer count. */
export async function postFeatureRevisionRecallReviewV2({ auth, params }: UseCaseInput<typeof contract.postFeatureRevisionRecallReviewV2>): UseCaseOutput<typeof contract.postFeatureRevisionRecallReviewV2> {
  const { live, written } = await actOnRevision(auth, params.id, params.version, 'manageFeatures', (revision) => ({
    next: { ...revision, ...recallReview({ status: revision.status, reviews: revision.reviews ?? [] }) },
    log: logEntry(auth, 'Recall Review'),
    event: { name: 'recalled' },
  }));
  return presentOne(auth.orgId, live, written);
}

/** `POST /v2/features/{id}/revisions/{version}/undo-review`: the caller's own verdict withdrawn. */
export async function postFeatureRevisionUndoReviewV2({ auth, params }: UseCaseInput<typeof contract.postFeatureRevisionUndoReviewV2>): UseCaseOutput<typeof contract.postFeatureRevisionUndoReviewV2> {
  const { live, written } = await actOnRevision(auth, params.id, params.version, 'reviewFeatures', (revision) => ({
    next: { ...revision, ...undoReview({ status: revision.status, reviews: revision.reviews ?? [] }, reviewerOf(auth)) },
    log: logEntry(auth, 'Undo Review'),
    event: { name: 'reviewRetracted' },
  }));
  return presentOne(auth.orgId, live, written);
}

/** The feature, 404 unless the caller reads its project, and the revision (read together). */
async function readableRevision(auth: Principal, featureId: string, version: number) {
  const [feature, revision] = await Promise.all([readFeature(auth.orgId, featureId), readRevisionOf(auth.orgId, featureId, version)]);
  readableOr404(auth, feature, projectsOf(feature.entity), 'Feature', featureId);
  return { feature: feature.entity, revision };
}

/** `GET /v2/features/{id}/revisions/{version}/log`: every entry, oldest first. */
export async function getFeatureRevisionLogV2({ auth, params }: UseCaseInput<typeof contract.getFeatureRevisionLogV2>): UseCaseOutput<typeof contract.getFeatureRevisionLogV2> {
  const { revision } = await readableRevision(auth, params.id, params.version);
  return { log: [...(revision.log ?? [])].sort((a, b) => a.timestamp.localeCompare(b.timestamp)) };
}

/**
 * A change of the revision's log (an entry's comment edited, an entry deleted), written conditional on
 * the revision being unchanged since read; the draft itself is not touched.
 */
async function changeLog(auth: Principal, featureId: string, version: number, change: (log: RevisionLogEntry[]) => RevisionLogEntry[]) {
  await retryOnConflict(async () => {
    const { feature, revision } = await readableRevision(auth, featureId, version);
    assertCan(auth, 'reviewFeatures', projectsOf(feature));
    const log = revision.log ?? [];
    const next = change(log);
    if (next !== log) await writeDraft(auth.orgId, revision, { ...revision, log: next }, { touch: false });
  });
  return { status: 200 as const };
}

/** `PUT /v2/features/{id}/revisions/{version}/log/{logId}`: the author of a comment or verdict rewrites its text. */
export async function putFeatureRevisionLogCommentV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionLogCommentV2>): UseCaseOutput<typeof contract.putFeatureRevisionLogCommentV2> {
  return changeLog(auth, params.id, params.version, (log) => editLogComment(log, params.logId, auth.memberId, body.comment));
}

/** `DELETE /v2/features/{id}/revisions/{version}/log/{logId}`: the author of a plain comment deletes it. */
export async function deleteFeatureRevisionLogEntryV2({ auth, params }: UseCaseInput<typeof contract.deleteFeatureRevisionLogEntryV2>): UseCaseOutput<typeof contract.deleteFeatureRevisionLogEntryV2> {
  return changeLog(auth, params.id, params.version, (log) => deleteLogEntry(log, params.logId, auth.memberId));
}
