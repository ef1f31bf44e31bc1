import { ForbiddenError, PublishBlockedError } from '../errors';
import { can, type Principal } from '../permissions';
import type { StoredFeature } from '../domain/features';
import { featureChangeScope, fieldsOf, type RevisionFields } from '../domain/revisions';
import {
  afterEdit,
  fromRequireReview,
  needsReview,
  resetsApproval,
  ruleFor,
  type ApprovalSettings,
  type ReviewRule,
  type ReviewState,
} from '../domain/revision-reviews';
import type { StoredEnvironment } from '../store/environments';
import type { StoredRevision } from '../store/feature-revisions';
import { readOrganizationSettings } from '../store/organizations';

/** The organization's approval settings (one read of the organization item). */
export const approvalSettings = async (orgId: string): Promise<ApprovalSettings> => (await readOrganizationSettings(orgId)).approvals;

/** The approval rule that governs a flag in `projects` (GrowthBook's `getReviewSetting`), in the common form. */
export const featureReviewRule = (settings: ApprovalSettings, projects: string[]): ReviewRule | undefined =>
  fromRequireReview(ruleFor(settings.requireReviews, projects));

/**
 * How the caller may skip approval on a resource in `projects`, if at all: the organization's REST API
 * bypass (every call here is a REST call with a key), or the bypass permission there (GrowthBook's
 * `canBypassReviewChecks`).
 */
export function approvalBypass(auth: Principal, settings: ApprovalSettings, projects: string[]): 'restApiBypassesReviews' | 'bypassApprovalPermission' | undefined {
  if (settings.restApiBypassesReviews) return 'restApiBypassesReviews';
  return can(auth, 'bypassApprovalChecks', projects) ? 'bypassApprovalPermission' : undefined;
}

/** The environments a flag can be in: those not limited to projects, or limited to the flag's. */
export const environmentsOfFeature = (feature: Pick<StoredFeature, 'project'>, all: Array<Pick<StoredEnvironment, 'id' | 'projects'>>) =>
  all.filter((environment) => !environment.projects?.length || (!!feature.project && environment.projects.includes(feature.project))).map((environment) => environment.id);

/**
 * The approval gate every change of a live flag passes (`changeLiveFeature` calls it, so v1 writes,
 * toggles, reverts and draft publishes all do). When the change from `current` to `next` needs review
 * under the organization's rules:
 * - publishing a draft (`publishes`) needs the draft approved, else 422 `publish_blocked` with
 *   GrowthBook's `approval-required` gate;
 * - any other write is refused with GrowthBook's 403;
 * unless the caller may bypass approval (see `approvalBypass`).
 */
export function assertLiveChangeAllowed(
  auth: Principal,
  settings: ApprovalSettings,
  change: { current: StoredFeature; next: StoredFeature; environments: Array<Pick<StoredEnvironment, 'id' | 'projects'>>; publishes?: StoredRevision },
): void {
  const { current, next, environments, publishes } = change;
  const projects = current.project ? [current.project] : [];
  const rule = featureReviewRule(settings, projects);
  if (!rule?.required) return;
  const scope = featureChangeScope(fieldsOf(current), fieldsOf(next), environmentsOfFeature(current, environments));
  if (!needsReview(rule, scope)) return;
  if (publishes?.status === 'approved' || approvalBypass(auth, settings, projects)) return;
  if (publishes) {
    throw new PublishBlockedError([
      {
        type: 'approval-required',
        severity: 'blocker',
        messages: [`Requires approval before publishing (status: "${publishes.status}").`],
        override: null,
        requiresPermission: 'bypassApprovalChecks',
        resolution: { action: 'request-review', method: 'POST', path: `/features/${current.id}/revisions/${publishes.version}/request-review` },
      },
    ]);
  }
  throw new ForbiddenError(
    "This feature requires approval before changes can be published. Enable 'REST API always bypasses approval requirements' in organization settings.",
  );
}

/**
 * A draft's review state once an edit took it from `before` to `after` (GrowthBook's `updateRevision`): a
 * request for changes always goes back to review; an approval only where the flag's rule resets on a
 * change like this one. Verdicts go stale whenever the draft goes back to review.
 */
export async function reviewStateAfterEdit(
  orgId: string,
  live: StoredFeature,
  change: { before: RevisionFields; after: RevisionFields; environments: string[] },
  state: ReviewState,
): Promise<ReviewState> {
  if (state.status !== 'approved') return afterEdit(state);
  const rule = featureReviewRule(await approvalSettings(orgId), live.project ? [live.project] : []);
  return afterEdit(state, resetsApproval(rule, featureChangeScope(change.before, change.after, change.environments)));
}
