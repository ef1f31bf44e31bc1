import { publishedEnvironments, type StoredFeature } from '../domain/features';
import { completeFields, fieldsOf, withFields } from '../domain/revisions';
import type { TransactionOp } from '../db/repository';
import type { Principal } from '../permissions';
import { newEvent, prepareEvent } from '../store/events';
import { members } from '../store/members';
import type { StoredRevision } from '../store/feature-revisions';

/**
 * GrowthBook's `feature.revision.*` events (its notification events of the `feature` resource), written
 * in the transaction of the change they report, so an event exists exactly when its change does.
 */

/** The revision events GrowthBook defines for features. */
export type RevisionEventName =
  | 'created'
  | 'updated'
  | 'reviewRequested'
  | 'approved'
  | 'changesRequested'
  | 'commented'
  | 'discarded'
  | 'reopened'
  | 'recalled'
  | 'reviewRetracted'
  | 'publishScheduleChanged'
  | 'rebased'
  | 'published'
  | 'reverted'
  | 'publishFailed';

/** What kind of draft edit a `revision.updated` event reports (GrowthBook's `change`). */
export type RevisionChange =
  | 'rule.add'
  | 'rule.update'
  | 'rule.delete'
  | 'rule.reorder'
  | 'rule.rampSchedule.set'
  | 'rule.rampSchedule.remove'
  | 'toggle'
  | 'defaultValue'
  | 'prerequisites'
  | 'holdout'
  | 'archive'
  | 'metadata';

/** GrowthBook's revision webhook payload (`featureRevisionWebhookPayload`): the revision with its rules per environment. */
export function revisionPayload(revision: StoredRevision, live: StoredFeature) {
  const fields = completeFields(revision, fieldsOf(live));
  return {
    featureId: revision.featureId,
    baseVersion: revision.baseVersion,
    version: revision.version,
    comment: revision.comment,
    date: revision.date,
    status: revision.status,
    ...(revision.createdBy ? { createdBy: revision.createdBy } : {}),
    ...(revision.status === 'published' && revision.publishedBy ? { publishedBy: revision.publishedBy } : {}),
    defaultValue: fields.defaultValue,
    rules: fields.rules,
    environmentsEnabled: fields.environmentsEnabled,
    prerequisites: fields.prerequisites.map((id) => ({ id, condition: JSON.stringify({ value: true }) })),
    metadata: fields.metadata,
  };
}

/**
 * The write of one `feature.revision.<name>` event about `revision`, measured against `live` (the
 * live feature before the change): its environments are the ones whose SDK payload the revision's
 * content changes from `live` (every environment it is on in when something feature-wide changes),
 * unless `environments` names them; its projects and tags are the feature's. `extra` holds the
 * event's own fields (`change`, `failureReason`, ...).
 */
export function prepareRevisionEvent(
  orgId: string,
  name: RevisionEventName,
  subject: { live: StoredFeature; revision: StoredRevision; environmentIds: string[]; environments?: string[] },
  extra: Record<string, unknown> = {},
): TransactionOp {
  const { live, revision, environmentIds } = subject;
  const proposed = withFields(live, completeFields(revision, fieldsOf(live)));
  const environments = subject.environments ?? publishedEnvironments(live, proposed, environmentIds);
  const object = { ...revisionPayload(revision, live), ...extra };
  return prepareEvent(
    newEvent(orgId, `feature.revision.${name}`, { type: 'feature', id: revision.featureId }, { object }, {
      environments,
      projects: proposed.project ? [proposed.project] : [],
      tags: proposed.tags,
    }),
  );
}

/**
 * The reviewer of a review event, as GrowthBook names it: the member's id with their name and e-mail
 * when the caller is a person; a secret key (which may comment) is named by its key id.
 */
export async function eventReviewer(auth: Principal): Promise<{ id: string; name?: string; email?: string }> {
  if (!auth.memberId) return { id: auth.keyId };
  const member = (await members.read(auth.orgId, auth.memberId))?.entity;
  return { id: auth.memberId, ...(member?.name ? { name: member.name } : {}), ...(member?.email ? { email: member.email } : {}) };
}
