import * as contract from '../contracts/saved-group-revisions';
import type { SavedGroup } from '../contracts/saved-groups';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError, PublishBlockedError, UnresolvedConflictError } from '../errors';
import { newId } from '../ids';
import { assertCan, can, canRead, type Principal } from '../permissions';
import { tableName } from '../db/client';
import { keys } from '../db/keys';
import { retryOnConflict } from '../db/optimistic';
import { transact, type TransactionOp, type Versioned } from '../db/repository';
import { authorOf, canonicalJson } from '../domain/features';
import { paginated } from '../domain/pagination';
import { afterEdit, discarded, openStatuses, reopened } from '../domain/revisions';
import {
  needsReview,
  recallReview,
  requestReview,
  resetsApproval,
  submitReview,
  undoReview,
  type ApprovalSettings,
  type ReviewState,
} from '../domain/revision-reviews';
import { assertConditionNotEmpty, assertValuesSize } from '../domain/saved-groups';
import {
  assertOpen,
  changesNothing,
  fieldsOfGroup,
  groupChangeScope,
  groupReviewRule,
  mergeGroup,
  presentSavedGroupRevision,
  shownStatus,
  storedStatus,
  withGroupFields,
  type ActivityEntry,
  type SavedGroupFields,
  type StoredSavedGroupRevision,
} from '../domain/saved-group-revisions';
import { prepareTouch } from '../payload/write';
import { walkGroupIds } from '../payload/saved-group-references';
import { experiments } from '../store/experiments';
import { features } from '../store/features';
import { resolveOwner } from '../store/members';
import { readOrganizationSettings } from '../store/organizations';
import { assertProjectsExist } from '../store/projects';
import { matches } from '../store/revisions';
import { savedGroupRevisions as store } from '../store/saved-group-revisions';
import { savedGroups } from '../store/saved-groups';
import { approvalBypass, approvalSettings, requiredApproversGate } from './approvals';
import { armedBy, disarmed, publishOnApproval } from './auto-publish';
import { contributorsAfter } from './feature-revisions';
import { skipPaginationAllowed } from './features';
import { readableBy, readableOr404 } from './read-access';
import { pendingAt } from './scheduled-publish';
import { prepareSavedGroupRevisionEvent, type SavedGroupRevisionEventName } from './saved-group-revision-events';
import { eventReviewer } from './revision-events';
import { preparePublishBoundary } from '../store/schedule-boundaries';

/**
 * Saved-group revisions (GrowthBook 5's `/saved-groups-revisions`) on the revision engine: drafts
 * are stored and edited through the engine's store (each write conditional on the draft as read),
 * merged with its flat three-way merge, and moved through its statuses. Editing a draft never
 * changes the live group, so SDKs never see it; publishing writes the group, the revision and the
 * payload's references version in one transaction, conditional on the group as merged against.
 */

const MANAGE = 'manageSavedGroups' as const;
const projectsOf = (group: Pick<SavedGroup, 'projects'>) => group.projects ?? [];
const by = (auth: Principal) => authorOf(auth, '').by;

const logEntry = (auth: Principal, action: ActivityEntry['action'], description?: string): ActivityEntry => ({
  id: newId('log_'),
  userId: by(auth),
  action,
  ...(description ? { description } : {}),
  dateCreated: new Date().toISOString(),
});

/** The saved group with its version; 404 when there is none. */
async function readGroup(orgId: string, id: string): Promise<Versioned<SavedGroup>> {
  const group = await savedGroups.read(orgId, id);
  if (!group) throw new NotFoundError('Could not find saved group');
  return group;
}

/** The saved group for a read: 404 as well when the caller may not read its projects. */
async function readableGroup(auth: Principal, id: string): Promise<SavedGroup> {
  const group = (await readGroup(auth.orgId, id)).entity;
  return readableOr404(auth, group, projectsOf(group), 'Saved group', id);
}

async function readRevisionOf(orgId: string, groupId: string, version: number): Promise<StoredSavedGroupRevision> {
  const revision = await store.read(orgId, groupId, version);
  if (!revision) throw new NotFoundError('Could not find saved group revision');
  return revision;
}

const presentOne = (revision: StoredSavedGroupRevision) => ({ revision: presentSavedGroupRevision(revision) });

/** A transaction op that holds only while the group is still at the version read. */
const unchanged = (orgId: string, group: Versioned<SavedGroup>): TransactionOp => ({
  op: {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.entity(orgId, 'SAVED_GROUP', group.entity.id),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': group.version },
    },
  },
  onConditionFailed: () => new ConflictError('conflict', `Saved group ${group.entity.id} was changed by another request; retry`),
});

/** A revision record of the group as read, numbered `version`, holding `proposed`. */
function revisionRecord(
  auth: Principal,
  group: SavedGroup,
  version: number,
  proposed: SavedGroupFields,
  rest: Partial<StoredSavedGroupRevision> = {},
): StoredSavedGroupRevision {
  const now = new Date().toISOString();
  return {
    id: newId('rev_'),
    savedGroupId: group.id,
    version,
    status: 'draft',
    date: now,
    dateUpdated: now,
    createdBy: by(auth),
    base: group,
    proposed,
    activityLog: [logEntry(auth, 'created')],
    reviews: [],
    changeCount: 0,
    ...rest,
  };
}

/**
 * Stores a new revision of the group as read, conditional on the group being unchanged and the
 * number free (a lost race reads again). A group's first revision is preceded by one for its live
 * state, published, as GrowthBook records it, so that state can be reverted to.
 */
function createRevision(
  auth: Principal,
  groupId: string,
  make: (group: Versioned<SavedGroup>, version: number) => { record: StoredSavedGroupRevision; ops?: TransactionOp[] },
) {
  return retryOnConflict(async () => {
    const group = await readGroup(auth.orgId, groupId);
    assertCan(auth, MANAGE, projectsOf(group.entity));
    let newest = await store.newestVersion(auth.orgId, groupId);
    const ops: TransactionOp[] = [];
    if (newest === 0) {
      const live = revisionRecord(auth, group.entity, 1, fieldsOfGroup(group.entity), {
        status: 'published',
        activityLog: [logEntry(auth, 'merged', 'The live saved group when its first revision was made')],
      });
      ops.push(store.prepareCreate(auth.orgId, live));
      newest = 1;
    }
    const { record, ops: more } = make(group, newest + 1);
    const created = record.status === 'draft' ? [prepareSavedGroupRevisionEvent(auth.orgId, 'created', record)] : [];
    await transact([...ops, store.prepareCreate(auth.orgId, record), ...(more ?? [unchanged(auth.orgId, group)]), ...created]);
    return record;
  });
}

/** A new draft of the group, branched from its live state; SDKs see nothing of it. */
const newDraft = (auth: Principal, groupId: string, text: { title?: string; comment?: string }, proposedFrom = fieldsOfGroup) =>
  createRevision(auth, groupId, (group, version) => ({
    record: revisionRecord(auth, group.entity, version, proposedFrom(group.entity), {
      ...(text.title ? { title: text.title } : {}),
      ...(text.comment ? { comment: text.comment } : {}),
    }),
  }));

/**
 * One edit of a draft (`version`, or a new draft for `'new'`): `edit` gives the draft's next fields
 * (and refuses what a publish would refuse), and the draft is written conditional on nobody having
 * changed it meanwhile (a lost race edits again). Verdicts go stale. The live group is untouched.
 */
async function editDraft(
  auth: Principal,
  groupId: string,
  version: number | 'new',
  edit: (fields: SavedGroupFields, live: SavedGroup) => SavedGroupFields | Promise<SavedGroupFields>,
  text: { revisionTitle?: string; revisionComment?: string },
  change: string,
) {
  let number = version;
  if (number === 'new') {
    const live = await readGroup(auth.orgId, groupId);
    assertCan(auth, MANAGE, projectsOf(live.entity));
    // A refused edit leaves no empty draft behind.
    await edit(fieldsOfGroup(live.entity), live.entity);
    number = (await newDraft(auth, groupId, { title: text.revisionTitle, comment: text.revisionComment })).version;
  }
  const draftNumber = number;
  const written = await retryOnConflict(async () => {
    const [live, draft] = await Promise.all([readGroup(auth.orgId, groupId), readRevisionOf(auth.orgId, groupId, draftNumber)]);
    assertCan(auth, MANAGE, projectsOf(live.entity));
    assertOpen(draft, 'edit');
    if (draft.scheduledPublishAt && draft.scheduledPublishLockEdits) {
      throw new InvalidInputError(
        `Revision ${draft.version} is locked for edits until its scheduled publish at ${draft.scheduledPublishAt}; cancel the schedule first`,
      );
    }
    const proposed = await edit(draft.proposed, live.entity);
    const changed = canonicalJson(proposed) !== canonicalJson(draft.proposed);
    const next: StoredSavedGroupRevision = {
      ...draft,
      proposed,
      ...(changed ? await reviewStateAfterEdit(auth.orgId, live.entity, draft, proposed) : {}),
      contributors: contributorsAfter(draft, auth),
      activityLog: changed ? [...draft.activityLog, logEntry(auth, 'updated', change)] : draft.activityLog,
    };
    const { written, ...op } = store.prepareWrite(auth.orgId, draft, next);
    const updated = changed
      ? [prepareSavedGroupRevisionEvent(auth.orgId, 'updated', written, { change: change === 'archived' ? 'archive' : change })]
      : [];
    await transact([op, ...updated]);
    return written;
  });
  return presentOne(written);
}

/**
 * A draft's review state once an edit changed its fields: a request for changes always goes back to
 * review; an approval only where the group's rule resets on change. Verdicts go stale whenever it goes back.
 */
async function reviewStateAfterEdit(
  orgId: string,
  live: SavedGroup,
  draft: StoredSavedGroupRevision,
  proposed: SavedGroupFields,
): Promise<ReviewState> {
  const state = reviewState(draft);
  if (state.status !== 'approved') return afterEdit(state);
  const rule = groupReviewRule(await approvalSettings(orgId), projectsOf(live));
  return afterEdit(state, resetsApproval(rule, groupChangeScope(draft.proposed, proposed)));
}

/** Whether the group's approval rule requires review of the change from `before` to `after`. */
const needsApproval = (settings: ApprovalSettings, before: SavedGroup, after: SavedGroup) =>
  needsReview(groupReviewRule(settings, projectsOf(before)), groupChangeScope(fieldsOfGroup(before), fieldsOfGroup(after)));

/**
 * The approval gate of a change of a live group (GrowthBook's `approval-required`): a change the
 * group's rule requires review of needs `approved` (a draft's status) or a caller who may bypass
 * approval, else `refuse()` is thrown; answers the gate bypassed, if one was.
 */
function approvalGate(
  auth: Principal,
  settings: ApprovalSettings,
  change: { before: SavedGroup; after: SavedGroup; approved: boolean },
  refuse: () => Error,
) {
  if (change.approved || !needsApproval(settings, change.before, change.after)) return [];
  const via = approvalBypass(auth, settings, projectsOf(change.before));
  if (!via) throw refuse();
  return [{ type: 'approval-required', outcome: 'bypassed' as const, via }];
}

/**
 * GrowthBook's gate on a direct update of a live group (`POST /saved-groups/{id}`): a change the
 * group's approval rule requires review of is refused (400) unless the caller asks to bypass
 * (`bypassApproval`), and then refused (403) unless the caller may bypass approval.
 */
export function assertDirectGroupChange(
  auth: Principal,
  settings: ApprovalSettings,
  change: { before: SavedGroup; after: SavedGroup; bypassApproval?: boolean },
): void {
  if (!needsApproval(settings, change.before, change.after)) return;
  if (!change.bypassApproval) {
    throw new InvalidInputError(
      `This organization requires approvals on saved groups. Use \`POST /saved-groups-revisions/${change.before.id}\` to open a draft, or pass { "bypassApproval": true } if you may bypass approvals.`,
    );
  }
  if (!approvalBypass(auth, settings, projectsOf(change.before)))
    throw new ForbiddenError('You do not have permission to bypass approvals on this saved group');
}

const approvalRequired = (groupId: string, version: number | undefined, status: string) =>
  new PublishBlockedError([
    {
      entityType: 'saved-group',
      id: groupId,
      version: version ?? 0,
      type: 'approval-required',
      severity: 'blocker',
      messages: [
        version === undefined
          ? 'This organization requires approval to change this Saved Group.'
          : `Requires approval before publishing (status: "${status}").`,
      ],
      override: null,
      requiresPermission: 'bypassApprovalChecks',
      resolution:
        version === undefined
          ? { action: 'create-draft', method: 'POST', path: `/saved-groups-revisions/${groupId}` }
          : { action: 'request-review', method: 'POST', path: `/saved-groups-revisions/${groupId}/${version}/request-review` },
    },
  ]);

function assertType(group: SavedGroup, type: SavedGroup['type']): void {
  if (group.type !== type) throw new InvalidInputError(`This action is only valid for ${type} saved groups`);
}

const dedupe = (values: string[]) => [...new Set(values)];

/** `GET /saved-groups-revisions`: the organization's saved-group revisions the caller may read, newest first. */
export async function listSavedGroupRevisions({
  auth,
  query,
}: UseCaseInput<typeof contract.listSavedGroupRevisions>): UseCaseOutput<typeof contract.listSavedGroupRevisions> {
  const filter = revisionFilter(auth, query);
  if (query.savedGroupId) return groupRevisionPage(auth, query.savedGroupId, query, filter);
  const all = await store.allOfType(auth.orgId, filter);
  const groups = new Map(
    (await savedGroups.getMany(auth.orgId, [...new Set(all.map((revision) => revision.savedGroupId))])).map((group) => [group.id, group]),
  );
  // Revisions of a group deleted since, or in projects the caller may not read, are left out.
  const visible = all
    .filter((revision) => {
      const group = groups.get(revision.savedGroupId);
      return group && canRead(auth, projectsOf(group));
    })
    .sort((a, b) => (a.date !== b.date ? (a.date < b.date ? 1 : -1) : b.version - a.version));
  const skip = query.skipPagination && skipPaginationAllowed();
  const items = skip ? visible : visible.slice(query.offset, query.offset + query.limit);
  return paginated(
    'revisions',
    { items: items.map(presentSavedGroupRevision), total: visible.length },
    skip ? { limit: visible.length, offset: 0 } : query,
  );
}

function revisionFilter(auth: Principal, query: { status?: contract.SavedGroupRevisionStatus[]; author?: string; mine?: boolean }) {
  if (query.mine && query.author) throw new InvalidInputError('Querystring: [mine] cannot be combined with author');
  if (query.mine && !auth.memberId) throw new InvalidInputError('Querystring: [mine] needs a personal access token: a secret key has no user');
  return { statuses: query.status?.map(storedStatus), author: query.author, mine: query.mine ? by(auth) : undefined };
}

async function groupRevisionPage(
  auth: Principal,
  groupId: string,
  query: { limit: number; offset: number; skipPagination?: boolean },
  filter: ReturnType<typeof revisionFilter>,
) {
  await readableGroup(auth, groupId);
  if (query.skipPagination && skipPaginationAllowed()) {
    const all = (await store.latest(auth.orgId, groupId, Infinity)).filter((revision) => matches(revision, filter));
    return paginated('revisions', { items: all.map(presentSavedGroupRevision), total: all.length }, { limit: all.length, offset: 0 });
  }
  const page = await store.listPage(auth.orgId, groupId, { limit: query.limit, offset: query.offset, filter });
  return paginated('revisions', { items: page.items.map(presentSavedGroupRevision), total: page.total }, query);
}

/** `GET /saved-groups-revisions/{savedGroupId}`: one group's revisions, newest first. */
export async function getSavedGroupRevisions({
  auth,
  params,
  query,
}: UseCaseInput<typeof contract.getSavedGroupRevisions>): UseCaseOutput<typeof contract.getSavedGroupRevisions> {
  return groupRevisionPage(auth, params.savedGroupId, query, revisionFilter(auth, query));
}

/** `POST /saved-groups-revisions/{savedGroupId}`: a draft branched from the live group. */
export async function postSavedGroupRevision({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevision>): UseCaseOutput<typeof contract.postSavedGroupRevision> {
  return presentOne(await newDraft(auth, params.savedGroupId, body));
}

/** `GET /saved-groups-revisions/{savedGroupId}/latest`: the open revision updated last; 404 when there is none. */
export async function getSavedGroupRevisionLatest({
  auth,
  params,
  query,
}: UseCaseInput<typeof contract.getSavedGroupRevisionLatest>): UseCaseOutput<typeof contract.getSavedGroupRevisionLatest> {
  const filter = revisionFilter(auth, query);
  await readableGroup(auth, params.savedGroupId);
  const open = (await store.latest(auth.orgId, params.savedGroupId, Infinity, openStatuses)).filter(
    (revision) => !filter.mine || revision.createdBy === filter.mine,
  );
  const [latest] = open.sort((a, b) => (b.dateUpdated ?? b.date).localeCompare(a.dateUpdated ?? a.date) || b.version - a.version);
  if (!latest) throw new NotFoundError(`Saved group ${params.savedGroupId} has no active draft`);
  return presentOne(latest);
}

/** `GET /saved-groups-revisions/{savedGroupId}/{version}`. */
export async function getSavedGroupRevision({
  auth,
  params,
}: UseCaseInput<typeof contract.getSavedGroupRevision>): UseCaseOutput<typeof contract.getSavedGroupRevision> {
  await readableGroup(auth, params.savedGroupId);
  return presentOne(await readRevisionOf(auth.orgId, params.savedGroupId, params.version));
}

/** `PUT .../{version}/metadata`: name, owner, description, projects. */
export async function putSavedGroupRevisionMetadata({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.putSavedGroupRevisionMetadata>): UseCaseOutput<typeof contract.putSavedGroupRevisionMetadata> {
  const { revisionTitle, revisionComment, owner: ownerInput, ...fields } = body;
  if (Object.keys(fields).length === 0 && ownerInput === undefined) {
    throw new InvalidInputError('Request body: give at least one of name, owner, description, projects');
  }
  if (fields.projects) assertCan(auth, MANAGE, fields.projects);
  const [owner] = await Promise.all([
    ownerInput !== undefined ? resolveOwner(auth.orgId, ownerInput) : undefined,
    assertProjectsExist(auth.orgId, fields.projects),
  ]);
  return editDraft(
    auth,
    params.savedGroupId,
    params.version,
    (current) => {
      const next: SavedGroupFields = { ...current, ...fields };
      if (owner) {
        next.owner = owner.owner;
        if (owner.ownerEmail === undefined) delete next.ownerEmail;
        else next.ownerEmail = owner.ownerEmail;
      }
      return next;
    },
    { revisionTitle, revisionComment },
    'metadata',
  );
}

/** `PUT .../{version}/condition`: a condition group's condition. */
export async function putSavedGroupRevisionCondition({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.putSavedGroupRevisionCondition>): UseCaseOutput<typeof contract.putSavedGroupRevisionCondition> {
  return editDraft(
    auth,
    params.savedGroupId,
    params.version,
    (current, live) => {
      assertType(live, 'condition');
      assertConditionNotEmpty(body.condition);
      return { ...current, condition: body.condition };
    },
    body,
    'condition',
  );
}

/** `PUT .../{version}/values`: a list group's values, replaced whole. */
export async function putSavedGroupRevisionValues({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.putSavedGroupRevisionValues>): UseCaseOutput<typeof contract.putSavedGroupRevisionValues> {
  return editDraft(
    auth,
    params.savedGroupId,
    params.version,
    (current, live) => {
      assertType(live, 'list');
      assertValuesSize(body.values);
      return { ...current, values: body.values };
    },
    body,
    'values',
  );
}

/** `PUT .../{version}/archive`: an archive or unarchive staged in the draft (dependents are checked on publish). */
export async function putSavedGroupRevisionArchive({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.putSavedGroupRevisionArchive>): UseCaseOutput<typeof contract.putSavedGroupRevisionArchive> {
  return editDraft(auth, params.savedGroupId, params.version, (current) => ({ ...current, archived: body.archived }), body, 'archived');
}

/** `POST .../{version}/items/add`: items appended to the draft's values, each once. */
export async function postSavedGroupRevisionItemsAdd({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionItemsAdd>): UseCaseOutput<typeof contract.postSavedGroupRevisionItemsAdd> {
  return editDraft(
    auth,
    params.savedGroupId,
    params.version,
    (current, live) => {
      assertType(live, 'list');
      const values = dedupe([...(current.values ?? []), ...body.items]);
      assertValuesSize(values);
      return { ...current, values };
    },
    body,
    'values',
  );
}

/** `POST .../{version}/items/remove`: items taken out of the draft's values. */
export async function postSavedGroupRevisionItemsRemove({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionItemsRemove>): UseCaseOutput<typeof contract.postSavedGroupRevisionItemsRemove> {
  const removed = new Set(body.items);
  return editDraft(
    auth,
    params.savedGroupId,
    params.version,
    (current, live) => {
      assertType(live, 'list');
      return { ...current, values: (current.values ?? []).filter((value) => !removed.has(value)) };
    },
    body,
    'values',
  );
}

/** `GET .../{version}/merge-status`: the three-way merge against the live group, not applied. */
export async function getSavedGroupRevisionMergeStatus({
  auth,
  params,
}: UseCaseInput<typeof contract.getSavedGroupRevisionMergeStatus>): UseCaseOutput<typeof contract.getSavedGroupRevisionMergeStatus> {
  const [live, draft] = await Promise.all([
    readableGroup(auth, params.savedGroupId),
    readRevisionOf(auth.orgId, params.savedGroupId, params.version),
  ]);
  const outcome = mergeGroup(live, draft);
  return { success: outcome.success, hasConflicts: outcome.conflicts.length > 0, conflicts: outcome.conflicts, canAutoMerge: outcome.success };
}

const mergeConflictError = (message: string, conflicts: unknown[]) => new UnresolvedConflictError(message, { conflicts });

/**
 * `POST .../{version}/rebase`: the draft re-based on the live group, holding the merge; every
 * conflicting field needs a strategy in `conflictResolutions`, else 409 with the conflicts.
 */
export async function postSavedGroupRevisionRebase({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionRebase>): UseCaseOutput<typeof contract.postSavedGroupRevisionRebase> {
  const written = await retryOnConflict(async () => {
    const [live, draft] = await Promise.all([
      readGroup(auth.orgId, params.savedGroupId),
      readRevisionOf(auth.orgId, params.savedGroupId, params.version),
    ]);
    assertCan(auth, MANAGE, projectsOf(live.entity));
    if (!openStatuses.includes(draft.status)) {
      throw new InvalidInputError(`Can only rebase active draft revisions (status is "${shownStatus(draft.status)}")`);
    }
    const outcome = mergeGroup(live.entity, draft, { strategies: body.conflictResolutions, customValues: body.customValues });
    if (!outcome.success) {
      const unresolved = outcome.conflicts.find((conflict) => !body.conflictResolutions?.[conflict.field]);
      throw mergeConflictError(`Please resolve conflict for field: ${unresolved?.field}`, outcome.conflicts);
    }
    const changed = canonicalJson(outcome.merged) !== canonicalJson(draft.proposed);
    const next: StoredSavedGroupRevision = {
      ...draft,
      base: live.entity,
      proposed: outcome.merged,
      ...(changed ? afterEdit({ status: draft.status, reviews: draft.reviews ?? [] }) : {}),
      contributors: contributorsAfter(draft, auth),
    };
    // The base moves with the live group: conditional on it as read, so the draft never records a base that never was.
    const { written, ...op } = store.prepareWrite(auth.orgId, draft, next);
    await transact([op, unchanged(auth.orgId, live), prepareSavedGroupRevisionEvent(auth.orgId, 'rebased', written)]);
    return written;
  });
  return presentOne(written);
}

/** The groups, features and experiments that reference a saved group, as the caller may read them. */
async function referencesTo(auth: Principal, groupId: string): Promise<contract.SavedGroupReferences> {
  const [allFeatures, allExperiments, allGroups] = await Promise.all([
    features.all(auth.orgId),
    experiments.all(auth.orgId),
    savedGroups.all(auth.orgId),
  ]);
  const names = (conditions: Array<string | undefined>) => {
    let found = false;
    for (const condition of conditions) {
      if (!condition) continue;
      try {
        walkGroupIds(JSON.parse(condition), (id) => (found ||= id === groupId));
      } catch {
        // A condition that is not JSON names no group.
      }
    }
    return found;
  };
  const featureRefs = allFeatures.filter((feature) =>
    Object.values(feature.environments).some((settings) =>
      settings.rules.some(
        (rule) =>
          !!rule.savedGroupTargeting?.some((targeting) => targeting.savedGroups.includes(groupId)) ||
          names([rule.condition, ...(rule.prerequisites ?? []).map((prerequisite) => prerequisite.condition)]),
      ),
    ),
  );
  const experimentRefs = allExperiments.filter((experiment) =>
    experiment.phases.some(
      (phase) => !!phase.savedGroupTargeting?.some((targeting) => targeting.savedGroups.includes(groupId)) || names([phase.targetingCondition]),
    ),
  );
  const groupRefs = allGroups.filter((group) => group.id !== groupId && names([group.condition]));
  return {
    features: readableBy(auth, featureRefs, (feature) => (feature.project ? [feature.project] : [])).map((feature) => ({
      id: feature.id,
      ...(feature.project ? { project: feature.project } : {}),
    })),
    experiments: readableBy(auth, experimentRefs, (experiment) => (experiment.project ? [experiment.project] : [])).map((experiment) => ({
      id: experiment.id,
      name: experiment.name,
      ...(experiment.project ? { project: experiment.project } : {}),
    })),
    savedGroups: readableBy(auth, groupRefs, projectsOf).map((group) => ({ id: group.id, groupName: group.name, projects: projectsOf(group) })),
  };
}

/** Refuses (422) archiving a group still referenced, unless the caller acknowledges it with `ignoreWarnings`; answers the bypassed gates. */
async function archiveGate(auth: Principal, before: SavedGroup, after: SavedGroup, ignoreWarnings: boolean | undefined) {
  if (!after.archived || before.archived) return [];
  const references = await referencesTo(auth, before.id);
  const count = references.features.length + references.experiments.length + references.savedGroups.length;
  if (count === 0) return [];
  if (!ignoreWarnings) {
    const message = `Saved Group ${before.id} is still referenced by ${count} item(s) (features: ${references.features.length}, experiments: ${references.experiments.length}, saved groups: ${references.savedGroups.length}); send "ignoreWarnings": true to archive it anyway`;
    throw new PublishBlockedError([
      {
        entityType: 'saved-group',
        id: before.id,
        version: 0,
        type: 'archive-dependents',
        severity: 'warning',
        messages: [message],
        override: 'ignoreWarnings',
        requiresPermission: null,
        resolution: null,
      },
    ]);
  }
  return [{ type: 'archive-dependents', outcome: 'bypassed' as const, via: 'ignoreWarnings' as const }];
}

/**
 * Publishes an open draft: its merge into the live group goes live in one transaction with the
 * revision (now `merged`) and the SDK payload's references version, conditional on the group and
 * the draft as read. When another change lands first the merge is done again: published if there
 * is no conflict, else 409 with the conflicts. The one publish path: the endpoint, and a scheduled
 * publish, call it. Answers the revision as published and the gates bypassed.
 */
export async function publishSavedGroupDraft(auth: Principal, groupId: string, version: number, options: GroupPublishOptions = {}) {
  return retryOnConflict(async () => {
    const { ops, touch, revision, bypassedGates } = await decideGroupPublish(auth, groupId, version, options);
    await transact([...ops, touch]);
    return { revision, bypassedGates };
  });
}

/** What a saved group's publish brings besides the draft. */
export interface GroupPublishOptions {
  ignoreWarnings?: boolean;
  /** A scheduled publish's claim of its boundary, in place of the removal of the draft's pending boundary. */
  claim?: TransactionOp;
  /** GrowthBook's `bulkPublishId` of a release, on the published event. */
  bulkPublishId?: string;
}

/**
 * The decision of a saved group's publish, as read now: the writes (`ops`, conditional on the group
 * and the draft as read; `touch`, the payload's references version, apart so a release writes each
 * once), the revision as it will be stored and the gates bypassed. Throws what stops the publish.
 */
export async function decideGroupPublish(auth: Principal, groupId: string, version: number, options: GroupPublishOptions = {}) {
  const [live, draft, open] = await Promise.all([
    readGroup(auth.orgId, groupId),
    readRevisionOf(auth.orgId, groupId, version),
    store.latest(auth.orgId, groupId, Infinity, openStatuses),
  ]);
  assertCan(auth, MANAGE, projectsOf(live.entity));
  assertOpen(draft, 'publish');
  assertNotLockedByOthers(groupId, version, open);
  const outcome = mergeGroup(live.entity, draft);
  if (!outcome.success) throw mergeConflictError('Merge conflicts exist — rebase before publishing', outcome.conflicts);
  const next = withGroupFields(live.entity, outcome.merged);
  // A move to other projects lands the group there: the caller must manage them too.
  assertCan(auth, MANAGE, projectsOf(next));
  const settings = await approvalSettings(auth.orgId);
  // GrowthBook's separate gate: an approved draft can still lack the approval of a required team.
  const teams = await requiredApproversGate(auth.orgId, groupReviewRule(settings, projectsOf(live.entity)), draft, {
    entityType: 'saved-group',
    id: groupId,
    version: draft.version,
    requestReviewPath: `/saved-groups-revisions/${groupId}/${draft.version}/request-review`,
  });
  const approval = approvalGate(
    auth,
    settings,
    { before: live.entity, after: next, approved: draft.status === 'approved' && !teams },
    () =>
      new PublishBlockedError([
        ...(draft.status === 'approved' ? [] : approvalRequired(groupId, draft.version, shownStatus(draft.status)).gates),
        ...(teams ? [teams] : []),
      ]),
  );
  const bypassedGates = [...approval, ...(await archiveGate(auth, live.entity, next, options.ignoreWarnings))];
  const update = savedGroups.prepareUpdate(auth.orgId, live, next);
  const now = new Date().toISOString();
  const { written, ...revisionOp } = store.prepareWrite(auth.orgId, draft, {
    ...withoutSchedule(draft),
    status: 'published',
    base: live.entity,
    proposed: outcome.merged,
    resolution: { action: 'merged', userId: by(auth), dateCreated: now },
    activityLog: [...draft.activityLog, logEntry(auth, 'merged')],
  });
  // The draft's pending scheduled publish goes with it: removed, or claimed by the run that fires it.
  const boundary = options.claim ? [options.claim] : preparePublishBoundary(auth.orgId, { savedGroupId: groupId, version }, pendingAt(draft));
  const bulk = options.bulkPublishId ? { bulkPublishId: options.bulkPublishId } : {};
  // A revert that waited for review lands now: reported as a revert too, as GrowthBook does.
  const revertedTo = draft.revertedFrom
    ? (await store.latest(auth.orgId, groupId, Infinity)).find((revision) => revision.id === draft.revertedFrom)
    : undefined;
  const events = [
    prepareSavedGroupRevisionEvent(auth.orgId, 'published', written, bulk),
    ...(draft.revertedFrom
      ? [
          prepareSavedGroupRevisionEvent(auth.orgId, 'reverted', written, {
            ...bulk,
            ...(revertedTo ? { revertedToVersion: revertedTo.version } : {}),
          }),
        ]
      : []),
  ];
  return { ops: [update, revisionOp, ...boundary, ...events], touch: prepareTouch(auth.orgId, groupId), revision: written, bypassedGates };
}

/** Refuses a publish while another open revision of the group is scheduled with `lockOthers` (GrowthBook's pending-schedule guard). */
function assertNotLockedByOthers(groupId: string, version: number, open: StoredSavedGroupRevision[]): void {
  const lock = open.find((other) => other.version !== version && other.scheduledPublishAt && other.scheduledPublishLockOthers);
  if (!lock) return;
  throw new PublishBlockedError([
    {
      entityType: 'saved-group',
      id: groupId,
      version,
      type: 'pending-schedule',
      severity: 'blocker',
      messages: [
        `Revision ${lock.version} is scheduled to publish at ${lock.scheduledPublishAt} and holds other revisions until it fires or is cancelled.`,
      ],
      override: null,
      requiresPermission: null,
      resolution: { action: 'cancel-schedule', method: 'POST', path: `/saved-groups-revisions/${groupId}/${lock.version}/schedule-publish` },
    },
  ]);
}

/** `POST .../{version}/publish`. */
export async function postSavedGroupRevisionPublish({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionPublish>): UseCaseOutput<typeof contract.postSavedGroupRevisionPublish> {
  const { revision, bypassedGates } = await publishSavedGroupDraft(auth, params.savedGroupId, params.version, body);
  return { ...presentOne(revision), ...(bypassedGates.length ? { bypassedGates } : {}) };
}

/** A status change of a revision, conditional on it being unchanged since read. */
async function moveRevision(
  auth: Principal,
  groupId: string,
  version: number,
  move: (revision: StoredSavedGroupRevision) => StoredSavedGroupRevision,
  event?: { name: SavedGroupRevisionEventName; extra?: Record<string, unknown> },
) {
  const written = await retryOnConflict(async () => {
    const [live, revision] = await Promise.all([readGroup(auth.orgId, groupId), readRevisionOf(auth.orgId, groupId, version)]);
    assertCan(auth, MANAGE, projectsOf(live.entity));
    const { written, ...op } = store.prepareWrite(auth.orgId, revision, move(revision));
    // A move that arms, re-dates, cancels or discards a scheduled publish moves its boundary in the same transaction.
    await transact([
      op,
      ...preparePublishBoundary(auth.orgId, { savedGroupId: groupId, version }, pendingAt(revision), pendingAt(written)),
      ...(event ? [prepareSavedGroupRevisionEvent(auth.orgId, event.name, written, event.extra)] : []),
    ]);
    return written;
  });
  return presentOne(written);
}

/** The draft without its scheduled-publish fields. */
export const withoutSchedule = (revision: StoredSavedGroupRevision): StoredSavedGroupRevision => {
  const {
    scheduledPublishAt: _at,
    scheduledPublishLockEdits: _edits,
    scheduledPublishLockOthers: _others,
    scheduledPublishBypassApproval: _bypass,
    autoPublishOnApproval: _armed,
    autoPublishEnabledBy: _by,
    scheduledPublishKeyId: _key,
    scheduledPublishNextAttemptAt: _next,
    ...rest
  } = revision;
  return rest;
};

/** `POST .../{version}/discard`: an open draft set aside (it can be reopened); a scheduled publish is cancelled with it. */
export async function postSavedGroupRevisionDiscard({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionDiscard>): UseCaseOutput<typeof contract.postSavedGroupRevisionDiscard> {
  return moveRevision(
    auth,
    params.savedGroupId,
    params.version,
    (revision) => {
      assertOpen(revision, 'discard');
      return {
        ...discarded(withoutSchedule(revision)),
        resolution: { action: 'discarded', userId: by(auth), dateCreated: new Date().toISOString() },
        activityLog: [...revision.activityLog, logEntry(auth, 'discarded', body.reason)],
      };
    },
    { name: 'discarded' },
  );
}

/** `POST .../{version}/reopen`: a discarded revision back to `draft`, its verdicts cleared. */
export async function postSavedGroupRevisionReopen({
  auth,
  params,
}: UseCaseInput<typeof contract.postSavedGroupRevisionReopen>): UseCaseOutput<typeof contract.postSavedGroupRevisionReopen> {
  return moveRevision(
    auth,
    params.savedGroupId,
    params.version,
    (revision) => {
      if (revision.status !== 'discarded')
        throw new InvalidInputError(`Only discarded revisions can be reopened (status is "${shownStatus(revision.status)}")`);
      const { resolution: _resolution, ...open } = reopened(revision);
      return { ...open, activityLog: [...revision.activityLog, logEntry(auth, 'reopened')] };
    },
    { name: 'reopened' },
  );
}

/**
 * `POST .../{version}/revert`: an earlier merged revision's content again, as a new draft
 * (`strategy: "draft"`, the default) or published at once as a new revision, in one transaction with
 * the group and the payload's references version.
 */
export async function postSavedGroupRevisionRevert({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionRevert>): UseCaseOutput<typeof contract.postSavedGroupRevisionRevert> {
  const [live, target] = await Promise.all([
    readGroup(auth.orgId, params.savedGroupId),
    readRevisionOf(auth.orgId, params.savedGroupId, params.version),
  ]);
  assertCan(auth, MANAGE, projectsOf(live.entity));
  if (target.status !== 'published') {
    throw new InvalidInputError(`Can only revert to a merged revision. Revision #${target.version} has status "${shownStatus(target.status)}".`);
  }
  if (changesNothing(live.entity, target.proposed)) {
    throw new InvalidInputError(`Revision #${target.version} is already the live version — nothing to revert.`);
  }
  const text = { title: body.title ?? `Revert to v${target.version}`, comment: body.comment ?? `Revert to revision #${target.version}` };
  const { approvals: settings } = await readOrganizationSettings(auth.orgId);
  const { revertsBypassApproval } = settings;
  // As GrowthBook: a revert publishes at once by default where reverts bypass approval.
  if ((body.strategy ?? (revertsBypassApproval ? 'publish' : 'draft')) === 'draft') {
    const draft = await createRevision(auth, params.savedGroupId, (group, version) => ({
      record: revisionRecord(auth, group.entity, version, target.proposed, { ...text, revertedFrom: target.id }),
    }));
    return presentOne(draft);
  }
  let bypassedGates: Array<{
    type: string;
    outcome: 'bypassed';
    via: 'restApiBypassesReviews' | 'bypassApprovalPermission' | 'revertsBypassApproval';
  }> = [];
  const published = await createRevision(auth, params.savedGroupId, (group, version) => {
    const next = withGroupFields(group.entity, target.proposed);
    assertCan(auth, MANAGE, projectsOf(next));
    bypassedGates = revertsBypassApproval
      ? needsApproval(settings, group.entity, next)
        ? [{ type: 'approval-required', outcome: 'bypassed', via: 'revertsBypassApproval' }]
        : []
      : approvalGate(auth, settings, { before: group.entity, after: next, approved: false }, () => approvalRequired(group.entity.id, undefined, ''));
    const record = revisionRecord(auth, group.entity, version, target.proposed, {
      ...text,
      revertedFrom: target.id,
      status: 'published',
      resolution: { action: 'merged', userId: by(auth), dateCreated: new Date().toISOString() },
      activityLog: [logEntry(auth, 'created'), logEntry(auth, 'merged')],
    });
    const reverted = prepareSavedGroupRevisionEvent(auth.orgId, 'reverted', record, { revertedToVersion: target.version });
    return { record, ops: [savedGroups.prepareUpdate(auth.orgId, group, next), prepareTouch(auth.orgId, group.entity.id), reverted] };
  });
  return { ...presentOne(published), ...(bypassedGates.length ? { bypassedGates } : {}) };
}

/**
 * `POST .../{version}/schedule-publish`: arms the draft to publish at `scheduledPublishAt` (stored on
 * the revision, as GrowthBook stores it, with the caller as the one it will publish as), or cancels
 * the schedule with `null`.
 */
export async function postSavedGroupRevisionSchedulePublish({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionSchedulePublish>): UseCaseOutput<typeof contract.postSavedGroupRevisionSchedulePublish> {
  const at = body.scheduledPublishAt === null ? null : new Date(body.scheduledPublishAt);
  if (at && at.getTime() <= Date.now()) throw new InvalidInputError('Request body: [scheduledPublishAt] must be in the future');
  return moveRevision(auth, params.savedGroupId, params.version, (revision) => {
    assertOpen(revision, 'schedule');
    if (!at) {
      if (!revision.scheduledPublishAt) throw new InvalidInputError(`Revision ${revision.version} has no scheduled publish to cancel`);
      return { ...withoutSchedule(revision), activityLog: [...revision.activityLog, logEntry(auth, 'scheduled-publish-canceled')] };
    }
    const { scheduledPublishLastError: _error, scheduledPublishGaveUpAt: _gaveUp, ...rest } = withoutSchedule(revision);
    return {
      ...rest,
      scheduledPublishAt: at.toISOString(),
      ...(body.lockEdits ? { scheduledPublishLockEdits: true } : {}),
      ...(body.lockOthers ? { scheduledPublishLockOthers: true } : {}),
      ...(body.bypassApproval ? { scheduledPublishBypassApproval: true } : {}),
      autoPublishEnabledBy: by(auth),
      scheduledPublishKeyId: auth.keyId,
      scheduledPublishAttempts: 0,
      activityLog: [
        ...revision.activityLog,
        logEntry(auth, revision.scheduledPublishAt ? 'scheduled-publish-updated' : 'scheduled-publish', at.toISOString()),
      ],
    };
  });
}

/**
 * The direct archive and unarchive (`POST /saved-groups/{id}/archive|unarchive`): the live group
 * changed at once, recorded as a merged revision once the group has revisions, in one transaction
 * with the group and the payload's references version. Archiving a referenced group needs `ignoreWarnings`.
 */
async function setArchived(auth: Principal, groupId: string, archived: boolean, ignoreWarnings?: boolean) {
  return retryOnConflict(async () => {
    const current = await readGroup(auth.orgId, groupId);
    assertCan(auth, MANAGE, projectsOf(current.entity));
    // Already so: nothing to write, as GrowthBook answers it.
    if (!!current.entity.archived === archived) return { savedGroup: current.entity };
    const next = { ...current.entity, archived };
    const approval = approvalGate(auth, await approvalSettings(auth.orgId), { before: current.entity, after: next, approved: false }, () =>
      approvalRequired(groupId, undefined, ''),
    );
    const bypassedGates = [...approval, ...(await archiveGate(auth, current.entity, next, ignoreWarnings))];
    const update = savedGroups.prepareUpdate(auth.orgId, current, next);
    const newest = await store.newestVersion(auth.orgId, groupId);
    const record =
      newest > 0
        ? [
            store.prepareCreate(
              auth.orgId,
              revisionRecord(auth, current.entity, newest + 1, fieldsOfGroup(next), {
                status: 'published',
                resolution: { action: 'merged', userId: by(auth), dateCreated: new Date().toISOString() },
                activityLog: [logEntry(auth, 'merged', archived ? 'archived' : 'unarchived')],
              }),
            ),
          ]
        : [];
    await transact([update, ...record, prepareTouch(auth.orgId, groupId)]);
    return { savedGroup: update.entity, ...(bypassedGates.length ? { bypassedGates } : {}) };
  });
}

/** `POST /saved-groups/{id}/archive`. */
export async function archiveSavedGroup({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.archiveSavedGroup>): UseCaseOutput<typeof contract.archiveSavedGroup> {
  return setArchived(auth, params.id, true, body.ignoreWarnings);
}

/** `POST /saved-groups/{id}/unarchive`. */
export async function unarchiveSavedGroup({
  auth,
  params,
}: UseCaseInput<typeof contract.unarchiveSavedGroup>): UseCaseOutput<typeof contract.unarchiveSavedGroup> {
  return setArchived(auth, params.id, false);
}

/** `GET /saved-groups/{id}/references`: the features, experiments and saved groups that reference the group. */
export async function getSavedGroupReferences({
  auth,
  params,
}: UseCaseInput<typeof contract.getSavedGroupReferences>): UseCaseOutput<typeof contract.getSavedGroupReferences> {
  await readableGroup(auth, params.id);
  return referencesTo(auth, params.id);
}

/** The review state of a revision, as the review module reads it. */
const reviewState = (revision: StoredSavedGroupRevision): ReviewState => ({ status: revision.status, reviews: revision.reviews ?? [] });

/** A reviewer is a person: a member's personal access token. An organization's secret key has no user, so it cannot review. */
function reviewerOf(auth: Principal): string {
  if (!auth.memberId) throw new ForbiddenError('Reviews need a personal access token: a secret key has no user identity to review as');
  return auth.memberId;
}

/**
 * `POST .../{version}/request-review`: a draft goes to review. `autoPublishOnApproval` arms it to publish
 * on approval (see auto-publish.ts) where the group's approval rule allows it and the caller may also
 * manage the projects the draft moves the group to; elsewhere it goes to review unarmed, as in GrowthBook.
 */
export async function postSavedGroupRevisionRequestReview({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionRequestReview>): UseCaseOutput<typeof contract.postSavedGroupRevisionRequestReview> {
  let allowed = false;
  if (body.autoPublishOnApproval) {
    const [settings, group] = await Promise.all([approvalSettings(auth.orgId), readGroup(auth.orgId, params.savedGroupId)]);
    allowed = !!groupReviewRule(settings, projectsOf(group.entity))?.autopublishOnApproval;
  }
  return moveRevision(
    auth,
    params.savedGroupId,
    params.version,
    (revision) => ({
      ...(allowed && can(auth, MANAGE, revision.proposed.projects ?? []) ? { ...revision, ...armedBy(auth) } : disarmed(revision)),
      ...requestReview(reviewState(revision)),
      activityLog: [...revision.activityLog, logEntry(auth, 'review-requested')],
    }),
    { name: 'reviewRequested' },
  );
}

/**
 * `POST .../{version}/submit-review`: an approval or a request for changes from a person who may edit
 * the group and is not the draft's author (the status follows every standing verdict); a comment is
 * logged and changes nothing. An approval that leaves an armed draft approved publishes it (unless
 * `skipAutoPublish`) through `publishSavedGroupDraft`: `autoPublished` says whether it went live.
 */
export async function postSavedGroupRevisionSubmitReview({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postSavedGroupRevisionSubmitReview>): UseCaseOutput<typeof contract.postSavedGroupRevisionSubmitReview> {
  const reviewer = reviewerOf(auth);
  const action = { approve: 'approved', 'request-changes': 'requested-changes', comment: 'commented' } as const;
  const [group, settings] = await Promise.all([readGroup(auth.orgId, params.savedGroupId), approvalSettings(auth.orgId)]);
  const blockSelfApproval = !!groupReviewRule(settings, projectsOf(group.entity))?.blockSelfApproval;
  // GrowthBook's review events: an empty comment reports nothing.
  const name = ({ approve: 'approved', 'request-changes': 'changesRequested', comment: 'commented' } as const)[body.decision];
  const event =
    body.decision !== 'comment' || body.comment
      ? { name, extra: { reviewer: await eventReviewer(auth), reviewComment: body.comment ?? null } }
      : undefined;
  const reviewed = await moveRevision(
    auth,
    params.savedGroupId,
    params.version,
    (revision) => {
      if (body.decision !== 'comment') assertOpen(revision, 'review');
      const next = submitReview(reviewState(revision), revision, { id: reviewer, at: new Date().toISOString() }, body.decision, {
        blockSelfApproval,
      });
      return { ...revision, ...next, activityLog: [...revision.activityLog, logEntry(auth, action[body.decision], body.comment)] };
    },
    event,
  );
  if (body.decision !== 'approve' || body.skipAutoPublish) return reviewed;
  let published: StoredSavedGroupRevision | undefined;
  const autoPublished = await publishOnApproval(
    auth.orgId,
    await readRevisionOf(auth.orgId, params.savedGroupId, params.version),
    async (armer) => {
      published = (await publishSavedGroupDraft(armer, params.savedGroupId, params.version)).revision;
    },
    { savedGroupId: params.savedGroupId, version: params.version },
  );
  if (published) return { ...presentOne(published), autoPublished: true };
  return { ...reviewed, ...(autoPublished === false ? { autoPublished } : {}) };
}

/** `POST .../{version}/recall-review`: a revision in review back to `draft`, its verdicts cleared. */
export async function postSavedGroupRevisionRecallReview({
  auth,
  params,
}: UseCaseInput<typeof contract.postSavedGroupRevisionRecallReview>): UseCaseOutput<typeof contract.postSavedGroupRevisionRecallReview> {
  return moveRevision(auth, params.savedGroupId, params.version, (revision) => ({
    ...revision,
    ...recallReview(reviewState(revision)),
    activityLog: [...revision.activityLog, logEntry(auth, 'recalled')],
  }));
}

/** `POST .../{version}/undo-review`: the caller's own standing verdict withdrawn; the status follows the verdicts left. */
export async function postSavedGroupRevisionUndoReview({
  auth,
  params,
}: UseCaseInput<typeof contract.postSavedGroupRevisionUndoReview>): UseCaseOutput<typeof contract.postSavedGroupRevisionUndoReview> {
  const reviewer = reviewerOf(auth);
  return moveRevision(auth, params.savedGroupId, params.version, (revision) => ({
    ...revision,
    ...undoReview(reviewState(revision), reviewer),
    activityLog: [...revision.activityLog, logEntry(auth, 'review-retracted')],
  }));
}
