import { ForbiddenError, InvalidInputError, NotFoundError } from '../errors';
import { newId } from '../ids';

/**
 * Reviews of a revision, whatever it revises (features now, saved groups and configs next): the review
 * state machine GrowthBook runs on a draft, the rule that an author cannot approve their own revision,
 * whether a change needs review under the organization's approval rules, and the revision log with its
 * editing rules. Pure: callers read the revision, apply one of these, and write it back in one write.
 */

/** The statuses a revision goes through (GrowthBook's). */
export type RevisionStatus = 'draft' | 'pending-review' | 'approved' | 'changes-requested' | 'published' | 'discarded';

/** A reviewer's verdict; `-stale` once the draft changed after it was given. */
export type ReviewVerdict = 'approved' | 'changes-requested' | 'approved-stale' | 'changes-requested-stale';

/** One reviewer's standing verdict (one entry per reviewer). */
export interface RevisionReview {
  userId: string;
  status: ReviewVerdict;
  timestamp: string;
}

/** What a review submits (GrowthBook's `action`). */
export type ReviewAction = 'approve' | 'request-changes' | 'comment';

/** The part of a revision the review state machine reads and changes. */
export interface ReviewState {
  status: RevisionStatus;
  reviews: RevisionReview[];
}

/** The statuses of a revision under review: verdicts can be given, recalled or (their own) undone. */
export const reviewStatuses: RevisionStatus[] = ['pending-review', 'changes-requested', 'approved'];

/**
 * The status the standing verdicts give: any active request for changes wins over any approval, and
 * with neither the revision waits for review. Stale verdicts count for nothing.
 */
export function statusOfVerdicts(reviews: RevisionReview[]): RevisionStatus {
  if (reviews.some((review) => review.status === 'changes-requested')) return 'changes-requested';
  if (reviews.some((review) => review.status === 'approved')) return 'approved';
  return 'pending-review';
}

/** `request-review`: a draft goes to review, starting a new review cycle (earlier verdicts are dropped). */
export function requestReview(state: ReviewState): ReviewState {
  if (state.status !== 'draft') throw new InvalidInputError(`Can only request review on a draft (status is "${state.status}")`);
  return { status: 'pending-review', reviews: [] };
}

/** Who submits a review, and what they may do beyond reviewing. */
export interface Reviewer {
  /** The person's id (a member id); the author of the revision is compared with it. */
  id: string;
  at: string;
}

/** The revision's authorship, as the review rules need it. */
export interface Authorship {
  createdBy?: string;
  contributors?: string[];
}

/**
 * `submit-review`: an approval or a request for changes replaces the reviewer's earlier verdict, and
 * the status follows every standing verdict; a comment changes nothing. Refused: a verdict from the
 * revision's author, an approval from a contributor when the rule blocks self-approval, a verdict on a
 * revision not under review.
 */
export function submitReview(
  state: ReviewState,
  authorship: Authorship,
  reviewer: Reviewer,
  action: ReviewAction,
  options: { blockSelfApproval?: boolean } = {},
): ReviewState {
  if (action === 'comment') return state;
  if (authorship.createdBy === reviewer.id) throw new InvalidInputError('Cannot submit a review on a draft you created');
  if (action === 'approve' && options.blockSelfApproval && authorship.contributors?.includes(reviewer.id)) {
    throw new InvalidInputError('You cannot approve a draft you contributed to.');
  }
  if (!reviewStatuses.includes(state.status)) {
    throw new InvalidInputError(`Can only submit a review when review has been requested (status is "${state.status}")`);
  }
  const verdict: ReviewVerdict = action === 'approve' ? 'approved' : 'changes-requested';
  const reviews = [...state.reviews.filter((review) => review.userId !== reviewer.id), { userId: reviewer.id, status: verdict, timestamp: reviewer.at }];
  return { status: statusOfVerdicts(reviews), reviews };
}

/** `recall-review`: the revision back to a plain draft; the cycle's verdicts no longer count. */
export function recallReview(state: ReviewState): ReviewState {
  if (!reviewStatuses.includes(state.status)) {
    throw new InvalidInputError(`Can only recall a review on a pending-review, changes-requested, or approved draft (status is "${state.status}")`);
  }
  return { status: 'draft', reviews: [] };
}

/** `undo-review`: the reviewer's own active verdict withdrawn; the status follows the verdicts that remain. */
export function undoReview(state: ReviewState, reviewerId: string): ReviewState {
  if (state.status !== 'approved' && state.status !== 'changes-requested') {
    throw new InvalidInputError(`Can only undo a review on an approved or changes-requested draft (status is "${state.status}")`);
  }
  const own = state.reviews.find((review) => review.userId === reviewerId);
  if (!own || (own.status !== 'approved' && own.status !== 'changes-requested')) {
    throw new InvalidInputError('You have no active review verdict to undo');
  }
  const reviews = state.reviews.filter((review) => review.userId !== reviewerId);
  return { status: statusOfVerdicts(reviews), reviews };
}

/** Verdicts given before a change of the draft's content, marked stale; stale ones stay stale. */
export function staleReviews(reviews: RevisionReview[]): RevisionReview[] {
  return reviews.map((review) =>
    review.status === 'approved' || review.status === 'changes-requested' ? { ...review, status: `${review.status}-stale` as ReviewVerdict } : review,
  );
}

/**
 * A draft's status and verdicts after its content changed. A draft sent back for changes goes back to
 * waiting for review; an approved one too unless `resetApproval` is false (GrowthBook keeps an approval
 * through an edit its rule does not reset on). Whenever the draft goes back to waiting, the verdicts
 * given so far go stale; a plain draft stays a draft.
 */
export function afterEdit(state: ReviewState, resetApproval = true): ReviewState {
  const back = state.status === 'changes-requested' || (state.status === 'approved' && resetApproval);
  return back ? { status: 'pending-review', reviews: staleReviews(state.reviews) } : state;
}

// ---- approval rules ----

/** One approval rule as GrowthBook stores it for flags, configs and constants (`requireReviews`). */
export interface RequireReviewRule {
  requireReviewOn?: boolean;
  projects?: string[];
  resetReviewOnChange?: boolean;
  environments?: string[];
  featureRequireEnvironmentReview?: boolean;
  featureRequireMetadataReview?: boolean;
  blockSelfApproval?: boolean;
  autopublishOnApproval?: boolean;
  requiredApproverTeams?: string[];
}

/** One approval rule for saved groups (`approvalFlows.savedGroups`). */
export interface SavedGroupApprovalRule {
  required: boolean;
  projects?: string[];
  resetReviewOnChange?: boolean;
  requireMetadataReview?: boolean;
  blockSelfApproval?: boolean;
  autopublishOnApproval?: boolean;
  requiredApproverTeams?: string[];
}

/** An organization's approval settings, as `PUT /settings/approvals` replaces them. */
export interface ApprovalSettings {
  requireReviews: RequireReviewRule[];
  approvalFlows: { savedGroups: SavedGroupApprovalRule[] };
  /** GrowthBook's "REST API always bypasses approval requirements". */
  restApiBypassesReviews?: boolean;
  /** Reverts need no approval (and publish by default). */
  revertsBypassApproval?: boolean;
}

/** The approval rule of any resource, whichever family it belongs to. */
export interface ReviewRule {
  required: boolean;
  /** Where rule and value changes need review; empty: everywhere. */
  environments: string[];
  /** Whether turning an environment on or off needs review (GrowthBook: true unless set false). */
  environmentToggles: boolean;
  /** Whether a change of metadata alone needs review (GrowthBook: true unless set false). */
  metadata: boolean;
  resetReviewOnChange: boolean;
  blockSelfApproval: boolean;
  /** Whether a draft may be armed to publish the moment it is approved (GrowthBook's `autopublishOnApproval`). */
  autopublishOnApproval: boolean;
  /** Teams one of whose members must be among the approvers (any one of them will do); empty: anyone who may review. */
  requiredApproverTeams: string[];
}

/**
 * The rule that governs a resource in `projects`: the first rule naming one of them, or the first rule
 * naming no project (which covers every project), in the order the rules are stored (GrowthBook's
 * `getReviewSetting`). Undefined when none applies.
 */
export function ruleFor<R extends { projects?: string[] }>(rules: R[], projects: readonly string[]): R | undefined {
  return rules.find((rule) => !rule.projects?.length || rule.projects.some((project) => projects.includes(project)));
}

/** A flag/config/constant rule in the common form. */
export const fromRequireReview = (rule: RequireReviewRule | undefined): ReviewRule | undefined =>
  rule && {
    required: !!rule.requireReviewOn,
    environments: rule.environments ?? [],
    environmentToggles: rule.featureRequireEnvironmentReview !== false,
    metadata: rule.featureRequireMetadataReview !== false,
    resetReviewOnChange: !!rule.resetReviewOnChange,
    blockSelfApproval: !!rule.blockSelfApproval,
    autopublishOnApproval: !!rule.autopublishOnApproval,
    requiredApproverTeams: rule.requiredApproverTeams ?? [],
  };

/** A saved-group rule in the common form (saved groups have no environments). */
export const fromSavedGroupRule = (rule: SavedGroupApprovalRule | undefined): ReviewRule | undefined =>
  rule && {
    required: rule.required,
    environments: [],
    environmentToggles: true,
    metadata: rule.requireMetadataReview !== false,
    resetReviewOnChange: !!rule.resetReviewOnChange,
    blockSelfApproval: !!rule.blockSelfApproval,
    autopublishOnApproval: !!rule.autopublishOnApproval,
    requiredApproverTeams: rule.requiredApproverTeams ?? [],
  };

/**
 * The required approver teams no standing approval comes from (GrowthBook's `assessRequiredApproverTeams`
 * for one rule): empty when a member of any one of `teams` approved, else every one of them (any would
 * do). `teams` are the rule's teams that still exist: a rule whose teams are all gone requires nobody.
 */
export function missingApproverTeams(teams: Array<{ id: string; name: string; members: string[] }>, reviews: RevisionReview[]): Array<{ id: string; name: string }> {
  const approvers = new Set(reviews.filter((review) => review.status === 'approved').map((review) => review.userId));
  if (!teams.length || teams.some((team) => team.members.some((member) => approvers.has(member)))) return [];
  return teams.map(({ id, name }) => ({ id, name }));
}

/**
 * What a change touches, as the review decision reads it: a change that reaches every environment
 * (`global`: a value, prerequisites, archiving — or only metadata), the environments whose rules
 * changed, the environments turned on or off, and how many environments there are.
 */
export interface ChangeScope {
  global: 'none' | 'metadata' | 'other';
  ruleEnvironments: string[];
  toggledEnvironments: string[];
  environmentCount: number;
}

/**
 * Whether a change needs review under `rule` (GrowthBook's `checkIfRevisionNeedsReview`): never without a
 * rule that requires review; a global change always, metadata unless the rule exempts it (then what else
 * the change touches decides); a change that reaches every environment always; rule changes in a gated environment (any, when the rule
 * names none); toggles likewise, unless the rule exempts toggles.
 */
export function needsReview(rule: ReviewRule | undefined, change: ChangeScope): boolean {
  if (!rule?.required) return false;
  if (change.global === 'other') return true;
  // Metadata alone may be exempt; a rule or toggle change beside it is still judged on its own.
  if (change.global === 'metadata' && rule.metadata) return true;
  const affected = new Set([...change.ruleEnvironments, ...change.toggledEnvironments]);
  if (affected.size === 0) return false;
  if (change.environmentCount > 0 && affected.size >= change.environmentCount) return true;
  const gated = (envs: string[]) => envs.length > 0 && (rule.environments.length === 0 || envs.some((env) => rule.environments.includes(env)));
  return gated(change.ruleEnvironments) || (rule.environmentToggles && gated(change.toggledEnvironments));
}

/**
 * Whether an edit sends an approved draft back to review (GrowthBook's `resetReviewOnChange`): only under a
 * rule that requires review and resets on change, for an edit that is global or touches a gated environment.
 */
export function resetsApproval(rule: ReviewRule | undefined, edit: ChangeScope): boolean {
  if (!rule?.required || !rule.resetReviewOnChange) return false;
  if (edit.global !== 'none') return true;
  const touched = [...edit.ruleEnvironments, ...edit.toggledEnvironments];
  return touched.length > 0 && (rule.environments.length === 0 || touched.some((env) => rule.environments.includes(env)));
}

// ---- the revision log ----

/** Who did something, as GrowthBook's `EventUser` records it: a member (`dashboard`) or an API key. */
export interface LogUser {
  type: 'dashboard' | 'api_key' | 'system';
  id?: string;
}

/** One entry of a revision's log (GrowthBook's `log` schema). */
export interface RevisionLogEntry {
  id: string;
  action: string;
  subject: string;
  /** JSON-encoded payload. */
  value: string;
  timestamp: string;
  user: LogUser | null;
}

/** Who a caller is in the log: the member behind a personal access token, or the API key itself. */
export const logUserOf = (caller: { memberId?: string; keyId: string }): LogUser =>
  caller.memberId ? { type: 'dashboard', id: caller.memberId } : { type: 'api_key', id: caller.keyId };

/** The longest value an entry keeps whole (characters of JSON). */
export const LOG_VALUE_LIMIT = 2_000;

/**
 * A new log entry by `caller`, now; `value` is JSON-encoded (GrowthBook logs `{}` when there is nothing to
 * say). The log lives on the revision item, which DynamoDB caps at 400 KB, so a value longer than
 * `LOG_VALUE_LIMIT` is recorded by the names of its fields only (`{"fields":[...]}`).
 */
export function logEntry(caller: { memberId?: string; keyId: string }, action: string, details: { subject?: string; value?: object } = {}): RevisionLogEntry {
  const value = JSON.stringify(details.value ?? {});
  return {
    id: newId('frl_'),
    action,
    subject: details.subject ?? '',
    value: value.length > LOG_VALUE_LIMIT ? JSON.stringify({ fields: Object.keys(details.value ?? {}) }) : value,
    timestamp: new Date().toISOString(),
    user: logUserOf(caller),
  };
}

/** The log action of a draft edit, named after the one field it changed (`edit defaultValue`), or `edit`. */
export function editAction(changes: object): string {
  const fields = Object.keys(changes);
  return fields.length === 1 ? `edit ${fields[0]}` : 'edit';
}

/** The log action of each review action (GrowthBook's names). */
export const reviewLogAction: Record<ReviewAction, string> = { approve: 'Approved', 'request-changes': 'Requested Changes', comment: 'Comment' };

/** Actions whose comment text the entry's author may rewrite. */
const editableActions = new Set(['Comment', 'Approved', 'Requested Changes']);
/** Actions whose entry its author may delete (a verdict is withdrawn with undo-review instead). */
const deletableActions = new Set(['Comment']);

/** Whether the entry was written by this person (only members own entries: an API key is nobody). */
const ownedBy = (entry: RevisionLogEntry, personId: string | undefined) => !!personId && entry.user?.type === 'dashboard' && entry.user.id === personId;

/** The log with the comment of entry `logId` rewritten; refused unless the caller wrote that comment or verdict. */
export function editLogComment(log: RevisionLogEntry[], logId: string, personId: string | undefined, comment: string): RevisionLogEntry[] {
  const entry = log.find((candidate) => candidate.id === logId);
  if (!entry) throw new NotFoundError('Could not find revision log entry');
  if (!editableActions.has(entry.action) || !ownedBy(entry, personId)) throw new ForbiddenError('You do not have access to update this resource');
  let payload: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(entry.value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
  } catch {
    // A value that is not a JSON object is replaced by the comment alone.
  }
  return log.map((candidate) => (candidate === entry ? { ...entry, value: JSON.stringify({ ...payload, comment }) } : candidate));
}

/**
 * The log without entry `logId`; refused unless it is a plain comment the caller wrote. An entry that is
 * not there leaves the log as it is (GrowthBook answers that delete as done).
 */
export function deleteLogEntry(log: RevisionLogEntry[], logId: string, personId: string | undefined): RevisionLogEntry[] {
  const entry = log.find((candidate) => candidate.id === logId);
  if (!entry) return log;
  if (!deletableActions.has(entry.action) || !ownedBy(entry, personId)) throw new ForbiddenError('You do not have access to delete this resource');
  return log.filter((candidate) => candidate !== entry);
}
