import * as contract from '../contracts/feature-revisions-v1';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import type { FeatureRevisionV2 } from '../contracts/feature-revisions';
import type { BypassedGate } from '../contracts/common';
import { InvalidInputError, NotFoundError } from '../errors';
import type { Principal } from '../permissions';
import type { StoredFeature } from '../domain/features';
import type { RevisionFields } from '../domain/revisions';
import { paginated } from '../domain/pagination';
import { environmentIds } from '../store/features';
import { listRevisionPage, type StoredRevision } from '../store/feature-revisions';
import * as v2 from './feature-revisions';
import * as edits from './feature-revision-edits';
import * as reviews from './feature-reviews';
import { organizationRevisionPage } from './features-v2';
import { skipPaginationAllowed } from './features';

// GrowthBook 5's deprecated v1 revision routes: each is its v2 use case (feature-revisions.ts), answered
// in v1's `FeatureRevision` shape. Where v1 asks for something else (one environment's rules), the v1
// use case makes its own edit through the same draft path (`editDraft`).

/** GrowthBook's condition of a feature-level prerequisite: the parent must be on. */
const PARENT_ON = '{"value": true}';

/** Revisions (of one feature or several) in v1's shape: the v2 presentation, with each environment's rules as stored and authors as ids. */
async function presentV1(orgId: string, liveOf: (revision: StoredRevision) => StoredFeature, revisions: StoredRevision[], environments: string[]) {
  const presented = await v2.presentRevisionsOf(orgId, liveOf, revisions, environments);
  return presented.map(({ createdBy: _createdBy, publishedBy: _publishedBy, rules: _flat, prerequisites, reviews: _reviews, ...rest }, i): contract.FeatureRevisionV1 => {
    const stored = revisions[i]!;
    const { rules } = v2.fieldsOfRevision(stored, liveOf(stored));
    return {
      ...rest,
      ...(stored.createdBy ? { createdBy: stored.createdBy } : {}),
      ...(stored.status === 'published' && stored.publishedBy ? { publishedBy: stored.publishedBy } : {}),
      rules: Object.fromEntries(environments.map((env) => [env, rules[env] ?? []])),
      ...(prerequisites ? { prerequisites: prerequisites.map(({ id }) => ({ id, condition: PARENT_ON })) } : {}),
    };
  });
}

/** One revision, as read now, in v1's shape (`{ revision }`). */
async function presentOneV1(orgId: string, featureId: string, version: number) {
  const [live, revision, environments] = await Promise.all([v2.readFeature(orgId, featureId), v2.readRevisionOf(orgId, featureId, version), environmentIds(orgId)]);
  const [presented] = await presentV1(orgId, () => live.entity, [revision], environments);
  return { revision: presented! };
}

/**
 * A v2 revision use case answering in v1's shape: the revision it answers is read back, for its rules
 * per environment (v2's flat list cannot always be split back: one rule may sit at different places in
 * different environments). Every v1 twin of a v2 revision operation is this, around its v2 use case;
 * the gates a publish bypassed are answered as v2 answers them.
 */
export function inV1<I extends { auth: Principal }>(useCase: (input: I) => Promise<{ revision: FeatureRevisionV2; bypassedGates?: BypassedGate[] }>) {
  return async (input: I): Promise<{ revision: contract.FeatureRevisionV1; bypassedGates?: BypassedGate[] }> => {
    const { revision, bypassedGates } = await useCase(input);
    return { ...(await presentOneV1(input.auth.orgId, revision.featureId, revision.version)), ...(bypassedGates ? { bypassedGates } : {}) };
  };
}

/** `GET /v1/revisions`: revisions of every feature, newest first (`listRevisionsV2` in v1's shape). */
export async function listRevisions({ auth, query }: UseCaseInput<typeof contract.listRevisions>): UseCaseOutput<typeof contract.listRevisions> {
  const { items, total, liveById, environments, request } = await organizationRevisionPage(auth, query);
  const revisions = items.length ? await presentV1(auth.orgId, (revision) => liveById.get(revision.featureId)!, items, environments) : [];
  return paginated('revisions', { items: revisions, total }, request);
}

/** `GET /v1/features/{id}/revisions`: a feature's revisions, newest first (`getFeatureRevisionsV2` in v1's shape). */
export async function getFeatureRevisions({ auth, params, query }: UseCaseInput<typeof contract.getFeatureRevisions>): UseCaseOutput<typeof contract.getFeatureRevisions> {
  const all = query.skipPagination && skipPaginationAllowed();
  const filter = { statuses: query.status, author: query.author };
  const [live, environments, page] = await Promise.all([
    v2.readFeature(auth.orgId, params.id),
    environmentIds(auth.orgId),
    listRevisionPage(auth.orgId, params.id, { limit: all ? Number.MAX_SAFE_INTEGER : query.limit, offset: all ? 0 : query.offset, filter }),
  ]);
  const revisions = page.items.length ? await presentV1(auth.orgId, () => live.entity, page.items, environments) : [];
  return paginated('revisions', { items: revisions, total: page.total }, all ? { limit: revisions.length, offset: 0 } : query);
}

/** `GET /v1/features/{id}/revisions/{version}`. */
export async function getFeatureRevision({ auth, params }: UseCaseInput<typeof contract.getFeatureRevision>): UseCaseOutput<typeof contract.getFeatureRevision> {
  return presentOneV1(auth.orgId, params.id, params.version);
}

/** `POST /v1/features/{id}/revisions` (Switchyard sets no draft limit: `overrideDraftLimit` changes nothing). */
export const postFeatureRevision = inV1((input: UseCaseInput<typeof contract.postFeatureRevision>) => v2.postFeatureRevisionV2({ ...input, query: undefined }));
export const getFeatureRevisionLatest = inV1(v2.getFeatureRevisionLatestV2);
export const putFeatureRevisionDefaultValue = inV1(v2.putFeatureRevisionDefaultValueV2);
export const putFeatureRevisionArchive = inV1(v2.putFeatureRevisionArchiveV2);
export const postFeatureRevisionToggle = inV1(v2.postFeatureRevisionToggleV2);
/** v1 names each prerequisite's condition; Switchyard's feature-level prerequisites always require the parent on (the contract takes only that). */
export const putFeatureRevisionPrerequisites = inV1((input: UseCaseInput<typeof contract.putFeatureRevisionPrerequisites>) =>
  v2.putFeatureRevisionPrerequisitesV2({ ...input, body: { ...input.body, prerequisites: input.body.prerequisites.map(({ id }) => ({ id })) } }),
);
export const getFeatureRevisionMergeStatus = v2.getFeatureRevisionMergeStatusV2;
export const postFeatureRevisionRebase = inV1(v2.postFeatureRevisionRebaseV2);
export const postFeatureRevisionPublish = inV1(v2.postFeatureRevisionPublishV2);
export const postFeatureRevisionDiscard = inV1(v2.postFeatureRevisionDiscardV2);
export const postFeatureRevisionRevert = inV1(v2.postFeatureRevisionRevertV2);

/** v1 edits one environment's rules: the environment must be one of the organization's. */
function assertEnvironment(environment: string, environments: string[]): void {
  if (!environments.includes(environment)) {
    throw new InvalidInputError(`Request body: [environment] ${environment} is not an environment of this organization (${environments.join(', ')})`);
  }
}

/** The draft's rules of one environment in the order `ruleIds` gives, which must name each of them once (GrowthBook's v1 reorder). */
export function reorderEnvironmentRules(fields: RevisionFields, environment: string, ruleIds: string[]): RevisionFields {
  const rules = fields.rules[environment] ?? [];
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const unknown = ruleIds.filter((id) => !byId.has(id));
  if (unknown.length) {
    throw new NotFoundError(`Unknown rule ID(s): ${unknown.join(', ')}. ruleIds must contain exactly the existing rule IDs for this environment.`);
  }
  const repeated = ruleIds.filter((id, i) => ruleIds.indexOf(id) !== i);
  if (repeated.length) throw new InvalidInputError(`Request body: [ruleIds] Duplicate rule ID(s): ${[...new Set(repeated)].join(', ')}.`);
  const missing = rules.map((rule) => rule.id).filter((id) => !ruleIds.includes(id));
  if (missing.length) {
    throw new InvalidInputError(`Request body: [ruleIds] Missing rule ID(s): ${missing.join(', ')}. ruleIds must contain exactly the existing rule IDs for this environment.`);
  }
  return { ...fields, rules: { ...fields.rules, [environment]: ruleIds.map((id) => byId.get(id)!) } };
}

/** `POST /v1/features/{id}/revisions/{version}/rules/reorder`: one environment's rules reordered in the draft. */
export const postFeatureRevisionRulesReorder = inV1(({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionRulesReorder>) =>
  v2.editDraft(
    auth,
    params.id,
    params.version,
    (fields, _live, environments) => {
      assertEnvironment(body.environment, environments);
      return reorderEnvironmentRules(fields, body.environment, body.ruleIds);
    },
    { comment: body.revisionComment, title: body.revisionTitle },
  ),
);

/** `DELETE /v1/features/{id}/revisions/{version}/rules/{ruleId}`: the rule out of one environment of the draft. */
export const deleteFeatureRevisionRule = inV1(({ auth, params, body }: UseCaseInput<typeof contract.deleteFeatureRevisionRule>) =>
  v2.editDraft(
    auth,
    params.id,
    params.version,
    (fields, _live, environments) => {
      assertEnvironment(body.environment, environments);
      const rules = fields.rules[body.environment] ?? [];
      if (!rules.some((rule) => rule.id === params.ruleId)) throw new NotFoundError(`Could not find rule ${params.ruleId} in environment ${body.environment} of this revision`);
      return { ...fields, rules: { ...fields.rules, [body.environment]: rules.filter((rule) => rule.id !== params.ruleId) } };
    },
    { comment: body.revisionComment, title: body.revisionTitle },
  ),
);

export const putFeatureRevisionMetadata = inV1(edits.putFeatureRevisionMetadataV2);
export const putFeatureRevisionHoldout = inV1(edits.putFeatureRevisionHoldoutV2);
export const putFeatureRevisionRuleRampSchedule = inV1(edits.putFeatureRevisionRuleRampScheduleV2);
/** v1's `environment` is deprecated and changes nothing: a rule has one pending ramp, whichever environments it is in. */
export const deleteFeatureRevisionRuleRampSchedule = inV1(({ body, ...input }: UseCaseInput<typeof contract.deleteFeatureRevisionRuleRampSchedule>) => {
  const { environment: _deprecated, ...rest } = body ?? {};
  return edits.deleteFeatureRevisionRuleRampScheduleV2({ ...input, body: rest });
});
export const postFeatureRevisionRequestReview = inV1(reviews.postFeatureRevisionRequestReviewV2);
/** v2's review, answered in v1's shape with v2's `autoPublished` (whether an armed draft went live on this approval). */
export async function postFeatureRevisionSubmitReview({
  auth,
  params,
  body,
  query,
}: UseCaseInput<typeof contract.postFeatureRevisionSubmitReview>): UseCaseOutput<typeof contract.postFeatureRevisionSubmitReview> {
  const { revision, autoPublished } = await reviews.postFeatureRevisionSubmitReviewV2({ auth, params, body, query });
  return { ...(await presentOneV1(auth.orgId, revision.featureId, revision.version)), ...(autoPublished !== undefined ? { autoPublished } : {}) };
}

/** `POST /v1/features/{id}/revisions/{version}/rules`: v2's rule add, the rule placed in the one environment v1 names. */
export const postFeatureRevisionRuleAdd = inV1(async ({ body: { environment, rule, ...rest }, ...input }: UseCaseInput<typeof contract.postFeatureRevisionRuleAdd>) => {
  assertEnvironment(environment, await environmentIds(input.auth.orgId));
  return edits.postFeatureRevisionRuleAddV2({ ...input, body: { ...rest, rule: { ...rule, environments: [environment] } } });
});

/**
 * `PUT /v1/features/{id}/revisions/{version}/rules/{ruleId}`: v2's rule patch, once the rule is found in
 * the environment v1 names. The patch names no environments, so the rule stays where it is (v2 would
 * move it to only the environments named); a rule id in several environments is one rule, patched in each.
 */
export const putFeatureRevisionRule = inV1(async ({ body: { environment, ...rest }, ...input }: UseCaseInput<typeof contract.putFeatureRevisionRule>) => {
  const { auth, params } = input;
  const [environments, rules] = await Promise.all([
    environmentIds(auth.orgId),
    params.version === 'new'
      ? v2.readFeature(auth.orgId, params.id).then((live) => live.entity.environments[environment]?.rules ?? [])
      : v2.readRevisionOf(auth.orgId, params.id, params.version).then((draft) => draft.rules?.[environment] ?? []),
  ]);
  assertEnvironment(environment, environments);
  if (!rules.some((rule) => rule.id === params.ruleId)) throw new NotFoundError(`Could not find rule ${params.ruleId} in environment ${environment} of this revision`);
  return edits.putFeatureRevisionRuleV2({ ...input, body: rest });
});
