import * as contract from '../contracts/feature-revisions';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import type { FeatureRule } from '../contracts/features';
import { InvalidInputError, NotFoundError, UnresolvedConflictError } from '../errors';
import { assertCan, type Principal } from '../permissions';
import { retryOnConflict } from '../db/optimistic';
import { assertValuesValid, authorOf, coerceValue, featureAtRevision, type StoredFeature } from '../domain/features';
import {
  afterEdit,
  assertStatus,
  completeFields,
  fieldsOf,
  mergeChanges,
  mergeRevision,
  openStatuses,
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
import { changeLiveFeature } from './features';

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
      rules: flatRules(f.rules, environments),
      definitions,
      environmentsEnabled: Object.fromEntries(environments.map((env) => [env, f.environmentsEnabled[env] ?? false])),
      prerequisites: f.prerequisites.map((id) => ({ id })),
      metadata: f.metadata,
      ...(revision.reviews?.length ? { reviews: revision.reviews } : {}),
    };
  });
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
    const current = await readFeature(auth.orgId, featureId);
    assertCan(auth, 'manageFeatures', projectsOf(current.entity));
    const now = new Date().toISOString();
    const draft = await createDraft(auth.orgId, current, {
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
    });
    return { live: current.entity, draft };
  });
}

/** `POST /v2/features/{id}/revisions`: a draft branched from the live version; SDKs see nothing of it. */
export async function postFeatureRevisionV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionV2>): UseCaseOutput<typeof contract.postFeatureRevisionV2> {
  const { live, draft } = await newDraft(auth, params.id, fieldsOf, body);
  return presentOne(auth.orgId, live, draft);
}

/** `GET /v2/features/{id}/revisions/{version}`. */
export async function getFeatureRevisionV2({ auth, params }: UseCaseInput<typeof contract.getFeatureRevisionV2>): UseCaseOutput<typeof contract.getFeatureRevisionV2> {
  const [live, revision] = await Promise.all([readFeature(auth.orgId, params.id), readRevisionOf(auth.orgId, params.id, params.version)]);
  return presentOne(auth.orgId, live.entity, revision);
}

/**
 * `GET /v2/features/{id}/revisions/latest`: the open draft updated last (of the given statuses, by the
 * given author, or created or edited by the caller with `mine`); 404 when there is none.
 */
export async function getFeatureRevisionLatestV2({ auth, params, query }: UseCaseInput<typeof contract.getFeatureRevisionLatestV2>): UseCaseOutput<typeof contract.getFeatureRevisionLatestV2> {
  if (query.mine && query.author) throw new InvalidInputError('Querystring: [mine] cannot be combined with author');
  const statuses = query.status?.length ? query.status.filter((status) => openStatuses.includes(status)) : openStatuses;
  const filter = { author: query.author, mine: query.mine ? authorOf(auth, '').by : undefined };
  const [live, drafts] = await Promise.all([readFeature(auth.orgId, params.id), statuses.length ? latestRevisions(auth.orgId, params.id, Infinity, statuses) : []]);
  const [latest] = drafts
    .filter((draft) => matches(draft, filter))
    .sort((a, b) => (b.dateUpdated ?? b.date).localeCompare(a.dateUpdated ?? a.date) || b.version - a.version);
  if (!latest) throw new NotFoundError(`Feature ${params.id} has no matching draft`);
  return presentOne(auth.orgId, live.entity, latest);
}

/** `GET /v2/features/{id}/revisions`: newest first, a page at a time. */
export async function getFeatureRevisionsV2({ auth, params, query }: UseCaseInput<typeof contract.getFeatureRevisionsV2>): UseCaseOutput<typeof contract.getFeatureRevisionsV2> {
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
 */
export async function editDraft(
  auth: Principal,
  featureId: string,
  version: number | 'new',
  edit: (fields: RevisionFields, live: StoredFeature, environments: string[]) => RevisionFields,
  text: { comment?: string; title?: string } = {},
) {
  let number = version;
  if (number === 'new') {
    const [live, environments] = await Promise.all([readFeature(auth.orgId, featureId), environmentIds(auth.orgId)]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    // A refused edit leaves no empty draft behind.
    await assertPublishable(auth, live.entity, edit(fieldsOf(live.entity), live.entity, environments));
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
    const fields = edit(fieldsOfRevision(draft, live.entity), live.entity, environments);
    await assertPublishable(auth, live.entity, fields);
    const changed = !sameFields(fields, fieldsOfRevision(draft, live.entity));
    const next: StoredRevision = {
      ...draft,
      ...fields,
      ...(changed ? afterEdit({ status: draft.status, reviews: draft.reviews ?? [] }) : {}),
      contributors: contributorsAfter(draft, auth),
    };
    return { live: live.entity, written: await writeDraft(auth.orgId, draft, next) };
  });
  return presentOne(auth.orgId, live, written);
}

/** The draft's contributors once the caller has edited it (its author is not listed). */
export function contributorsAfter(draft: StoredRevision, auth: Principal): string[] {
  const by = authorOf(auth, '').by;
  const contributors = draft.contributors ?? [];
  return by === draft.createdBy || contributors.includes(by) ? contributors : [...contributors, by];
}

/** `PUT /v2/features/{id}/revisions/{version}/default-value`. */
export async function putFeatureRevisionDefaultValueV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionDefaultValueV2>): UseCaseOutput<typeof contract.putFeatureRevisionDefaultValueV2> {
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, live) => ({ ...fields, defaultValue: coerceValue(live.valueType, body.defaultValue, 'defaultValue') }),
    { comment: body.revisionComment, title: body.revisionTitle },
  );
}

/** `POST /v2/features/{id}/revisions/{version}/toggle`: one environment on or off in the draft. */
export async function postFeatureRevisionToggleV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionToggleV2>): UseCaseOutput<typeof contract.postFeatureRevisionToggleV2> {
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, _live, environments) => {
      if (!environments.includes(body.environment)) {
        throw new InvalidInputError(`Request body: [environment] ${body.environment} is not an environment of this organization (${environments.join(', ')})`);
      }
      return { ...fields, environmentsEnabled: { ...fields.environmentsEnabled, [body.environment]: body.enabled } };
    },
    { comment: body.revisionComment, title: body.revisionTitle },
  );
}

/** `PUT /v2/features/{id}/revisions/{version}/archive`. */
export async function putFeatureRevisionArchiveV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionArchiveV2>): UseCaseOutput<typeof contract.putFeatureRevisionArchiveV2> {
  return editDraft(auth, params.id, params.version, (fields) => ({ ...fields, archived: body.archived }), {
    comment: body.revisionComment,
    title: body.revisionTitle,
  });
}

/** `PUT /v2/features/{id}/revisions/{version}/prerequisites`: the feature-level prerequisites (checked like a publish checks them). */
export async function putFeatureRevisionPrerequisitesV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionPrerequisitesV2>): UseCaseOutput<typeof contract.putFeatureRevisionPrerequisitesV2> {
  const ids = body.prerequisites.map((prerequisite) => prerequisite.id);
  return editDraft(auth, params.id, params.version, (fields) => ({ ...fields, prerequisites: [...new Set(ids)] }), {
    comment: body.revisionComment,
    title: body.revisionTitle,
  });
}

/** `POST /v2/features/{id}/revisions/{version}/rules/reorder`: `ruleIds` names every rule once, in the new order. */
export async function postFeatureRevisionRulesReorderV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionRulesReorderV2>): UseCaseOutput<typeof contract.postFeatureRevisionRulesReorderV2> {
  return editDraft(auth, params.id, params.version, (fields, _live, environments) => reorderRules(fields, body.ruleIds, environments), {
    comment: body.revisionComment,
    title: body.revisionTitle,
  });
}

/** `DELETE /v2/features/{id}/revisions/{version}/rules/{ruleId}`: the rule out of the draft, in every environment. */
export async function deleteFeatureRevisionRuleV2({ auth, params, body }: UseCaseInput<typeof contract.deleteFeatureRevisionRuleV2>): UseCaseOutput<typeof contract.deleteFeatureRevisionRuleV2> {
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
  );
}

/** A draft's merge against the live version, from its base revision's fields. */
export async function mergeOf(orgId: string, live: StoredFeature, draft: StoredRevision, strategies?: Record<string, 'overwrite' | 'discard'>) {
  const liveFields = fieldsOf(live);
  const base = draft.baseVersion === live.revision.version ? liveFields : completeFields((await readRevision(orgId, live.id, draft.baseVersion)) ?? {}, liveFields);
  return { liveFields, outcome: mergeRevision(liveFields, base, fieldsOfRevision(draft, live), strategies) };
}

export const mergeConflictError = (conflicts: unknown[]) =>
  new UnresolvedConflictError('The draft conflicts with changes published since it was created; rebase it and resolve the conflicts', { conflicts });

/** `GET /v2/features/{id}/revisions/{version}/merge-status`: the three-way merge, not applied. */
export async function getFeatureRevisionMergeStatusV2({ auth, params }: UseCaseInput<typeof contract.getFeatureRevisionMergeStatusV2>): UseCaseOutput<typeof contract.getFeatureRevisionMergeStatusV2> {
  const [live, draft, environments] = await Promise.all([
    readFeature(auth.orgId, params.id),
    readRevisionOf(auth.orgId, params.id, params.version),
    environmentIds(auth.orgId),
  ]);
  assertStatus(draft.status, openStatuses, 'merge');
  const { liveFields, outcome } = await mergeOf(auth.orgId, live.entity, draft);
  const common = { liveVersion: live.entity.revision.version, draftDateUpdated: draft.dateUpdated ?? draft.date, conflicts: outcome.conflicts };
  if (!outcome.success) return { success: false, ...common, rebaseRequired: true };
  const { rules, prerequisites, ...changes } = mergeChanges(liveFields, outcome.merged);
  return {
    success: true,
    ...common,
    result: {
      ...changes,
      ...(rules ? { rules: flatRules(rules, environments.filter((env) => env in rules)) } : {}),
      ...(prerequisites ? { prerequisites: prerequisites.map((id) => ({ id, condition: JSON.stringify({ value: true }) })) } : {}),
    },
    rebaseRequired: false,
  };
}

/**
 * `POST /v2/features/{id}/revisions/{version}/publish`: the merge of the draft into the live version
 * goes live in one transaction with the revision and the payload entries, conditional on the live
 * version merged against; if another publish lands first, the merge is done again, and a conflict
 * then is answered as GrowthBook does (409, with the conflicts).
 */
export async function postFeatureRevisionPublishV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionPublishV2>): UseCaseOutput<typeof contract.postFeatureRevisionPublishV2> {
  const changed = await publishRevision(auth, params.id, params.version, body.comment);
  return presentOne(auth.orgId, changed, await readRevisionOf(auth.orgId, params.id, params.version));
}

/**
 * Publishes a draft (see `postFeatureRevisionPublishV2`): the one publish path, which scheduled and
 * release publishes share. Answers the live feature as published.
 */
export async function publishRevision(auth: Principal, featureId: string, version: number, comment?: string): Promise<StoredFeature> {
  const { changed } = await changeLiveFeature(
    auth,
    featureId,
    async (current) => {
      const draft = await readRevisionOf(auth.orgId, featureId, version);
      assertStatus(draft.status, openStatuses, 'publish');
      const { liveFields, outcome } = await mergeOf(auth.orgId, current, draft);
      if (!outcome.success) throw mergeConflictError(outcome.conflicts);
      if (sameFields(outcome.merged, liveFields)) throw new InvalidInputError('Cannot publish: no changes detected in this revision');
      const next = withFields(current, outcome.merged);
      await assertValuesValid(next);
      return { next, read: await assertReferencesValid(auth.orgId, next, current), publishes: draft };
    },
    authorOf(auth, comment ?? ''),
  );
  return changed;
}

/** A status change of a revision, conditional on it being unchanged since read. */
export async function moveRevision(auth: Principal, featureId: string, version: number, move: (revision: StoredRevision) => StoredRevision) {
  const { live, written } = await retryOnConflict(async () => {
    const [live, revision] = await Promise.all([readFeature(auth.orgId, featureId), readRevisionOf(auth.orgId, featureId, version)]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    return { live: live.entity, written: await writeDraft(auth.orgId, revision, move(revision)) };
  });
  return presentOne(auth.orgId, live, written);
}

/** `POST /v2/features/{id}/revisions/{version}/discard`: an open draft set aside (it can be reopened). */
export async function postFeatureRevisionDiscardV2({ auth, params }: UseCaseInput<typeof contract.postFeatureRevisionDiscardV2>): UseCaseOutput<typeof contract.postFeatureRevisionDiscardV2> {
  return moveRevision(auth, params.id, params.version, (revision) => {
    assertStatus(revision.status, openStatuses, 'discard');
    return { ...revision, status: 'discarded' };
  });
}

/** `POST /v2/features/{id}/revisions/{version}/reopen`: a discarded draft open again, its verdicts cleared. */
export async function postFeatureRevisionReopenV2({ auth, params }: UseCaseInput<typeof contract.postFeatureRevisionReopenV2>): UseCaseOutput<typeof contract.postFeatureRevisionReopenV2> {
  return moveRevision(auth, params.id, params.version, (revision) => {
    assertStatus(revision.status, ['discarded'], 'reopen');
    return { ...revision, status: 'draft', reviews: [] };
  });
}

/**
 * `POST /v2/features/{id}/revisions/{version}/rebase`: the draft re-based on the live version, holding
 * the merge (conflicts settled by `conflictResolutions`, else 409 with them); `expectedLiveVersion` and
 * `expectedDraftDateUpdated` refuse (409) when either side moved since the caller looked.
 */
export async function postFeatureRevisionRebaseV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionRebaseV2>): UseCaseOutput<typeof contract.postFeatureRevisionRebaseV2> {
  const { live, written } = await retryOnConflict(async () => {
    const [live, draft] = await Promise.all([readFeature(auth.orgId, params.id), readRevisionOf(auth.orgId, params.id, params.version)]);
    assertCan(auth, 'manageFeatures', projectsOf(live.entity));
    assertStatus(draft.status, openStatuses, 'rebase');
    const liveVersion = live.entity.revision.version;
    if (body.expectedLiveVersion !== undefined && body.expectedLiveVersion !== liveVersion) {
      throw new UnresolvedConflictError(`The live version is now ${liveVersion}, not ${body.expectedLiveVersion}; review the merge again`);
    }
    const draftDate = draft.dateUpdated ?? draft.date;
    if (body.expectedDraftDateUpdated !== undefined && body.expectedDraftDateUpdated !== draftDate) {
      throw new UnresolvedConflictError(`The draft was changed at ${draftDate}, after ${body.expectedDraftDateUpdated}; review the merge again`);
    }
    const { outcome } = await mergeOf(auth.orgId, live.entity, draft, body.conflictResolutions);
    if (!outcome.success) throw mergeConflictError(outcome.conflicts);
    const changed = !sameFields(outcome.merged, fieldsOfRevision(draft, live.entity));
    const next: StoredRevision = {
      ...draft,
      ...outcome.merged,
      baseVersion: liveVersion,
      ...(changed ? afterEdit({ status: draft.status, reviews: draft.reviews ?? [] }) : {}),
      contributors: contributorsAfter(draft, auth),
    };
    return { live: live.entity, written: await writeDraft(auth.orgId, draft, next) };
  });
  return presentOne(auth.orgId, live, written);
}

/**
 * `POST /v2/features/{id}/revisions/{version}/revert`: an earlier published revision's fields again,
 * as a new draft (`strategy: "draft"`, the default) or published at once as a new revision.
 */
export async function postFeatureRevisionRevertV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionRevertV2>): UseCaseOutput<typeof contract.postFeatureRevisionRevertV2> {
  const [live, target] = await Promise.all([readFeature(auth.orgId, params.id), readRevisionOf(auth.orgId, params.id, params.version)]);
  assertCan(auth, 'manageFeatures', projectsOf(live.entity));
  if (target.status !== 'published') {
    throw new InvalidInputError(`Can only revert to a published revision. Revision #${target.version} has status "${target.status}".`);
  }
  if (target.version === live.entity.revision.version) {
    throw new InvalidInputError(`Revision #${target.version} is already the live version — nothing to revert.`);
  }
  const comment = body.comment ?? `Revert to revision #${target.version}`;
  if ((body.strategy ?? 'draft') === 'draft') {
    const { live: current, draft } = await newDraft(auth, params.id, (current) => fieldsOfRevision(target, current), {
      comment,
      title: body.title ?? `Revert to v${target.version}`,
    });
    return presentOne(auth.orgId, current, draft);
  }
  const { changed } = await changeLiveFeature(
    auth,
    params.id,
    async (current) => {
      const next = withFields(current, fieldsOfRevision(target, current));
      await assertValuesValid(next);
      // What the old revision named may have been deleted since.
      return { next, read: await assertReferencesValid(auth.orgId, next, current) };
    },
    authorOf(auth, comment),
  );
  return presentOne(auth.orgId, changed, await readRevisionOf(auth.orgId, params.id, changed.revision.version));
}
