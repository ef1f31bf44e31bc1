import * as contract from '../contracts/features-v2';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import type { EnvironmentInput, Feature, FeatureRevisionView, FeatureUpdate, RuleInput } from '../contracts/features';
import type { FeatureRevisionV2 } from '../contracts/feature-revisions';
import { InvalidInputError } from '../errors';
import { newId } from '../ids';
import { openStatuses } from '../domain/revisions';
import { paginated } from '../domain/pagination';
import { staleVerdict } from '../domain/feature-staleness';
import { presentFeatures } from '../payload/definitions';
import { environments as environmentStore } from '../store/environments';
import { experiments } from '../store/experiments';
import { allFeatures, environmentIds, features } from '../store/features';
import { latestRevisions, listOrganizationRevisionPage, type OrganizationRevisionFilter } from '../store/feature-revisions';
import { authorOf } from '../domain/features';
import { eventUser, flatRules, presentRevisionsOf, revisionId } from './feature-revisions';
import * as v1 from './features';
import { visibleTo } from './read-access';
import type { Principal } from '../permissions';

// GrowthBook 5's `/api/v2` feature operations are the v1 operations (features.ts) with v2 shapes:
// bodies are translated to v1's (rules per environment), answers presented as v2's (one flat rule list).

/** The live revision as `FeatureRevisionSummary`: GrowthBook's revision id, authors as `EventUser`s. */
function revisionSummary(featureId: string, revision: Feature['revision']) {
  const createdBy = eventUser(revision.createdBy);
  const publishedBy = eventUser(revision.publishedBy);
  return {
    id: revisionId(featureId, revision.version),
    version: revision.version,
    comment: revision.comment,
    date: revision.date,
    ...(createdBy ? { createdBy } : {}),
    ...(publishedBy ? { publishedBy } : {}),
  };
}

/**
 * A feature as v1 presents it, in GrowthBook 5's v2 shape (`FeatureV2`): each environment's state,
 * and every rule once with the environments it is in. `ownerEmail` is left out: the 5.0.1 document's
 * `FeatureV2` has no such field (and allows no other).
 */
export function toFeatureV2(feature: Feature): contract.FeatureV2 {
  const envs = Object.keys(feature.environments);
  const { id, dateCreated, dateUpdated, archived, description, owner, project, valueType, defaultValue, tags, prerequisites, customFields, holdout } = feature;
  return {
    ...{ id, dateCreated, dateUpdated, archived, description, owner, project, valueType, defaultValue, tags },
    rules: flatRules(Object.fromEntries(envs.map((env) => [env, feature.environments[env]!.rules])), envs),
    environments: Object.fromEntries(
      envs.map((env) => {
        const { enabled, defaultValue: value, definition } = feature.environments[env]!;
        return [env, { enabled, defaultValue: value, ...(definition !== undefined ? { definition } : {}) }];
      }),
    ),
    ...(prerequisites !== undefined ? { prerequisites } : {}),
    revision: revisionSummary(id, feature.revision),
    ...(customFields !== undefined ? { customFields } : {}),
    ...(holdout !== undefined ? { holdout } : {}),
  };
}

/** A revision as v1's `withRevisions` lists it, in the v2 shape (`FeatureRevisionV2`). */
function revisionViewToV2(view: FeatureRevisionView, envs: string[]): FeatureRevisionV2 {
  const createdBy = eventUser(view.createdBy);
  const publishedBy = view.status === 'published' ? eventUser(view.publishedBy) : undefined;
  return {
    id: revisionId(view.featureId, view.version),
    featureId: view.featureId,
    baseVersion: view.baseVersion,
    version: view.version,
    comment: view.comment,
    date: view.date,
    status: view.status,
    ...(createdBy ? { createdBy } : {}),
    ...(publishedBy ? { publishedBy } : {}),
    ...(view.defaultValue !== undefined ? { defaultValue: view.defaultValue } : {}),
    rules: flatRules(view.rules, envs),
    definitions: view.definitions,
  };
}

/**
 * The v1 rules of each environment from a v2 body's flat rule list, as GrowthBook scopes them: a rule
 * is in every environment (`allEnvironments` true, or neither field given) or in those `environments`
 * names. A rule without an id gets one here, so it keeps one id in every environment it is in.
 */
export function rulesPerEnvironment(rules: contract.RuleV2Input[], environments: string[]): Record<string, RuleInput[]> {
  const perEnvironment: Record<string, RuleInput[]> = Object.fromEntries(environments.map((env) => [env, []]));
  const ids = new Set<string>();
  rules.forEach((rule, i) => {
    const { allEnvironments, environments: scope, savedGroups, config: _config, sparse: _sparse, allProjects: _all, projects: _projects, ...v1Rule } = rule;
    const envs = allEnvironments === true || (allEnvironments === undefined && scope === undefined) ? environments : (scope ?? []);
    const unknown = envs.find((env) => !environments.includes(env));
    if (unknown) throw new InvalidInputError(`Request body: [rules.${i}.environments] ${unknown} is not an environment of this organization (${environments.join(', ')})`);
    if (envs.length === 0) throw new InvalidInputError(`Request body: [rules.${i}.environments] names no environment: a rule must be in at least one`);
    const id = v1Rule.id ?? newId('fr_');
    if (ids.has(id)) throw new InvalidInputError(`Request body: [rules.${i}.id] repeats the id ${id} of another rule`);
    ids.add(id);
    const targeting = [...(v1Rule.savedGroupTargeting ?? []), ...(savedGroups ?? []).map((group) => ({ matchType: group.match, savedGroups: group.ids }))];
    const stored = {
      ...v1Rule,
      id,
      ...(targeting.length ? { savedGroupTargeting: targeting } : {}),
      // A variation's `config` (only null is taken) is not kept.
      ...(v1Rule.type === 'experiment-ref' ? { variations: v1Rule.variations.map(({ value, variationId }) => ({ value, variationId })) } : {}),
    } as RuleInput;
    for (const env of envs) perEnvironment[env]!.push(stored);
  });
  return perEnvironment;
}

/** A v2 body's `environments` (states) and `rules` as v1's `environments`: every rule given replaces the environment's rules. */
function environmentsInput(
  body: { environments?: Record<string, { enabled?: boolean }>; rules?: contract.RuleV2Input[] },
  environments: string[],
): Record<string, EnvironmentInput> | undefined {
  if (!body.environments && !body.rules) return undefined;
  const rules = body.rules ? rulesPerEnvironment(body.rules, environments) : undefined;
  // Environments the organization does not have stay in, for v1's check to name them.
  const named = [...new Set([...environments, ...Object.keys(body.environments ?? {})])];
  return Object.fromEntries(
    named.flatMap((env) => {
      const enabled = body.environments?.[env]?.enabled;
      const input: EnvironmentInput = { ...(enabled !== undefined ? { enabled } : {}), ...(rules?.[env] ? { rules: rules[env] } : {}) };
      return Object.keys(input).length ? [[env, input]] : [];
    }),
  );
}

/** `GET /v2/features`: v1's list, each feature in the v2 shape; `archived` keeps only archived (or only live) features. */
export async function listFeaturesV2({ auth, query }: UseCaseInput<typeof contract.listFeaturesV2>): UseCaseOutput<typeof contract.listFeaturesV2> {
  const { archived, ...v1Query } = query;
  if (archived === undefined) {
    const page = await v1.listFeatures({ auth, query: v1Query, params: undefined, body: undefined });
    return { ...page, features: page.features.map(toFeatureV2) };
  }
  // The list index does not know archived features from others: the matching ones are read and counted.
  const [all, environments] = await Promise.all([
    v1.featureListFilter(auth, query).then((filter) => allFeatures(auth.orgId, filter)),
    environmentIds(auth.orgId),
  ]);
  const kept = all.filter((feature) => feature.archived === archived);
  if (query.skipPagination && v1.skipPaginationAllowed()) {
    const items = (await presentFeatures(auth.orgId, kept, { environments })).map(toFeatureV2);
    return { features: items, limit: items.length, offset: 0, count: items.length, total: items.length, hasMore: false, nextOffset: null };
  }
  const page = kept.slice(query.offset, query.offset + query.limit);
  const items = (await presentFeatures(auth.orgId, page, { environments })).map(toFeatureV2);
  return paginated('features', { items, total: kept.length }, query);
}

/** `POST /v2/features`: v1's create, with the flat rules placed in their environments. */
export async function postFeatureV2({ auth, body }: UseCaseInput<typeof contract.postFeatureV2>): UseCaseOutput<typeof contract.postFeatureV2> {
  const { rules, environments, targetingAllProjects: _all, targetingProjects: _projects, baseConfig: _base, defaultValueConfig: _defaultConfig, ...rest } = body;
  const { ignoreWarnings: _warnings, skipSchemaValidation: _schema, skipHooks: _hooks, ...v1Body } = rest;
  const envInput = environmentsInput({ environments, rules }, await environmentIds(auth.orgId));
  const { feature } = await v1.postFeature({ auth, body: { ...v1Body, ...(envInput ? { environments: envInput } : {}) }, params: undefined, query: undefined });
  return { feature: toFeatureV2(feature) };
}

/** `POST /v2/features/{id}`: v1's update; `rules`, when given, replaces the rules of every environment. */
export async function updateFeatureV2({ auth, params, body }: UseCaseInput<typeof contract.updateFeatureV2>): UseCaseOutput<typeof contract.updateFeatureV2> {
  const { rules, environments, targetingAllProjects: _all, targetingProjects: _projects, baseConfig: _base, defaultValueConfig: _defaultConfig, ...rest } = body;
  const { ignoreWarnings: _warnings, skipSchemaValidation: _schema, skipHooks: _hooks, ...v1Body } = rest;
  const envInput = rules || environments ? environmentsInput({ environments, rules }, await environmentIds(auth.orgId)) : undefined;
  const update: FeatureUpdate = { ...v1Body, ...(envInput ? { environments: envInput } : {}) };
  const { feature, ...gates } = await v1.updateFeature({ auth, params, body: update, query: undefined });
  return { feature: toFeatureV2(feature), ...gates };
}

/** `GET /v2/features/{id}`: v1's read, with `withRevisions` revisions in the v2 shape. */
export async function getFeatureV2({ auth, params, query }: UseCaseInput<typeof contract.getFeatureV2>): UseCaseOutput<typeof contract.getFeatureV2> {
  const { feature } = await v1.getFeature({ auth, params, query, body: undefined });
  const envs = Object.keys(feature.environments);
  const { revisions, ...live } = feature;
  return { feature: { ...toFeatureV2(live), ...(revisions ? { revisions: revisions.map((view) => revisionViewToV2(view, envs)) } : {}) } };
}

/** `DELETE /v2/features/{id}`: v1's delete. */
export const deleteFeatureV2 = ({ auth, params }: UseCaseInput<typeof contract.deleteFeatureV2>): UseCaseOutput<typeof contract.deleteFeatureV2> =>
  v1.deleteFeature({ auth, params, query: undefined, body: undefined });

/** `POST /v2/features/{id}/toggle`: v1's toggle. */
export async function toggleFeatureV2({ auth, params, body }: UseCaseInput<typeof contract.toggleFeatureV2>): UseCaseOutput<typeof contract.toggleFeatureV2> {
  const { feature, ...gates } = await v1.toggleFeature({ auth, params, body, query: undefined });
  return { feature: toFeatureV2(feature), ...gates };
}

/** `POST /v2/features/{id}/revert`: v1's revert. */
export async function revertFeatureV2({ auth, params, body }: UseCaseInput<typeof contract.revertFeatureV2>): UseCaseOutput<typeof contract.revertFeatureV2> {
  const { feature, ...gates } = await v1.revertFeature({ auth, params, body: { revision: body.revision, comment: body.comment }, query: undefined });
  return { feature: toFeatureV2(feature), ...gates };
}

/** `GET /v2/feature-keys`: v1's. */
export const getFeatureKeysV2 = ({ auth, query }: UseCaseInput<typeof contract.getFeatureKeysV2>): UseCaseOutput<typeof contract.getFeatureKeysV2> =>
  v1.getFeatureKeys({ auth, query, params: undefined, body: undefined });

/**
 * `GET /v2/stale-features?ids=...`: GrowthBook's stale verdict for each feature named that exists and
 * the caller may read (the others are left out, as GrowthBook leaves them out).
 */
export async function getFeatureStaleV2({ auth, query }: UseCaseInput<typeof contract.getFeatureStaleV2>): UseCaseOutput<typeof contract.getFeatureStaleV2> {
  if (!query.ids) throw new InvalidInputError('Querystring: [ids] is required: the ids of the features, comma-separated');
  const ids = query.ids;
  if (!ids.length) return { features: {} };
  const visible = visibleTo(auth);
  // Dependents and experiments are looked for among everything the caller may read, as GrowthBook does.
  const [all, found, environments] = await Promise.all([
    allFeatures(auth.orgId, { all: [], visible }),
    experiments.allTagged(auth.orgId, [], visible),
    environmentStore.all(auth.orgId),
  ]);
  const wanted = all.filter((feature) => ids.includes(feature.id));
  const drafts = await Promise.all(wanted.map((feature) => latestRevisions(auth.orgId, feature.id, Infinity, openStatuses)));
  const lastDraft = new Map(
    wanted.flatMap((feature, i) => {
      const dates = drafts[i]!.map((draft) => Date.parse(draft.dateUpdated ?? draft.date));
      return dates.length ? [[feature.id, Math.max(...dates)] as const] : [];
    }),
  );
  const now = Date.now();
  const environmentsOf = (feature: { project: string }) =>
    environments.filter((env) => !feature.project || !env.projects.length || env.projects.includes(feature.project)).map((env) => env.id);
  return {
    features: Object.fromEntries(
      wanted.map((feature) => [feature.id, staleVerdict(feature, { features: all, experiments: found, environmentsOf, now, lastDraftChange: (id) => lastDraft.get(id) })]),
    ),
  };
}

/** The revision filter of a list query; `mine` is what the caller (member or key) created or edited. */
export function revisionListFilter(auth: Principal, query: { featureId?: string; status?: string[]; author?: string; mine?: boolean }): OrganizationRevisionFilter {
  if (query.mine && query.author) throw new InvalidInputError('Querystring: [mine] `mine` and `author` are mutually exclusive; pass one or the other');
  return {
    ...(query.featureId ? { featureId: query.featureId } : {}),
    ...(query.status?.length ? { statuses: query.status } : {}),
    ...(query.author ? { author: query.author } : {}),
    ...(query.mine ? { mine: authorOf(auth, '').by } : {}),
  };
}

/**
 * A page of the organization's revisions, newest first, as stored, with the live features they are
 * presented against. A caller limited to some projects sees the revisions of the features it may read.
 */
export async function organizationRevisionPage(auth: Principal, query: Parameters<typeof revisionListFilter>[1] & { limit: number; offset: number; skipPagination?: boolean }) {
  const filter = revisionListFilter(auth, query);
  const visible = visibleTo(auth);
  if (visible) filter.features = new Set(await v1.getFeatureKeys({ auth, query: {}, params: undefined, body: undefined }));
  const all = query.skipPagination && v1.skipPaginationAllowed();
  const page = await listOrganizationRevisionPage(auth.orgId, { limit: all ? Number.MAX_SAFE_INTEGER : query.limit, offset: all ? 0 : query.offset, filter });
  const [live, environments] = await Promise.all([features.getMany(auth.orgId, page.items.map((revision) => revision.featureId)), environmentIds(auth.orgId)]);
  const liveById = new Map(live.map((feature) => [feature.id, feature]));
  // A feature deleted between the two reads leaves its revisions out.
  const items = page.items.filter((revision) => liveById.has(revision.featureId));
  const request = all ? { limit: items.length, offset: 0 } : query;
  return { items, total: all ? items.length : page.total, liveById, environments, request };
}

/** `GET /v2/feature-revisions`: revisions of every feature, newest first, filtered as GrowthBook filters them. */
export async function listRevisionsV2({ auth, query }: UseCaseInput<typeof contract.listRevisionsV2>): UseCaseOutput<typeof contract.listRevisionsV2> {
  const { items, total, liveById, environments, request } = await organizationRevisionPage(auth, query);
  const revisions = items.length ? await presentRevisionsOf(auth.orgId, (revision) => liveById.get(revision.featureId)!, items, environments) : [];
  return paginated('revisions', { items: revisions, total }, request);
}
