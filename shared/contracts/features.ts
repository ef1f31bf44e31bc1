import * as z from './zod';
import { defineEndpoint } from './spec';
import { safePatterns } from './condition-patterns';
import { bypassedGates, deletedResponse, idParams, paginationFields, paginationQuery, queryBoolean, stringList } from './common';

export const valueTypes = ['boolean', 'string', 'number', 'json'] as const;
export type ValueType = (typeof valueTypes)[number];

const scheduleRule = z.object({ enabled: z.boolean(), timestamp: z.nullable(z.string()) });
const savedGroupTargeting = z.object({ matchType: z.enum(['all', 'any', 'none']), savedGroups: z.array(z.string()) });
const rulePrerequisite = z.object({ id: z.string(), condition: z.string() });
const namespace = z.object({ enabled: z.boolean(), name: z.string(), range: z.tuple([z.number(), z.number()]) });
const experimentValue = z.object({ value: z.string(), weight: z.number(), name: z.optional(z.string()) });
const refVariation = z.object({ value: z.string(), variationId: z.string() });

/** Fields every stored rule carries, whatever its type. */
const ruleCommon = {
  description: z.string(),
  condition: z.optional(z.string()),
  id: z.string(),
  enabled: z.boolean(),
  scheduleRules: z.optional(z.array(scheduleRule)),
  scheduleType: z.optional(z.enum(['none', 'schedule', 'ramp'])),
  savedGroupTargeting: z.optional(z.array(savedGroupTargeting)),
  prerequisites: z.optional(z.array(rulePrerequisite)),
};

export const forceRule = z.object({ ...ruleCommon, type: z.literal('force'), value: z.string() });
export const rolloutRule = z.object({
  ...ruleCommon,
  type: z.literal('rollout'),
  value: z.string(),
  coverage: z.number(),
  hashAttribute: z.string(),
  seed: z.optional(z.string()),
  hashVersion: z.optional(z.number()),
});
export const experimentRule = z.object({
  ...ruleCommon,
  type: z.literal('experiment'),
  trackingKey: z.optional(z.string()),
  hashAttribute: z.optional(z.string()),
  fallbackAttribute: z.optional(z.string()),
  disableStickyBucketing: z.optional(z.boolean()),
  bucketVersion: z.optional(z.number()),
  minBucketVersion: z.optional(z.number()),
  namespace: z.optional(namespace),
  coverage: z.optional(z.number()),
  // The reference document names the variations `value` in responses (and `values` in requests).
  value: z.optional(z.array(experimentValue)),
});
export const experimentRefRule = z.object({
  ...ruleCommon,
  type: z.literal('experiment-ref'),
  variations: z.array(refVariation),
  experimentId: z.string(),
});
export const featureRule = z.discriminatedUnion('type', [forceRule, rolloutRule, experimentRule, experimentRefRule]);
export type FeatureRule = z.infer<typeof featureRule>;

export const featureEnvironment = z.object({
  enabled: z.boolean(),
  defaultValue: z.string(),
  rules: z.array(featureRule),
  definition: z.optional(z.string()),
});
export type FeatureEnvironment = z.infer<typeof featureEnvironment>;

export const featureRevision = z.object({
  version: z.int(),
  comment: z.string(),
  date: z.string(),
  createdBy: z.string(),
  publishedBy: z.string(),
});
export type FeatureRevision = z.infer<typeof featureRevision>;

const holdout = z.object({ id: z.string(), value: z.string() });

export const feature = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  archived: z.boolean(),
  description: z.string(),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  project: z.string(),
  valueType: z.enum(valueTypes),
  defaultValue: z.string(),
  tags: z.array(z.string()),
  environments: z.record(z.string(), featureEnvironment),
  prerequisites: z.optional(z.array(z.string())),
  revision: featureRevision,
  customFields: z.optional(z.record(z.string(), z.unknown())),
  holdout: z.optional(z.nullable(holdout)),
});
export type Feature = z.infer<typeof feature>;

/** A published revision as `withRevisions` lists it. */
export const featureRevisionRecord = z.object({
  featureId: z.string(),
  baseVersion: z.int(),
  version: z.int(),
  comment: z.string(),
  date: z.string(),
  status: z.string(),
  createdBy: z.optional(z.string()),
  publishedBy: z.optional(z.string()),
  defaultValue: z.optional(z.string()),
  rules: z.record(z.string(), z.array(featureRule)),
});
export type FeatureRevisionRecord = z.infer<typeof featureRevisionRecord>;

/**
 * A revision as `withRevisions` answers it, GrowthBook's `FeatureRevision`: `rules` and `definitions`
 * (the SDK definition the revision would serve, as a JSON string) for every environment.
 */
export const featureRevisionView = z.extend(featureRevisionRecord, { definitions: z.record(z.string(), z.string()) });
export type FeatureRevisionView = z.infer<typeof featureRevisionView>;

// ---- request bodies ----

/** A JSON-encoded condition, or `""` for everyone. */
const conditionInput = z.string().check(
  z.maxLength(100_000),
  z.refine(
    (text) => {
      if (text.trim() === '') return true;
      try {
        const parsed = JSON.parse(text);
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      } catch {
        return false;
      }
    },
    { message: 'must be "" or a JSON-encoded object, e.g. {"country": "US"}', abort: true },
  ),
  safePatterns,
);
const fraction = z.number().check(z.gte(0), z.lte(1));
const ruleInputCommon = {
  description: z.optional(z.string().check(z.maxLength(10_000))),
  condition: z.optional(conditionInput),
  id: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  enabled: z.optional(z.boolean()),
  scheduleRules: z.optional(
    z.array(z.strictObject({ enabled: z.boolean(), timestamp: z.nullable(z.iso.datetime({ offset: true })) })).check(z.maxLength(100)),
  ),
  scheduleType: z.optional(z.enum(['none', 'schedule', 'ramp'])),
  savedGroupTargeting: z.optional(
    z
      .array(
        z.object({
          matchType: z.enum(['all', 'any', 'none']),
          savedGroups: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(100)),
        }),
      )
      .check(z.maxLength(100)),
  ),
  prerequisites: z.optional(
    z.array(z.object({ id: z.string().check(z.minLength(1)), condition: conditionInput })).check(z.maxLength(100)),
  ),
};
const experimentValues = z.array(z.object({ value: z.string(), weight: fraction, name: z.optional(z.string().check(z.maxLength(256))) })).check(
  z.minLength(1),
  z.maxLength(100),
  // GrowthBook checks nothing here, but an SDK given weights that do not add up to 1 (within 0.01)
  // silently splits traffic equally instead, so such weights are refused (see README, Compatibility).
  z.refine((values) => Math.abs(values.reduce((sum, v) => sum + v.weight, 0) - 1) <= 0.01, {
    message: 'weights must add up to 1 (SDKs split traffic equally otherwise)',
  }),
);

export const ruleInput = z.discriminatedUnion('type', [
  z.object({ ...ruleInputCommon, type: z.literal('force'), value: z.string() }),
  z.object({
    ...ruleInputCommon,
    type: z.literal('rollout'),
    value: z.string(),
    coverage: fraction,
    hashAttribute: z.string().check(z.minLength(1), z.maxLength(256)),
    seed: z.optional(z.string().check(z.maxLength(256))),
    hashVersion: z.optional(z.union([z.literal(1), z.literal(2)])),
  }),
  z.object({
    ...ruleInputCommon,
    type: z.literal('experiment'),
    trackingKey: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    hashAttribute: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    fallbackAttribute: z.optional(z.string().check(z.maxLength(256))),
    disableStickyBucketing: z.optional(z.boolean()),
    // Whole numbers, stricter than GrowthBook: sticky bucketing keys assignments by version and blocks
    // the versions 0 to minBucketVersion - 1 counted in whole steps, so another number escapes the block.
    bucketVersion: z.optional(z.number().check(z.int(), z.gte(0))),
    minBucketVersion: z.optional(z.number().check(z.int(), z.gte(0))),
    namespace: z.optional(
      z
        .object({ enabled: z.boolean(), name: z.string(), range: z.tuple([fraction, fraction]) })
        .check(z.refine((ns) => ns.range[0] <= ns.range[1], { message: 'range must be [start, end] with start <= end' })),
    ),
    coverage: z.optional(fraction),
    values: z.optional(experimentValues),
    value: z.optional(experimentValues),
  }),
  z.object({
    ...ruleInputCommon,
    type: z.literal('experiment-ref'),
    experimentId: z.string().check(z.minLength(1)),
    variations: z
      .array(z.object({ value: z.string(), variationId: z.string().check(z.minLength(1)) }))
      .check(z.minLength(1), z.maxLength(100)),
  }),
]);
export type RuleInput = z.infer<typeof ruleInput>;

// Environments and rules are plain objects, as in GrowthBook: unknown keys are dropped, so an
// environment read from GET (with its derived `defaultValue` and `definition`) can be sent back as is.
export const environmentInput = z.object({
  enabled: z.optional(z.boolean()),
  rules: z.optional(z.array(ruleInput).check(z.maxLength(500))),
  // Drafts are not kept here; dropping one silently would lose the change a script meant to stage.
  draft: z.optional(z.never({ error: 'drafts are not kept here: send the rules to publish them' })),
});
export type EnvironmentInput = z.infer<typeof environmentInput>;

/** Feature keys: letters, digits and `_ . : | -` (no `#`, which the key layout reserves). */
export const featureKey = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(256),
    z.regex(/^[a-zA-Z0-9_.:|-]+$/, 'may contain only letters, numbers, hyphens, underscores, dots, colons and pipes'),
  );

const owner = z.string().check(z.maxLength(256));
const customFields = z.record(z.string(), z.string().check(z.maxLength(10_000)));
const jsonSchemaInput = z.string().check(z.maxLength(100_000));

const featureResponse = z.object({ feature });
/** A live change's answer: the feature, and the gates the caller's authority let the change pass. */
export const changedFeatureResponse = z.object({ feature, bypassedGates });

export const listFeatures = defineEndpoint({
  operationId: 'listFeatures',
  method: 'GET',
  path: '/features',
  summary: 'List features',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    projectId: z.optional(z.string().check(z.maxLength(256))),
    clientKey: z.optional(z.string().check(z.maxLength(256))),
    skipPagination: z.optional(queryBoolean),
  }),
  response: z.extend(z.object({ features: z.array(feature) }), paginationFields.shape),
});

export const postFeature = defineEndpoint({
  operationId: 'postFeature',
  method: 'POST',
  path: '/features',
  summary: 'Create a feature',
  tag: 'features',
  permission: 'manageFeatures',
  projectScoped: true,
  body: z.strictObject({
    id: featureKey,
    archived: z.optional(z.boolean()),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    owner: z.optional(owner),
    project: z.optional(z.string().check(z.maxLength(256))),
    valueType: z.enum(valueTypes),
    defaultValue: z.string().check(z.maxLength(100_000)),
    tags: z.optional(stringList),
    environments: z.optional(z.record(z.string(), environmentInput)),
    prerequisites: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(100))),
    jsonSchema: z.optional(jsonSchemaInput),
    customFields: z.optional(customFields),
  }),
  response: featureResponse,
});

export const getFeature = defineEndpoint({
  operationId: 'getFeature',
  method: 'GET',
  path: '/features/{id}',
  summary: 'Get a feature',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  query: z.object({ withRevisions: z.optional(z.enum(['all', 'drafts', 'published', 'none'])) }),
  response: z.object({ feature: z.extend(feature, { revisions: z.optional(z.array(featureRevisionView)) }) }),
});

export const updateFeature = defineEndpoint({
  operationId: 'updateFeature',
  method: 'POST',
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
    owner: z.optional(owner),
    defaultValue: z.optional(z.string().check(z.maxLength(100_000))),
    tags: z.optional(stringList),
    environments: z.optional(z.record(z.string(), environmentInput)),
    prerequisites: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(100))),
    jsonSchema: z.optional(jsonSchemaInput),
    customFields: z.optional(customFields),
    holdout: z.optional(
      z.nullable(z.strictObject({ id: z.string().check(z.minLength(1), z.maxLength(256)), value: z.string().check(z.maxLength(100_000)) })),
    ),
  }),
  response: changedFeatureResponse,
});
export type FeatureUpdate = z.infer<NonNullable<typeof updateFeature.body>>;

export const deleteFeature = defineEndpoint({
  operationId: 'deleteFeature',
  method: 'DELETE',
  path: '/features/{id}',
  summary: 'Delete a feature',
  tag: 'features',
  permission: 'manageFeatures',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

const toggleValue = z.union([
  z.boolean(),
  z.literal(1),
  z.literal(0),
  z.enum(['true', 'false', '1', '0', '']),
]);

export const toggleFeature = defineEndpoint({
  operationId: 'toggleFeature',
  method: 'POST',
  path: '/features/{id}/toggle',
  summary: 'Turn a feature on or off in one or more environments',
  tag: 'features',
  permission: 'publishFeatures',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    reason: z.optional(z.string().check(z.maxLength(10_000))),
    environments: z.record(z.string(), toggleValue),
  }),
  response: changedFeatureResponse,
});

export const getFeatureKeys = defineEndpoint({
  operationId: 'getFeatureKeys',
  method: 'GET',
  path: '/feature-keys',
  summary: 'List the keys of all features',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  query: z.object({ projectId: z.optional(z.string().check(z.maxLength(256))) }),
  response: z.array(z.string()),
});

export const featureEndpoints = [listFeatures, postFeature, getFeature, updateFeature, deleteFeature, toggleFeature, getFeatureKeys];
