import * as contract from '../contracts/feature-revisions';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import type { FeatureRule } from '../contracts/features';
import { InvalidInputError, NotFoundError, UnresolvedConflictError } from '../errors';
import { assertCan, type Principal } from '../permissions';
import { retryOnConflict } from '../db/optimistic';
import type { TransactionOp } from '../db/repository';
import { assertValuesValid, authorOf, canonicalJson, coerceValue, featureAtRevision, type StoredFeature } from '../domain/features';
import { activatePendingRamps } from '../domain/pending-ramps';
import { rampEnvironments } from '../domain/ramp-schedule';
import { prepareRampScheduleCreate } from '../store/ramp-schedules';
import {
  assertStatus,
  completeFields,
  discarded,
  fieldsOf,
  mergeChanges,
  mergeRevision,
  openStatuses,
  reopened,
  reorderRules,
  sameFields,
  withoutRule,
  withFields,
  type RevisionFields,
} from '../domain/revisions';
import { paginated } from '../domain/pagination';
import { presentFeatures } from '../payload/definitions';
import { environmentIds, features } from '../store/features';
import { createDraft, latestRevisions, listRevisionPage, matches, readRevision, writeDraft, type StoredRevision } from '../store/feature-revisions';
import { assertReferencesValid } from './feature-references';
import { changeLiveFeature, type Decision } from './features';
import { approvalSettings, bypassedGatesKey, reviewStateAfterEdit } from './approvals';
import type { BypassedGate } from '../contracts/common';
import { editAction, logEntry } from '../domain/revision-reviews';
import { prepareRevisionEvent, type RevisionChange, type RevisionEventName } from './revision-events';

/** The projects a feature is in, as permission checks take them. */
export const projectsOf = (feature: Pick<StoredFeature, 'project'>) => (feature.project ? [feature.project] : []);

/** GrowthBook's id of a revision (the derived form it gives revisions without an opaque id). */
export const revisionId = (featureId: string, version: number) => `frev_${version}_${featureId}`;

/** Who is recorded as an `EventUser`: API keys' record ids start with `key_`, members' do not. */
export const eventUser = (by: string | undefined) =>
  by ? (by.startsWith('key_') ? { type: 'api_key' as const, id: by } : { type: 'dashboard' as const, id: by }) : undefined;

/** The revision's fields: drafts hold all of them; older published revisions are completed from the live feature. */
export const fieldsOfRevision = (revision: StoredRevision, live: StoredFeature): RevisionFields => completeFields(revision, fieldsOf(live));

/**
 * GrowthBook 5's flat rule list: each rule once, with the environments it is in (`allEnvironments`
 * when it is in every one). A rule id found in several environments with different content is listed once per content.
 */
export function flatRules(rules: Record<string, FeatureRule[]>, environments: string[]) {
  const listed: Array<{ rule: FeatureRule; key: string; environments: string[] }> = [];
  for (const env of environments) {
    for (const rule of rules[env] ?? []) {
      const key = JSON.stringify(rule);
      const found = listed.find((entry) => entry.rule.id === rule.id && entry.key === key);
      if (found) found.environments.push(env);
      else listed.push({ rule, key, environments: [env] });
    }
  }
  return listed.map(({ rule, environments: envs }) =>
    envs.length === environments.length ? { ...rule, allEnvironments: true } : { ...rule, allEnvironments: false, environments: envs },
  );
}

/** Revisions as the v2 API answers them, with each one's SDK definitions; one presentation for all. */
export async function presentRevisions(orgId: string, live: StoredFeature, revisions: StoredRevision[], environments: string[]) {
  return presentRevisionsOf(orgId, () => live, revisions, environments);
}

/** `presentRevisions` for revisions of several features: `liveOf` gives each one's live feature. */
export async function presentRevisionsOf(orgId: string, liveOf: (revision: StoredRevision) => StoredFeature, revisions: StoredRevision[], environments: string[]) {
  const fields = revisions.map((revision) => fieldsOfRevision(revision, liveOf(revision)));
  const served = await presentFeatures(
    orgId,
    fields.map((f, i) => featureAtRevision(liveOf(revisions[i]!), { ...revisions[i]!, defaultValue: f.defaultValue, rules: f.rules }, environments)),
    { environments },
  );
  return revisions.map((revision, i): contract.FeatureRevisionV2 => {
    const f = fields[i]!;
    const definitions = Object.fromEntries(
      environments.flatMap((env) => {
        const definition = served[i]!.environments[env]?.definition;
        return definition ? [[env, definition]] : [];
      }),
    );
    const ramps = openStatuses.includes(revision.status) ? (revision.rampActions ?? []) : [];
    const pendingRule = new Set(ramps.map((ramp) => ramp.ruleId));
    const createdBy = eventUser(revision.createdBy);
    const publishedBy = revision.status === 'published' ? eventUser(revision.publishedBy) : undefined;
    return {
      id: revisionId(revision.featureId, revision.version),
      featureId: revision.featureId,
      baseVersion: revision.baseVersion,
      version: revision.version,
      comment: revision.comment,
      date: revision.date,
      status: revision.status,
      ...(createdBy ? { createdBy } : {}),
      ...(publishedBy ? { publishedBy } : {}),
      defaultValue: f.defaultValue,
      rules: flatRules(f.rules, environments).map((rule) => (pendingRule.has(rule.id) ? { ...rule, pendingRamp: 'create' as const } : rule)),
      definitions,
      environmentsEnabled: Object.fromEntries(environments.map((env) => [env, f.environmentsEnabled[env] ?? false])),
      prerequisites: f.prerequisites.map((id) => ({ id })),
      metadata: f.metadata,
      ...(revision.reviews?.length ? { reviews: revision.reviews } : {}),
      ...(ramps.length ? { rampActions: ramps } : {}),
      ...scheduleFields(revision),
    };
  });
}

/** GrowthBook's deferred-publish fields of a revision, each only when set (as its revisionScheduleApiFields gives them). */
export function scheduleFields(revision: StoredRevision) {
  return {
    ...(revision.autoPublishOnApproval ? { autoPublishOnApproval: true } : {}),
    ...(revision.autoPublishEnabledBy ? { autoPublishEnabledBy: revision.autoPublishEnabledBy } : {}),
    ...(revision.scheduledPublishAt ? { scheduledPublishAt: revision.scheduledPublishAt } : {}),
    ...(revision.scheduledPublishLockEdits ? { scheduledPublishLockEdits: true } : {}),
    ...(revision.scheduledPublishLockOthers ? { scheduledPublishLockOthers: true } : {}),
    ...(revision.scheduledPublishBypassApproval ? { scheduledPublishBypassApproval: true } : {}),
    ...(revision.scheduledPublishAttempts ? { scheduledPublishAttempts: revision.scheduledPublishAttempts } : {}),
    ...(revision.scheduledPublishLastError ? { scheduledPublishLastError: revision.scheduledPublishLastError } : {}),
    ...(revision.scheduledPublishGaveUpAt ? { scheduledPublishGaveUpAt: revision.scheduledPublishGaveUpAt } : {}),
  };
}

/** One revision as the v2 API answers it (`{ revision }`). */
export async function presentOne(orgId: string, live: StoredFeature, revision: StoredRevision) {
  const [presented] = await presentRevisions(orgId, live, [revision], await environmentIds(orgId));
  return { revision: presented! };
}

/** The feature as stored, with its version; 404 when there is none. */
export async function readFeature(orgId: string, id: string) {
  const feature = await features.read(orgId, id);
  if (!feature) throw new NotFoundError(`Could not find feature ${id}`);
  return feature;
}

/** One revision of a feature, any status; 404 when there is none. */
export async function readRevisionOf(orgId: string, featureId: string, version: number) {
  const revision = await readRevision(orgId, featureId, version);
  if (!revision) throw new NotFoundError(`Could not find revision ${version} of feature ${featureId}`);
  return revision;
}

/**
 * A new draft of the feature, branched from its live version, holding the fields `fieldsFrom` gives for
 * it. Numbers are taken without races: a lost one reads the feature again.
 */
export function newDraft(
  auth: Principal,
  featureId: string,
  fieldsFrom: (live: StoredFeature) => RevisionFields,
  text: { comment?: string; title?: string },
) {
  return retryOnConflict(async () => {
    const [current, ids] = await Promise.all([readFeature(auth.orgId, featureId), environmentIds(auth.orgId)]);
    assertCan(auth, 'manageFeatures', projectsOf(current.entity));
    const now = new Date().toISOString();
    const created = (revision: StoredRevision) => [
      prepareRevisionEvent(auth.orgId, 'created', { live: current.entity, revision, environmentIds: ids }),
    ];
    const draft = await createDraft(
      auth.orgId,
      current,
      {
        baseVersion: current.entity.revision.version,
        comment: text.comment ?? '',
        ...(text.title ? { title: text.title } : {}),
        date: now,
        dateUpdated: now,
        status: 'draft',
        createdBy: authorOf(auth, '').by,
        ...fieldsFrom(current.entity),
        changeCount: 0,
        reviews: [],
        log: [
          logEntry(auth, 'new revision', {
            subject: `based on revision #${current.entity.revision.version}`,
            value: { status: 'draft', comment: text.comment ?? '' },
          }),
        ],
      },
      created,
    );
    return { live: current.entity, draft };
  });
}

/** `POST /v2/features/{id}/revisions`: a draft branched from the live version; SDKs see nothing of it. */
export async function postFeatureRevisionV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postFeatureRevisionV2>): UseCaseOutput<typeof contract.postFeatureRevisionV2> {
  const { live, draft } = await newDraft(auth, params.id, fieldsOf, body);
  return presentOne(auth.orgId, live, draft);
}

/** `GET /v2/features/{id}/revisions/{version}`. */
export async function getFeatureRevisionV2({
  auth,
  params,
}: UseCaseInput<typeof contract.getFeatureRevisionV2>): UseCaseOutput<typeof contract.getFeatureRevisionV2> {
  const [live, revision] = await Promise.all([readFeature(auth.orgId, params.id), readRevisionOf(auth.orgId, params.id, params.version)]);
  return presentOne(auth.orgId, live.entity, revision);
}

/**
 * `GET /v2/features/{id}/revisions/latest`: the open draft updated last (of the given statuses, by the
 * given author, or created or edited by the caller with `mine`); 404 when there is none.
 */
export async function getFeatureRevisionLatestV2({
  auth,
  params,
  query,
}: UseCaseInput<typeof contract.getFeatureRevisionLatestV2>): UseCaseOutput<typeof contract.getFeatureRevisionLatestV2> {
  if (query.mine && query.author) throw new InvalidInputError('Querystring: [mine] cannot be combined with author');
  const statuses = query.status?.length ? query.status.filter((status) => openStatuses.includes(status)) : openStatuses;
  const filter = { author: query.author, mine: query.mine ? authorOf(auth, '').by : undefined };
  const [live, drafts] = await Promise.all([
    readFeature(auth.orgId, params.id),
    statuses.length ? latestRevisions(auth.orgId, params.id, Infinity, statuses) : [],
  ]);
  const [latest] = drafts
    .filter((draft) => matches(draft, filter))
    .sort((a, b) => (b.dateUpdated ?? b.date).localeCompare(a.dateUpdated ?? a.date) || b.version - a.version);
  if (!latest) throw new NotFoundError(`Feature ${params.id} has no matching draft`);
  return presentOne(auth.orgId, live.entity, latest);
}

/** `GET /v2/features/{id}/revisions`: newest first, a page at a time. */
export async function getFeatureRevisionsV2({
  auth,
  params,
  query,
}: UseCaseInput<typeof contract.getFeatureRevisionsV2>): UseCaseOutput<typeof contract.getFeatureRevisionsV2> {
  if (query.mine && query.author) throw new InvalidInputError('Querystring: [mine] cannot be combined with author');
  const filter = { statuses: query.status, author: query.author, mine: query.mine ? authorOf(auth, '').by : undefined };
  const [live, environments, page] = await Promise.all([
    readFeature(auth.orgId, params.id),
    environmentIds(auth.orgId),
    listRevisionPage(auth.orgId, params.id, { limit: query.limit, offset: query.offset, filter }),
  ]);
  const revisions = page.items.length ? await presentRevisions(auth.orgId, live.entity, page.items, environments) : [];
  return paginated('revisions', { items: revisions, total: page.total }, query);
}

/** Refuses draft fields a publish would refuse: values invalid for the type or schema, references to nothing. */
export async function assertPublishable(auth: Principal, live: StoredFeature, fields: RevisionFields): Promise<void> {
  const asPublished = withFields(live, fields);
  await assertValuesValid(asPublished);
  await assertReferencesValid(auth.orgId, asPublished, live);
}

/**
 * One edit of a draft (`version`, or a new draft for `'new'`): `edit` gives the next fields from the
 * draft's, the values are checked as a publish would check them, and the draft is written conditional
 * on nobody having changed it meanwhile (a lost race edits again). Verdicts go stale. SDKs see nothing.
 * `revise` changes what the draft holds besides the fields (its pending ramps, comment, title).
 */
export async function editDraft(
  auth: Principal,
  featureId: string,
  version: number | 'new',
  edit: (fields: RevisionFields, live: StoredFeature, environments: string[]) => RevisionFields,
  text: { comment?: string; title?: string } = {},
  revise?: RevisionEdit,
  change?: { change: RevisionChange; environments?: string[] },
) {
  let number = version;
  if (number === 'new') {
    const [live, environments] = await Promise.all([readFeature(auth.orgId, featureId), environmentIds(auth.orgId)]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    // A refused edit leaves no empty draft behind.
    const fields = edit(fieldsOf(live.entity), live.entity, environments);
    await assertPublishable(auth, live.entity, fields);
    await revise?.({ comment: text.comment ?? '', ...(text.title ? { title: text.title } : {}) }, fields, live.entity);
    number = (await newDraft(auth, featureId, fieldsOf, text)).draft.version;
  }
  const draftNumber = number;
  const { live, written } = await retryOnConflict(async () => {
    const [live, draft, environments] = await Promise.all([
      readFeature(auth.orgId, featureId),
      readRevisionOf(auth.orgId, featureId, draftNumber),
      environmentIds(auth.orgId),
    ]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    assertStatus(draft.status, openStatuses, 'edit');
    assertEditable(draft);
    const before = fieldsOfRevision(draft, live.entity);
    const fields = edit(before, live.entity, environments);
    await assertPublishable(auth, live.entity, fields);
    const revised = revise ? await revise(draft, fields, live.entity) : {};
    const rampActions = 'rampActions' in revised ? revised.rampActions : draft.rampActions;
    // Comment and title are not content: changing them leaves verdicts as they are.
    const changed = !sameFields(fields, before) || canonicalJson(rampActions ?? []) !== canonicalJson(draft.rampActions ?? []);
    const state = { status: draft.status, reviews: draft.reviews ?? [] };
    const next: StoredRevision = {
      ...draft,
      ...fields,
      ...revised,
      rampActions,
      ...(changed ? await reviewStateAfterEdit(auth.orgId, live.entity, { before, after: fields, environments }, state) : {}),
      contributors: contributorsAfter(draft, auth),
    };
    if (!rampActions?.length) delete next.rampActions;
    const changes = mergeChanges(before, fields);
    const log = logEntry(auth, editAction(changes), { value: changes });
    // GrowthBook reports each edit (`revision.updated`, with what kind of edit it was) when the caller says which.
    const events = (revision: StoredRevision) =>
      change
        ? [
            prepareRevisionEvent(
              auth.orgId,
              'updated',
              { live: live.entity, revision, environmentIds: environments, environments: change.environments },
              change,
            ),
          ]
        : [];
    return { live: live.entity, written: await writeDraft(auth.orgId, draft, next, { log, also: events }) };
  });
  return presentOne(auth.orgId, live, written);
}

/** What a draft edit changes besides the fields: pending ramps, comment, title (from the draft as read; throws to refuse the edit). */
export type RevisionEdit = (
  draft: Pick<StoredRevision, 'rampActions' | 'comment' | 'title'>,
  fields: RevisionFields,
  live: StoredFeature,
) => Promise<Partial<Pick<StoredRevision, 'rampActions' | 'comment' | 'title'>>>;
/** Refuses a content edit of a draft whose pending scheduled publish froze its content (`lockEdits`); rebasing stays allowed. */
export function assertEditable(draft: StoredRevision): void {
  if (draft.scheduledPublishAt && draft.scheduledPublishLockEdits) {
    throw new InvalidInputError(
      `Revision ${draft.version} is locked for edits by its scheduled publish at ${draft.scheduledPublishAt}; cancel the schedule to edit it`,
    );
  }
}

/** The draft's contributors once the caller has edited it (its author is not listed). */
export function contributorsAfter(draft: Pick<StoredRevision, 'createdBy' | 'contributors'>, auth: Principal): string[] {
  const by = authorOf(auth, '').by;
  const contributors = draft.contributors ?? [];
  return by === draft.createdBy || contributors.includes(by) ? contributors : [...contributors, by];
}

/** `PUT /v2/features/{id}/revisions/{version}/default-value`. */
export async function putFeatureRevisionDefaultValueV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.putFeatureRevisionDefaultValueV2>): UseCaseOutput<typeof contract.putFeatureRevisionDefaultValueV2> {
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, live) => ({ ...fields, defaultValue: coerceValue(live.valueType, body.defaultValue, 'defaultValue') }),
    { comment: body.revisionComment, title: body.revisionTitle },
    undefined,
    { change: 'defaultValue' },
  );
}

/** `POST /v2/features/{id}/revisions/{version}/toggle`: one environment on or off in the draft. */
export async function postFeatureRevisionToggleV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postFeatureRevisionToggleV2>): UseCaseOutput<typeof contract.postFeatureRevisionToggleV2> {
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, _live, environments) => {
      if (!environments.includes(body.environment)) {
        throw new InvalidInputError(
          `Request body: [environment] ${body.environment} is not an environment of this organization (${environments.join(', ')})`,
        );
      }
      return { ...fields, environmentsEnabled: { ...fields.environmentsEnabled, [body.environment]: body.enabled } };
    },
    { comment: body.revisionComment, title: body.revisionTitle },
    undefined,
    { change: 'toggle', environments: [body.environment] },
  );
}

/** `PUT /v2/features/{id}/revisions/{version}/archive`. */
export async function putFeatureRevisionArchiveV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.putFeatureRevisionArchiveV2>): UseCaseOutput<typeof contract.putFeatureRevisionArchiveV2> {
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields) => ({ ...fields, archived: body.archived }),
    { comment: body.revisionComment, title: body.revisionTitle },
    undefined,
    { change: 'archive' },
  );
}

/** `PUT /v2/features/{id}/revisions/{version}/prerequisites`: the feature-level prerequisites (checked like a publish checks them). */
export async function putFeatureRevisionPrerequisitesV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.putFeatureRevisionPrerequisitesV2>): UseCaseOutput<typeof contract.putFeatureRevisionPrerequisitesV2> {
  const ids = body.prerequisites.map((prerequisite) => prerequisite.id);
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields) => ({ ...fields, prerequisites: [...new Set(ids)] }),
    { comment: body.revisionComment, title: body.revisionTitle },
    undefined,
    { change: 'prerequisites' },
  );
}

/** `POST /v2/features/{id}/revisions/{version}/rules/reorder`: `ruleIds` names every rule once, in the new order. */
export async function postFeatureRevisionRulesReorderV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postFeatureRevisionRulesReorderV2>): UseCaseOutput<typeof contract.postFeatureRevisionRulesReorderV2> {
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, _live, environments) => reorderRules(fields, body.ruleIds, environments),
    { comment: body.revisionComment, title: body.revisionTitle },
    undefined,
    { change: 'rule.reorder' },
  );
}

/** `DELETE /v2/features/{id}/revisions/{version}/rules/{ruleId}`: the rule out of the draft, in every environment. */
export async function deleteFeatureRevisionRuleV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.deleteFeatureRevisionRuleV2>): UseCaseOutput<typeof contract.deleteFeatureRevisionRuleV2> {
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields) => {
      const next = withoutRule(fields, params.ruleId);
      if (!next) throw new NotFoundError(`Could not find rule ${params.ruleId} in this revision`);
      return next;
    },
    { comment: body?.revisionComment, title: body?.revisionTitle },
    undefined,
    { change: 'rule.delete' },
  );
}

/** A draft's merge against the live version, from its base revision's fields. */
export async function mergeOf(orgId: string, live: StoredFeature, draft: StoredRevision, strategies?: Record<string, 'overwrite' | 'discard'>) {
  const liveFields = fieldsOf(live);
  const base =
    draft.baseVersion === live.revision.version
      ? liveFields
      : completeFields((await readRevision(orgId, live.id, draft.baseVersion)) ?? {}, liveFields);
  return { liveFields, outcome: mergeRevision(liveFields, base, fieldsOfRevision(draft, live), strategies) };
}

export const mergeConflictError = (conflicts: unknown[]) =>
  new UnresolvedConflictError('The draft conflicts with changes published since it was created; rebase it and resolve the conflicts', { conflicts });

/** `GET /v2/features/{id}/revisions/{version}/merge-status`: the three-way merge, not applied. */
export async function getFeatureRevisionMergeStatusV2({
  auth,
  params,
}: UseCaseInput<typeof contract.getFeatureRevisionMergeStatusV2>): UseCaseOutput<typeof contract.getFeatureRevisionMergeStatusV2> {
  const [live, draft, environments] = await Promise.all([
    readFeature(auth.orgId, params.id),
    readRevisionOf(auth.orgId, params.id, params.version),
    environmentIds(auth.orgId),
  ]);
  assertStatus(draft.status, openStatuses, 'merge');
  const { liveFields, outcome } = await mergeOf(auth.orgId, live.entity, draft);
  const common = { liveVersion: live.entity.revision.version, draftDateUpdated: draft.dateUpdated ?? draft.date, conflicts: outcome.conflicts };
  if (!outcome.success) return { success: false, ...common, rebaseRequired: true };
  return { success: true, ...common, result: mergeResultOf(liveFields, outcome.merged, environments), rebaseRequired: false };
}

/** What a merge changes in the live version, as GrowthBook answers it (merge status and rebase preview `result`). */
export function mergeResultOf(liveFields: RevisionFields, merged: RevisionFields, environments: string[]) {
  const { rules, prerequisites, ...changes } = mergeChanges(liveFields, merged);
  return {
    ...changes,
    ...(rules
      ? {
          rules: flatRules(
            rules,
            environments.filter((env) => env in rules),
          ),
        }
      : {}),
    ...(prerequisites ? { prerequisites: prerequisites.map((id) => ({ id, condition: JSON.stringify({ value: true }) })) } : {}),
  };
}

/**
 * `POST /v2/features/{id}/revisions/{version}/publish`: the merge of the draft into the live version
 * goes live in one transaction with the revision and the payload entries, conditional on the live
 * version merged against; if another publish lands first, the merge is done again, and a conflict
 * then is answered as GrowthBook does (409, with the conflicts).
 */
export async function postFeatureRevisionPublishV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postFeatureRevisionPublishV2>): UseCaseOutput<typeof contract.postFeatureRevisionPublishV2> {
  const { changed, bypassedGates } = await publishRevision(auth, params.id, params.version, body.comment);
  return { ...(await presentOne(auth.orgId, changed, await readRevisionOf(auth.orgId, params.id, params.version))), ...bypassedGatesKey(bypassedGates) };
}

/** What a publish brings besides the draft: writes for its transaction, and the release it is part of. */
export interface PublishOptions {
  /** More writes for the publish's transaction (a scheduled publish's claim of its boundary), given the feature as written. */
  also?: (written: StoredFeature) => TransactionOp[];
  /** GrowthBook's `bulkPublishId` of a release, on the published event. */
  bulkPublishId?: string;
  /** The publish's comment, kept in the revision's log. */
  comment?: string;
}

/**
 * Publishes a draft (see `postFeatureRevisionPublishV2`): the one publish path, which scheduled and
 * release publishes share. Answers the live feature as published, and the approval gates the caller's authority let it pass.
 */
export async function publishRevision(
  auth: Principal,
  featureId: string,
  version: number,
  comment?: string,
  options: PublishOptions = {},
): Promise<{ changed: StoredFeature; bypassedGates: BypassedGate[] }> {
  const { changed, bypassedGates } = await changeLiveFeature(
    auth,
    featureId,
    (current, ids) => decidePublish(auth, current, ids, version, { ...options, comment }),
    authorOf(auth, comment ?? ''),
  );
  return { changed, bypassedGates };
}

/**
 * The decision of a publish, from the live feature as read: the draft merged into it (a conflict is
 * GrowthBook's 409 with the conflicts), checked as a publish checks, with its pending ramps started,
 * the published event (and the schedule the draft had cleared) in the same transaction. Releases decide each feature with it.
 */
export async function decidePublish(
  auth: Principal,
  current: StoredFeature,
  ids: string[],
  version: number,
  options: PublishOptions = {},
): Promise<Decision> {
  const [draft, siblings] = await Promise.all([
    readRevisionOf(auth.orgId, current.id, version),
    latestRevisions(auth.orgId, current.id, Infinity, ['draft', 'approved']),
  ]);
  assertStatus(draft.status, openStatuses, 'publish');
  const locking = siblings.find((sibling) => sibling.version !== version && sibling.scheduledPublishLockOthers && sibling.scheduledPublishAt);
  if (locking) {
    throw new InvalidInputError(
      `Revision ${locking.version} has a scheduled publish that locks other drafts of this feature; cancel it before publishing revision ${version}`,
    );
  }
  const { liveFields, outcome } = await mergeOf(auth.orgId, current, draft);
  if (!outcome.success) throw mergeConflictError(outcome.conflicts);
  const ramps = draft.rampActions ?? [];
  if (sameFields(outcome.merged, liveFields) && !ramps.length) throw new InvalidInputError('Cannot publish: no changes detected in this revision');
  const merged = withFields(current, outcome.merged);
  await assertValuesValid(merged);
  const read = await assertReferencesValid(auth.orgId, merged, current);
  // The draft's ramps go live with it, in the same transaction; those that start now already changed `next`.
  const { feature: next, schedules } = activatePendingRamps(merged, ramps, new Date(), auth.orgId);
  await assertValuesValid(next);
  const ramped = [...new Set(schedules.flatMap((schedule) => rampEnvironments(schedule, next)))];
  if (ramped.length) assertCan(auth, 'publishFeatures', projectsOf(next), ramped);
  // The publish is recorded in the revision's log by the write that publishes it.
  const logged = logEntry(auth, 'publish', { value: options.comment ? { comment: options.comment } : {} });
  return {
    next,
    read,
    // A published revision keeps no schedule: what was pending is done.
    publishes: { ...withoutSchedule(draft), log: [...(draft.log ?? []), logged] },
    also: (written) => [
      ...schedules.flatMap((schedule) => prepareRampScheduleCreate(auth.orgId, schedule)),
      prepareRevisionEvent(
        auth.orgId,
        'published',
        { live: current, revision: publishedRecord(draft, written), environmentIds: ids },
        { ...(options.bulkPublishId ? { bulkPublishId: options.bulkPublishId } : {}) },
      ),
      ...(options.also?.(written) ?? []),
    ],
  };
}

/** The draft without its deferred-publish fields. */
export function withoutSchedule(revision: StoredRevision): StoredRevision {
  const {
    autoPublishOnApproval: _armed,
    autoPublishEnabledBy: _by,
    scheduledPublishKeyId: _key,
    scheduledPublishAt: _at,
    scheduledPublishLockEdits: _lockEdits,
    scheduledPublishLockOthers: _lockOthers,
    scheduledPublishBypassApproval: _bypass,
    scheduledPublishAttempts: _attempts,
    scheduledPublishLastError: _error,
    scheduledPublishNextAttemptAt: _next,
    scheduledPublishGaveUpAt: _gaveUp,
    ...rest
  } = revision;
  return rest;
}

/** The revision a publish makes live, as the live feature written records it. */
function publishedRecord(draft: StoredRevision, written: StoredFeature): StoredRevision {
  const { revision } = written;
  return {
    ...withoutSchedule(draft),
    ...fieldsOf(written),
    status: 'published',
    version: revision.version,
    comment: revision.comment || draft.comment,
    publishedBy: revision.publishedBy,
  };
}

/** A status change of a revision, conditional on it being unchanged since read, logged as `action`, reported as `event`. */
export async function moveRevision(
  auth: Principal,
  featureId: string,
  version: number,
  move: (revision: StoredRevision) => StoredRevision,
  action = 'status change',
  event?: RevisionEventName,
) {
  const { live, written } = await retryOnConflict(async () => {
    const [live, revision, ids] = await Promise.all([
      readFeature(auth.orgId, featureId),
      readRevisionOf(auth.orgId, featureId, version),
      environmentIds(auth.orgId),
    ]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    const events = (moved: StoredRevision) =>
      event ? [prepareRevisionEvent(auth.orgId, event, { live: live.entity, revision: moved, environmentIds: ids })] : [];
    return { live: live.entity, written: await writeDraft(auth.orgId, revision, move(revision), { log: logEntry(auth, action), also: events }) };
  });
  return presentOne(auth.orgId, live, written);
}

/** `POST /v2/features/{id}/revisions/{version}/discard`: an open draft set aside (it can be reopened). */
export async function postFeatureRevisionDiscardV2({
  auth,
  params,
}: UseCaseInput<typeof contract.postFeatureRevisionDiscardV2>): UseCaseOutput<typeof contract.postFeatureRevisionDiscardV2> {
  // A discarded draft keeps no pending schedule.
  return moveRevision(auth, params.id, params.version, (revision) => withoutSchedule(discarded(revision)), 'discard', 'discarded');
}

/** `POST /v2/features/{id}/revisions/{version}/reopen`: a discarded draft open again, its verdicts cleared. */
export async function postFeatureRevisionReopenV2({
  auth,
  params,
}: UseCaseInput<typeof contract.postFeatureRevisionReopenV2>): UseCaseOutput<typeof contract.postFeatureRevisionReopenV2> {
  return moveRevision(auth, params.id, params.version, reopened, 'reopen', 'reopened');
}

/**
 * `POST /v2/features/{id}/revisions/{version}/rebase`: the draft re-based on the live version, holding
 * the merge (conflicts settled by `conflictResolutions`, else 409 with them); `expectedLiveVersion` and
 * `expectedDraftDateUpdated` refuse (409) when either side moved since the caller looked.
 */
export async function postFeatureRevisionRebaseV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postFeatureRevisionRebaseV2>): UseCaseOutput<typeof contract.postFeatureRevisionRebaseV2> {
  const { live, written } = await retryOnConflict(async () => {
    const [live, draft, ids] = await Promise.all([
      readFeature(auth.orgId, params.id),
      readRevisionOf(auth.orgId, params.id, params.version),
      environmentIds(auth.orgId),
    ]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    assertStatus(draft.status, openStatuses, 'rebase');
    assertUnmoved(live.entity, draft, body);
    const liveVersion = live.entity.revision.version;
    const { outcome } = await mergeOf(auth.orgId, live.entity, draft, body.conflictResolutions);
    if (!outcome.success) throw mergeConflictError(outcome.conflicts);
    const before = fieldsOfRevision(draft, live.entity);
    const changed = !sameFields(outcome.merged, before);
    const state = { status: draft.status, reviews: draft.reviews ?? [] };
    const environments = Object.keys(outcome.merged.environmentsEnabled);
    const next: StoredRevision = {
      ...draft,
      ...outcome.merged,
      baseVersion: liveVersion,
      ...(changed ? await reviewStateAfterEdit(auth.orgId, live.entity, { before, after: outcome.merged, environments }, state) : {}),
      contributors: contributorsAfter(draft, auth),
    };
    const log = logEntry(auth, 'rebase', { subject: `onto revision #${liveVersion}`, value: { baseVersion: liveVersion } });
    const rebased = (revision: StoredRevision) => [prepareRevisionEvent(auth.orgId, 'rebased', { live: live.entity, revision, environmentIds: ids })];
    return { live: live.entity, written: await writeDraft(auth.orgId, draft, next, { log, also: rebased }) };
  });
  return presentOne(auth.orgId, live, written);
}

/** 409 when the live version or the draft moved since the caller looked (a rebase's `expectedLiveVersion` / `expectedDraftDateUpdated`). */
export function assertUnmoved(
  live: StoredFeature,
  draft: StoredRevision,
  expected: { expectedLiveVersion?: number; expectedDraftDateUpdated?: string },
): void {
  const liveVersion = live.revision.version;
  if (expected.expectedLiveVersion !== undefined && expected.expectedLiveVersion !== liveVersion) {
    throw new UnresolvedConflictError(`The live version is now ${liveVersion}, not ${expected.expectedLiveVersion}; review the merge again`);
  }
  const draftDate = draft.dateUpdated ?? draft.date;
  if (expected.expectedDraftDateUpdated !== undefined && expected.expectedDraftDateUpdated !== draftDate) {
    throw new UnresolvedConflictError(`The draft was changed at ${draftDate}, after ${expected.expectedDraftDateUpdated}; review the merge again`);
  }
}

/**
 * `POST /v2/features/{id}/revisions/{version}/revert`: an earlier published revision's fields again,
 * as a new draft (`strategy: "draft"`, the default) or published at once as a new revision.
 */
export async function postFeatureRevisionRevertV2({
  auth,
  params,
  body,
}: UseCaseInput<typeof contract.postFeatureRevisionRevertV2>): UseCaseOutput<typeof contract.postFeatureRevisionRevertV2> {
  const [live, target, approvals] = await Promise.all([
    readFeature(auth.orgId, params.id),
    readRevisionOf(auth.orgId, params.id, params.version),
    body.strategy ? undefined : approvalSettings(auth.orgId),
  ]);
  assertCan(auth, 'manageFeatures', projectsOf(live.entity));
  if (target.status !== 'published') {
    throw new InvalidInputError(`Can only revert to a published revision. Revision #${target.version} has status "${target.status}".`);
  }
  if (target.version === live.entity.revision.version) {
    throw new InvalidInputError(`Revision #${target.version} is already the live version — nothing to revert.`);
  }
  const comment = body.comment ?? `Revert to revision #${target.version}`;
  // Where reverts need no approval, a revert publishes unless the caller asks for a draft (GrowthBook).
  const strategy = body.strategy ?? (approvals?.revertsBypassApproval ? 'publish' : 'draft');
  if (strategy === 'draft') {
    const { live: current, draft } = await newDraft(auth, params.id, (current) => fieldsOfRevision(target, current), {
      comment,
      title: body.title ?? `Revert to v${target.version}`,
    });
    return presentOne(auth.orgId, current, draft);
  }
  const { changed, bypassedGates } = await changeLiveFeature(
    auth,
    params.id,
    async (current, ids) => {
      const next = withFields(current, fieldsOfRevision(target, current));
      await assertValuesValid(next);
      const log = [logEntry(auth, 'revert', { subject: `to revision #${target.version}`, value: { comment } }), logEntry(auth, 'publish')];
      // What the old revision named may have been deleted since.
      return {
        next,
        read: await assertReferencesValid(auth.orgId, next, current),
        log,
        revert: true,
        also: (written) => [
          prepareRevisionEvent(
            auth.orgId,
            'reverted',
            { live: current, revision: revertRecord(written, current.revision.version), environmentIds: ids },
            { revertedToVersion: target.version },
          ),
        ],
      };
    },
    authorOf(auth, comment),
  );
  return { ...(await presentOne(auth.orgId, changed, await readRevisionOf(auth.orgId, params.id, changed.revision.version))), ...bypassedGatesKey(bypassedGates) };
}

/** The revision a revert publishes, as the live feature written records it. */
function revertRecord(written: StoredFeature, baseVersion: number): StoredRevision {
  const { revision } = written;
  return {
    featureId: written.id,
    baseVersion,
    version: revision.version,
    comment: revision.comment,
    date: revision.date,
    status: 'published',
    createdBy: revision.createdBy,
    publishedBy: revision.publishedBy,
    ...fieldsOf(written),
  };
}
