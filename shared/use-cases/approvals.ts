import { ForbiddenError, PublishBlockedError, type PublishGate } from '../errors';
import { can, type Principal } from '../permissions';
import type { StoredFeature } from '../domain/features';
import { featureChangeScope, fieldsOf, type RevisionFields } from '../domain/revisions';
import {
  afterEdit,
  fromRequireReview,
  missingApproverTeams,
  needsReview,
  resetsApproval,
  ruleFor,
  type ApprovalSettings,
  type ReviewRule,
  type ReviewState,
  type RevisionReview,
} from '../domain/revision-reviews';
import type { BypassedGate } from '../contracts/common';
import type { StoredEnvironment } from '../store/environments';
import type { StoredRevision } from '../store/feature-revisions';
import { readOrganizationSettings } from '../store/organizations';
import { teams } from '../store/teams';

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
 * GrowthBook's `required-approvers-missing` gate of a revision approved under `rule`: there when the
 * rule names teams (that still exist) and no standing approval comes from a member of any of them.
 * Reads the teams only when the rule names some.
 */
export async function requiredApproversGate(
  orgId: string,
  rule: ReviewRule | undefined,
  revision: { reviews?: RevisionReview[] },
  at: Pick<PublishGate, 'entityType' | 'id' | 'version'> & { requestReviewPath: string },
): Promise<PublishGate | undefined> {
  if (!rule?.requiredApproverTeams.length) return undefined;
  const missing = missingApproverTeams(await teams.getMany(orgId, rule.requiredApproverTeams), revision.reviews ?? []);
  if (!missing.length) return undefined;
  return {
    entityType: at.entityType,
    id: at.id,
    version: at.version,
    type: 'required-approvers-missing',
    severity: 'blocker',
    messages: [`Requires approval from ${missing.map((team) => team.name).join(' or ')}.`],
    override: null,
    requiresPermission: 'bypassApprovalChecks',
    resolution: { action: 'request-review', method: 'POST', path: at.requestReviewPath },
  };
}

/**
 * The approval gate every change of a live flag passes (`decideLiveChange` calls it, so v1 writes,
 * toggles, reverts and draft publishes all do). When the change from `current` to `next` needs review
 * under the organization's rules:
 * - publishing a draft (`publishes`) needs the draft approved, else 422 `publish_blocked` with
 *   GrowthBook's `approval-required` gate, and, when the rule names required approver teams, an
 *   approval from a member of one of them, else GrowthBook's `required-approvers-missing` gate;
 * - any other write is refused with GrowthBook's 403;
 * unless the caller may bypass approval (see `approvalBypass`), or the change is a revert and the
 * organization lets reverts bypass approval. Answers the gates so bypassed, as GrowthBook's
 * `bypassedGates` reports them (its order of `via`: the REST setting, the permission, the revert setting).
 * `settings` is `approvalSettings(orgId)`.
 */
export async function assertLiveChangeAllowed(
  auth: Principal,
  settings: ApprovalSettings,
  change: {
    current: StoredFeature;
    next: StoredFeature;
    environments: Array<Pick<StoredEnvironment, 'id' | 'projects'>>;
    publishes?: StoredRevision;
    /** An earlier revision made live again: under `revertsBypassApproval` it needs no review. */
    revert?: boolean;
  },
): Promise<BypassedGate[]> {
  const { current, next, environments, publishes } = change;
  const projects = current.project ? [current.project] : [];
  const rule = featureReviewRule(settings, projects);
  if (!rule?.required) return [];
  const scope = featureChangeScope(fieldsOf(current), fieldsOf(next), environmentsOfFeature(current, environments));
  if (!needsReview(rule, scope)) return [];
  const via: BypassedGate['via'] | undefined =
    approvalBypass(auth, settings, projects) ?? (change.revert && settings.revertsBypassApproval ? 'revertsBypassApproval' : undefined);
  if (!publishes) {
    if (!via) {
      throw new ForbiddenError(
        "This feature requires approval before changes can be published. Enable 'REST API always bypasses approval requirements' in organization settings.",
      );
    }
    return [{ type: 'approval-required', outcome: 'bypassed', via }];
  }
  const requestReviewPath = `/features/${current.id}/revisions/${publishes.version}/request-review`;
  const gates: PublishGate[] = [];
  if (publishes.status !== 'approved') {
    gates.push({
      entityType: 'feature',
      id: current.id,
      version: publishes.version,
      type: 'approval-required',
      severity: 'blocker',
      messages: [`Requires approval before publishing (status: "${publishes.status}").`],
      override: null,
      requiresPermission: 'bypassApprovalChecks',
      resolution: { action: 'request-review', method: 'POST', path: requestReviewPath },
    });
  }
  // A separate gate, as GrowthBook has it: an approved draft can still lack the named team's approval.
  const teamsGate = await requiredApproversGate(auth.orgId, rule, publishes, { entityType: 'feature', id: current.id, version: publishes.version, requestReviewPath });
  if (teamsGate) gates.push(teamsGate);
  if (gates.length && !via) throw new PublishBlockedError(gates);
  return via ? gates.map(({ type }) => ({ type, outcome: 'bypassed', via })) : [];
}

/** The `bypassedGates` key of an answer: there only when a gate was bypassed, as GrowthBook answers it. */
export const bypassedGatesKey = (bypassedGates: BypassedGate[]) => (bypassedGates.length ? { bypassedGates } : {});

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
