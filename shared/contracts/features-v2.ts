import * as z from './zod';
import { defineEndpoint } from './spec';
import { bypassedGates, deletedResponse, idParams, paginationFields, paginationQuery, queryBoolean, stringList } from './common';
import { featureKey, ruleInput, valueTypes } from './features';
import { eventUser, featureRevisionV2, statusList } from './feature-revisions';

// GrowthBook 5's `/api/v2` feature operations: the v1 operations (features.ts, feature-cleanup.ts) with
// rules as one flat list, each rule with the environments it is in (`allEnvironments` / `environments`).

/** `FeatureRevisionSummary`: the live revision of a feature, its authors as `EventUser`s. */
const revisionSummary = z.object({
  id: z.optional(z.string()),
  version: z.int(),
  comment: z.string(),
  date: z.string(),
  createdBy: z.optional(eventUser),
  publishedBy: z.optional(eventUser),
});

/**
 * A feature as GrowthBook 5's v2 API answers it (`FeatureV2`): environments hold only their state,
 * the rules are one flat list. Rules are passed through as built; the tests check them against the
 * reference document's `FeatureRuleV2`.
 */
export const featureV2 = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  archived: z.boolean(),
  description: z.string(),
  owner: z.string(),
  project: z.string(),
  valueType: z.enum(valueTypes),
  defaultValue: z.string(),
  tags: z.array(z.string()),
  rules: z.array(z.record(z.string(), z.unknown())),
  environments: z.record(z.string(), z.object({ enabled: z.boolean(), defaultValue: z.string(), definition: z.optional(z.string()) })),
  prerequisites: z.optional(z.array(z.string())),
  revision: revisionSummary,
  customFields: z.optional(z.record(z.string(), z.unknown())),
  holdout: z.optional(z.nullable(z.object({ id: z.string(), value: z.string() }))),
});
export type FeatureV2 = z.infer<typeof featureV2>;

const featureResponse = z.object({ feature: featureV2 });
/** A live change's answer: the feature, and the gates the caller's authority let the change pass. */
const changedFeatureResponse = z.object({ feature: featureV2, bypassedGates });

/** Switchyard keeps no configs: a value backed by one cannot be stored, so only "none" is taken. */
const noConfig = z.optional(z.nullable(z.string().check(z.refine(() => false, 'is not supported: Switchyard has no configs; send null or leave it out'))));

/** GrowthBook 5's rule scope fields and the fields it adds to v1 rules. */
const ruleScope = z.object({
  allEnvironments: z.optional(z.boolean()),
  environments: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(100))),
  // The v2 name of `savedGroupTargeting`.
  savedGroups: z.optional(
    z
      .array(
        z.object({
          match: z.enum(['all', 'none', 'any']),
          ids: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(100)),
        }),
      )
      .check(z.maxLength(100)),
  ),
  config: noConfig,
  sparse: z.optional(z.boolean().check(z.refine((sparse) => !sparse, 'is not supported: a rule always carries its whole value'))),
  allProjects: z.optional(z.boolean().check(z.refine((all) => all, 'is not supported: a rule applies in every project the feature is served in'))),
  projects: z.optional(z.array(z.string()).check(z.maxLength(0, 'is not supported: a rule applies in every project the feature is served in'))),
  variations: z.optional(z.array(z.object({ config: noConfig }))),
});

/**
 * A rule of a v2 body: a v1 rule (its fields checked as v1 checks them) with the v2 scope fields.
 * GrowthBook's v2 bodies take force, rollout, experiment-ref and safe-rollout rules; safe rollouts
 * are not kept by Switchyard, so they are refused by name.
 */
export const ruleV2Input = z.intersection(
  ruleInput,
  z.extend(ruleScope, {
    type: z.enum(['force', 'rollout', 'experiment-ref'], {
      error: 'must be force, rollout or experiment-ref (safe-rollout rules are not supported by Switchyard)',
    }),
  }),
);
export type RuleV2Input = z.infer<typeof ruleV2Input>;

const rulesV2 = z.array(ruleV2Input).check(z.maxLength(500));
/** Environments of a v2 body hold their state only; rules are given in `rules`. */
const environmentStates = z.record(z.string(), z.strictObject({ enabled: z.optional(z.boolean()) }));
/** Flags GrowthBook takes to skip its warnings, schema checks and hooks: Switchyard has no warnings or hooks, and always checks values. */
const skipFlags = {
  ignoreWarnings: z.optional(z.boolean()),
  skipSchemaValidation: z.optional(z.boolean()),
  skipHooks: z.optional(z.boolean()),
};
/** Secondary targeting projects (GrowthBook 5): not kept by Switchyard, so only "none" is taken. */
const targeting = {
  targetingAllProjects: z.optional(z.boolean().check(z.refine((all) => !all, 'is not supported: a feature is served in its own project only'))),
  targetingProjects: z.optional(z.array(z.string()).check(z.maxLength(0, 'is not supported: a feature is served in its own project only'))),
};
const owner = z.string().check(z.maxLength(256));
const customFields = z.record(z.string(), z.string().check(z.maxLength(10_000)));
const prerequisites = z.array(z.string().check(z.minLength(1))).check(z.maxLength(100));

export const listFeaturesV2 = defineEndpoint({
  operationId: 'listFeaturesV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/features',
  summary: 'Get all features',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    projectId: z.optional(z.string().check(z.maxLength(256))),
    clientKey: z.optional(z.string().check(z.maxLength(256))),
    archived: z.optional(queryBoolean),
    skipPagination: z.optional(queryBoolean),
  }),
  response: z.extend(z.object({ features: z.array(featureV2) }), paginationFields.shape),
});

export const postFeatureV2 = defineEndpoint({
  operationId: 'postFeatureV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features',
  summary: 'Create a single feature',
  tag: 'features',
  permission: 'manageFeatures',
  projectScoped: true,
  body: z.strictObject({
    id: featureKey,
    archived: z.optional(z.boolean()),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    owner: z.optional(owner),
    project: z.optional(z.string().check(z.maxLength(256))),
    ...targeting,
    valueType: z.enum(valueTypes),
    defaultValue: z.string().check(z.maxLength(100_000)),
    baseConfig: noConfig,
    defaultValueConfig: noConfig,
    tags: z.optional(stringList),
    rules: z.optional(rulesV2),
    environments: z.optional(environmentStates),
    prerequisites: z.optional(prerequisites),
    jsonSchema: z.optional(z.string().check(z.maxLength(100_000))),
    customFields: z.optional(customFields),
    ...skipFlags,
  }),
  response: featureResponse,
});

export const getFeatureV2 = defineEndpoint({
  operationId: 'getFeatureV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/features/{id}',
  summary: 'Get a single feature',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  query: z.object({ withRevisions: z.optional(z.enum(['all', 'drafts', 'published', 'none'])) }),
  response: z.object({ feature: z.extend(featureV2, { revisions: z.optional(z.array(featureRevisionV2)) }) }),
});

export const updateFeatureV2 = defineEndpoint({
  operationId: 'updateFeatureV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}',
  summary: 'Partially update a feature and publish the change',
  tag: 'features',
  permission: 'manageFeatures',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    description: z.optional(z.string().check(z.maxLength(10_000))),
    archived: z.optional(z.boolean()),
    project: z.optional(z.string().check(z.maxLength(256))),
    ...targeting,
    owner: z.optional(owner),
    defaultValue: z.optional(z.string().check(z.maxLength(100_000))),
    baseConfig: noConfig,
    defaultValueConfig: noConfig,
    tags: z.optional(stringList),
    rules: z.optional(rulesV2),
    environments: z.optional(environmentStates),
    prerequisites: z.optional(prerequisites),
    jsonSchema: z.optional(z.string().check(z.maxLength(100_000))),
    customFields: z.optional(customFields),
    holdout: z.optional(
      z.nullable(z.strictObject({ id: z.string().check(z.minLength(1), z.maxLength(256)), value: z.string().check(z.maxLength(100_000)) })),
    ),
    ...skipFlags,
  }),
  response: changedFeatureResponse,
});

export const deleteFeatureV2 = defineEndpoint({
  operationId: 'deleteFeatureV2',
  method: 'DELETE',
  basePath: '/api/v2',
  path: '/features/{id}',
  summary: 'Deletes a single feature',
  tag: 'features',
  permission: 'manageFeatures',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const toggleFeatureV2 = defineEndpoint({
  operationId: 'toggleFeatureV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/toggle',
  summary: 'Toggle a feature in one or more environments',
  tag: 'features',
  permission: 'publishFeatures',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    reason: z.optional(z.string().check(z.maxLength(10_000))),
    environments: z.record(z.string(), z.union([z.boolean(), z.literal(1), z.literal(0), z.enum(['true', 'false', '1', '0', ''])])),
  }),
  response: changedFeatureResponse,
});

export const revertFeatureV2 = defineEndpoint({
  operationId: 'revertFeatureV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revert',
  summary: 'Revert a feature to a specific revision',
  tag: 'features',
  permission: 'publishFeatures',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    revision: z.number().check(z.int(), z.gte(1)),
    comment: z.optional(z.string().check(z.maxLength(10_000))),
    ...skipFlags,
  }),
  response: changedFeatureResponse,
});

export const getFeatureKeysV2 = defineEndpoint({
  operationId: 'getFeatureKeysV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/feature-keys',
  summary: 'Get list of feature keys',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  query: z.object({ projectId: z.optional(z.string().check(z.maxLength(256))) }),
  response: z.array(z.string()),
});

/** GrowthBook's reasons a feature is, or is not, stale. */
export const staleReasons = [
  'never-stale',
  'recently-updated',
  'active-draft',
  'has-dependents',
  'no-rules',
  'rules-one-sided',
  'abandoned-draft',
  'toggled-off',
  'active-experiment',
  'has-rules',
] as const;
export type StaleReason = (typeof staleReasons)[number];

export const getFeatureStaleV2 = defineEndpoint({
  operationId: 'getFeatureStaleV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/stale-features',
  summary: 'Get stale status for one or more features',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  // `ids=a,b` (or `ids=a&ids=b`, which arrives joined); at most 100. Required, checked by the use case, so
  // that a misspelt parameter is named first.
  query: z.strictObject({
    ids: z.optional(z.pipe(
      z.string().check(z.maxLength(100_000)),
      z.transform((text, ctx) => {
        const ids = [...new Set(text.split(',').map((id) => id.trim()).filter(Boolean))];
        if (ids.length > 100) ctx.issues.push({ code: 'custom', input: text, message: `names ${ids.length} features; at most 100 at a time` });
        return ids;
      }),
    )),
  }),
  response: z.object({
    features: z.record(
      z.string(),
      z.object({
        featureId: z.string(),
        isStale: z.boolean(),
        staleReason: z.nullable(z.enum(staleReasons)),
        neverStale: z.boolean(),
        staleByEnv: z.optional(
          z.record(z.string(), z.object({ isStale: z.boolean(), reason: z.nullable(z.enum(staleReasons)), evaluatesTo: z.optional(z.string()) })),
        ),
      }),
    ),
  }),
});

/** The query of a list of revisions across features (v1 `listRevisions`, v2 `listRevisionsV2`). */
export const revisionListQuery = z.extend(paginationQuery, {
  skipPagination: z.optional(queryBoolean),
  featureId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  status: z.optional(statusList),
  author: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  mine: z.optional(queryBoolean),
});

export const listRevisionsV2 = defineEndpoint({
  operationId: 'listRevisionsV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/feature-revisions',
  summary: 'List revisions across all features',
  tag: 'feature-revisions',
  permission: 'read',
  projectScoped: true,
  query: z.extend(revisionListQuery, { archived: z.optional(queryBoolean) }),
  response: z.extend(paginationFields, { revisions: z.array(featureRevisionV2) }),
});

export const featureV2Endpoints = [
  listRevisionsV2,
  listFeaturesV2,
  postFeatureV2,
  getFeatureV2,
  updateFeatureV2,
  deleteFeatureV2,
  toggleFeatureV2,
  revertFeatureV2,
  getFeatureKeysV2,
  getFeatureStaleV2,
];
