import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, paginationFields, paginationQuery, queryBoolean, stringList } from './common';

export const valueTypes = ['boolean', 'string', 'number', 'json'] as const;
export type ValueType = (typeof valueTypes)[number];

const scheduleRule = z.object({ enabled: z.boolean(), timestamp: z.string().nullable() });
const savedGroupTargeting = z.object({ matchType: z.enum(['all', 'any', 'none']), savedGroups: z.array(z.string()) });
const rulePrerequisite = z.object({ id: z.string(), condition: z.string() });
const namespace = z.object({ enabled: z.boolean(), name: z.string(), range: z.tuple([z.number(), z.number()]) });
const experimentValue = z.object({ value: z.string(), weight: z.number(), name: z.string().optional() });
const refVariation = z.object({ value: z.string(), variationId: z.string() });

/** Fields every stored rule carries, whatever its type. */
const ruleCommon = {
  description: z.string(),
  condition: z.string().optional(),
  id: z.string(),
  enabled: z.boolean(),
  scheduleRules: z.array(scheduleRule).optional(),
  scheduleType: z.enum(['none', 'schedule', 'ramp']).optional(),
  savedGroupTargeting: z.array(savedGroupTargeting).optional(),
  prerequisites: z.array(rulePrerequisite).optional(),
};

export const forceRule = z.object({ ...ruleCommon, type: z.literal('force'), value: z.string() });
export const rolloutRule = z.object({
  ...ruleCommon,
  type: z.literal('rollout'),
  value: z.string(),
  coverage: z.number(),
  hashAttribute: z.string(),
  seed: z.string().optional(),
  hashVersion: z.number().optional(),
});
export const experimentRule = z.object({
  ...ruleCommon,
  type: z.literal('experiment'),
  trackingKey: z.string().optional(),
  hashAttribute: z.string().optional(),
  fallbackAttribute: z.string().optional(),
  disableStickyBucketing: z.boolean().optional(),
  bucketVersion: z.number().optional(),
  minBucketVersion: z.number().optional(),
  namespace: namespace.optional(),
  coverage: z.number().optional(),
  // The reference document names the variations `value` in responses (and `values` in requests).
  value: z.array(experimentValue).optional(),
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
  definition: z.string().optional(),
});
export type FeatureEnvironment = z.infer<typeof featureEnvironment>;

export const featureRevision = z.object({
  version: z.number().int(),
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
  ownerEmail: z.string().optional(),
  project: z.string(),
  valueType: z.enum(valueTypes),
  defaultValue: z.string(),
  tags: z.array(z.string()),
  environments: z.record(z.string(), featureEnvironment),
  prerequisites: z.array(z.string()).optional(),
  revision: featureRevision,
  customFields: z.record(z.string(), z.unknown()).optional(),
  holdout: holdout.nullable().optional(),
});
export type Feature = z.infer<typeof feature>;

/** A published revision as `withRevisions` lists it. */
export const featureRevisionRecord = z.object({
  featureId: z.string(),
  baseVersion: z.number().int(),
  version: z.number().int(),
  comment: z.string(),
  date: z.string(),
  status: z.string(),
  createdBy: z.string().optional(),
  publishedBy: z.string().optional(),
  defaultValue: z.string().optional(),
  rules: z.record(z.string(), z.array(featureRule)),
});
export type FeatureRevisionRecord = z.infer<typeof featureRevisionRecord>;

/**
 * A revision as `withRevisions` answers it, GrowthBook's `FeatureRevision`: `rules` and `definitions`
 * (the SDK definition the revision would serve, as a JSON string) for every environment.
 */
export const featureRevisionView = featureRevisionRecord.extend({ definitions: z.record(z.string(), z.string()) });
export type FeatureRevisionView = z.infer<typeof featureRevisionView>;

// ---- request bodies ----

/** A JSON-encoded condition, or `""` for everyone. */
const conditionInput = z.string().max(100_000).refine(
  (text) => {
    if (text.trim() === '') return true;
    try {
      const parsed = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    } catch {
      return false;
    }
  },
  { message: 'must be "" or a JSON-encoded object, e.g. {"country": "US"}' },
);
const fraction = z.number().min(0).max(1);
const ruleInputCommon = {
  description: z.string().max(10_000).optional(),
  condition: conditionInput.optional(),
  id: z.string().min(1).max(256).optional(),
  enabled: z.boolean().optional(),
  scheduleRules: z.array(z.strictObject({ enabled: z.boolean(), timestamp: z.iso.datetime({ offset: true }).nullable() })).max(100).optional(),
  scheduleType: z.enum(['none', 'schedule', 'ramp']).optional(),
  savedGroupTargeting: z
    .array(z.object({ matchType: z.enum(['all', 'any', 'none']), savedGroups: z.array(z.string().min(1)).min(1).max(100) }))
    .max(100)
    .optional(),
  prerequisites: z.array(z.object({ id: z.string().min(1), condition: conditionInput })).max(100).optional(),
};
const experimentValues = z
  .array(z.object({ value: z.string(), weight: fraction, name: z.string().max(256).optional() }))
  .min(1)
  .max(100)
  // GrowthBook checks nothing here, but an SDK given weights that do not add up to 1 (within 0.01)
  // silently splits traffic equally instead, so such weights are refused (see README, Compatibility).
  .refine((values) => Math.abs(values.reduce((sum, v) => sum + v.weight, 0) - 1) <= 0.01, {
    message: 'weights must add up to 1 (SDKs split traffic equally otherwise)',
  });

export const ruleInput = z.discriminatedUnion('type', [
  z.object({ ...ruleInputCommon, type: z.literal('force'), value: z.string() }),
  z.object({
    ...ruleInputCommon,
    type: z.literal('rollout'),
    value: z.string(),
    coverage: fraction,
    hashAttribute: z.string().min(1).max(256),
    seed: z.string().max(256).optional(),
    hashVersion: z.union([z.literal(1), z.literal(2)]).optional(),
  }),
  z.object({
    ...ruleInputCommon,
    type: z.literal('experiment'),
    trackingKey: z.string().min(1).max(256).optional(),
    hashAttribute: z.string().min(1).max(256).optional(),
    fallbackAttribute: z.string().max(256).optional(),
    disableStickyBucketing: z.boolean().optional(),
    // Whole numbers, stricter than GrowthBook: sticky bucketing keys assignments by version and blocks
    // the versions 0 to minBucketVersion - 1 counted in whole steps, so another number escapes the block.
    bucketVersion: z.number().int().min(0).optional(),
    minBucketVersion: z.number().int().min(0).optional(),
    namespace: z
      .object({ enabled: z.boolean(), name: z.string(), range: z.tuple([fraction, fraction]) })
      .refine((ns) => ns.range[0] <= ns.range[1], { message: 'range must be [start, end] with start <= end' })
      .optional(),
    coverage: fraction.optional(),
    values: experimentValues.optional(),
    value: experimentValues.optional(),
  }),
  z.object({
    ...ruleInputCommon,
    type: z.literal('experiment-ref'),
    experimentId: z.string().min(1),
    variations: z.array(z.object({ value: z.string(), variationId: z.string().min(1) })).min(1).max(100),
  }),
]);
export type RuleInput = z.infer<typeof ruleInput>;

// Environments and rules are plain objects, as in GrowthBook: unknown keys are dropped, so an
// environment read from GET (with its derived `defaultValue` and `definition`) can be sent back as is.
export const environmentInput = z.object({
  enabled: z.boolean().optional(),
  rules: z.array(ruleInput).max(500).optional(),
  // Drafts are not kept here; dropping one silently would lose the change a script meant to stage.
  draft: z.never({ error: 'drafts are not kept here: send the rules to publish them' }).optional(),
});
export type EnvironmentInput = z.infer<typeof environmentInput>;

/** Feature keys: letters, digits and `_ . : | -` (no `#`, which the key layout reserves). */
export const featureKey = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[a-zA-Z0-9_.:|-]+$/, 'may contain only letters, numbers, hyphens, underscores, dots, colons and pipes');

const owner = z.string().max(256);
const customFields = z.record(z.string(), z.string().max(10_000));
const jsonSchemaInput = z.string().max(100_000);

const featureResponse = z.object({ feature });

export const listFeatures = defineEndpoint({
  operationId: 'listFeatures',
  method: 'GET',
  path: '/features',
  summary: 'List features',
  tag: 'features',
  permission: 'read',
  query: paginationQuery.extend({
    projectId: z.string().max(256).optional(),
    clientKey: z.string().max(256).optional(),
    skipPagination: queryBoolean.optional(),
  }),
  response: z.object({ features: z.array(feature) }).extend(paginationFields.shape),
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
    archived: z.boolean().optional(),
    description: z.string().max(10_000).optional(),
    owner: owner.optional(),
    project: z.string().max(256).optional(),
    valueType: z.enum(valueTypes),
    defaultValue: z.string().max(100_000),
    tags: stringList.optional(),
    environments: z.record(z.string(), environmentInput).optional(),
    prerequisites: z.array(z.string().min(1)).max(100).optional(),
    jsonSchema: jsonSchemaInput.optional(),
    customFields: customFields.optional(),
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
  params: z.object({ id: z.string().min(1).max(256) }),
  query: z.object({ withRevisions: z.enum(['all', 'drafts', 'published', 'none']).optional() }),
  response: z.object({ feature: feature.extend({ revisions: z.array(featureRevisionView).optional() }) }),
});

export const updateFeature = defineEndpoint({
  operationId: 'updateFeature',
  method: 'POST',
  path: '/features/{id}',
  summary: 'Partially update a feature and publish the change',
  tag: 'features',
  permission: 'manageFeatures',
  projectScoped: true,
  params: z.object({ id: z.string().min(1).max(256) }),
  body: z.strictObject({
    description: z.string().max(10_000).optional(),
    archived: z.boolean().optional(),
    project: z.string().max(256).optional(),
    owner: owner.optional(),
    defaultValue: z.string().max(100_000).optional(),
    tags: stringList.optional(),
    environments: z.record(z.string(), environmentInput).optional(),
    prerequisites: z.array(z.string().min(1)).max(100).optional(),
    jsonSchema: jsonSchemaInput.optional(),
    customFields: customFields.optional(),
    holdout: z.strictObject({ id: z.string().min(1).max(256), value: z.string().max(100_000) }).nullable().optional(),
  }),
  response: featureResponse,
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
  params: z.object({ id: z.string().min(1).max(256) }),
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
  params: z.object({ id: z.string().min(1).max(256) }),
  body: z.strictObject({
    reason: z.string().max(10_000).optional(),
    environments: z.record(z.string(), toggleValue),
  }),
  response: featureResponse,
});

export const getFeatureKeys = defineEndpoint({
  operationId: 'getFeatureKeys',
  method: 'GET',
  path: '/feature-keys',
  summary: 'List the keys of all features',
  tag: 'features',
  permission: 'read',
  query: z.object({ projectId: z.string().max(256).optional() }),
  response: z.array(z.string()),
});

export const featureEndpoints = [listFeatures, postFeature, getFeature, updateFeature, deleteFeature, toggleFeature, getFeatureKeys];
