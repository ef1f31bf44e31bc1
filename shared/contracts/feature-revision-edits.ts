import * as z from './zod';
import { defineEndpoint } from './spec';
import { dateInput } from './common';
import { featureRevisionV2 } from './feature-revisions';

/**
 * The draft edits of GrowthBook 5's `/api/v2` feature revisions that build on the draft engine of
 * `feature-revisions.ts`: rules added and patched in the flat v2 shape, metadata, holdout, a draft's
 * diff, rebase preview, and the ramp schedules a draft attaches to its rules (pending until publish).
 */

const id = z.string().check(z.minLength(1), z.maxLength(256));
const comment = z.optional(z.string().check(z.maxLength(10_000)));
const ignoreWarnings = z.optional(z.boolean());
/** GrowthBook accepts these on every draft edit; Switchyard has no custom hooks or schema bypass, so they change nothing. */
const publishFlags = { skipSchemaValidation: z.optional(z.boolean()), skipHooks: z.optional(z.boolean()) };
const draftEdit = { revisionTitle: z.optional(z.string().check(z.maxLength(1000))), revisionComment: comment, ignoreWarnings };

const revisionParams = z.object({
  id,
  version: z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,8}$/, 'must be a revision number')), z.transform(Number)),
});
const revisionOrNewParams = z.object({
  id,
  version: z.pipe(
    z.string().check(z.regex(/^([1-9][0-9]{0,8}|new)$/, 'must be a revision number or "new"')),
    z.transform((value): number | 'new' => (value === 'new' ? 'new' : Number(value))),
  ),
});
const ruleParams = z.extend(revisionOrNewParams, { ruleId: id });

// ---- Pending ramp schedules, in GrowthBook 5's inline shape ----

const rulePatchV2 = z.strictObject({
  ruleId: z.optional(id),
  coverage: z.optional(z.nullable(z.number().check(z.gte(0), z.lte(1)))),
  condition: z.optional(z.nullable(z.string().check(z.maxLength(100_000)))),
  savedGroups: z.optional(
    z.nullable(z.array(z.strictObject({ match: z.enum(['all', 'none', 'any']), ids: z.array(id).check(z.maxLength(100)) })).check(z.maxLength(100))),
  ),
  prerequisites: z.optional(z.nullable(z.array(z.strictObject({ id, condition: z.string().check(z.maxLength(100_000)) })).check(z.maxLength(100)))),
  allEnvironments: z.optional(z.nullable(z.boolean())),
  environments: z.optional(z.nullable(z.array(id).check(z.maxLength(100)))),
  force: z.optional(z.unknown()),
  enabled: z.optional(z.nullable(z.boolean())),
});
const rampActionV2 = z.strictObject({ targetType: z.optional(z.literal('feature-rule')), targetId: z.optional(id), patch: rulePatchV2 });
/** Ten years, as the ramp-schedule endpoints bound an interval. */
const MAX_INTERVAL_SECONDS = 10 * 365 * 24 * 3600;
const rampStepV2 = z.strictObject({
  interval: z.nullable(z.number().check(z.positive(), z.lte(MAX_INTERVAL_SECONDS))),
  actions: z.optional(z.array(rampActionV2).check(z.maxLength(100))),
  approvalNotes: z.optional(z.nullable(z.string().check(z.maxLength(10_000)))),
  monitored: z.optional(z.boolean()),
  holdConditions: z.optional(z.strictObject({ minSampleSize: z.optional(z.int().check(z.positive())), requiresApproval: z.optional(z.boolean()) })),
});

/** A ramp schedule as a draft rule takes it (GrowthBook 5's inline ramp schedule). */
export const inlineRampSchedule = z.strictObject({
  name: z.optional(z.string().check(z.maxLength(256))),
  templateId: z.optional(id),
  startActions: z.optional(z.array(rampActionV2).check(z.maxLength(100))),
  steps: z.optional(z.array(rampStepV2).check(z.maxLength(100))),
  endActions: z.optional(z.array(rampActionV2).check(z.maxLength(100))),
  startDate: z.optional(z.nullable(dateInput)),
  cutoffDate: z.optional(z.nullable(dateInput)),
  monitoringConfig: z.optional(z.record(z.string(), z.unknown())),
  lockdownConfig: z.optional(z.strictObject({ mode: z.enum(['none', 'locked']) })),
  requiresStartApproval: z.optional(z.nullable(z.boolean())),
});
export type InlineRampSchedule = z.infer<typeof inlineRampSchedule>;

/** A simple start/end window (GrowthBook's `schedule`). */
const ruleSchedule = z.strictObject({ startDate: z.optional(z.nullable(dateInput)), endDate: z.optional(z.nullable(dateInput)) });
export type RuleSchedule = z.infer<typeof ruleSchedule>;

/** A ramp a draft attaches to one of its rules, created (and started) when the draft is published. */
export type PendingRamp = InlineRampSchedule & {
  mode: 'create';
  ruleId: string;
  environment?: string | null;
};

// ---- Rules in the flat v2 shape ----

const condition = z.string().check(z.maxLength(100_000));
const savedGroups = z.array(z.strictObject({ match: z.enum(['all', 'none', 'any']), ids: z.array(z.string().check(z.maxLength(256))).check(z.maxLength(100)) })).check(z.maxLength(100));
const prerequisites = z.array(z.strictObject({ id: z.string().check(z.maxLength(256)), condition })).check(z.maxLength(100));
const ruleCommon = {
  description: z.optional(z.string().check(z.maxLength(10_000))),
  enabled: z.optional(z.boolean()),
  condition: z.optional(condition),
  savedGroups: z.optional(savedGroups),
  prerequisites: z.optional(prerequisites),
  allEnvironments: z.optional(z.boolean()),
  environments: z.optional(z.array(id).check(z.maxLength(100))),
};
const config = z.optional(z.nullable(z.string().check(z.maxLength(256))));
const hashVersion = z.optional(z.union([z.literal(1), z.literal(2)]));

/** GrowthBook's `Targeting Rule`: force, or rollout (a force rule with coverage below 1 is one too). */
const targetingRule = z.strictObject({
  ...ruleCommon,
  type: z.optional(z.enum(['force', 'rollout'])),
  value: z.string().check(z.maxLength(100_000)),
  config,
  sparse: z.optional(z.boolean()),
  coverage: z.optional(z.number().check(z.gte(0), z.lte(1))),
  hashAttribute: z.optional(z.string().check(z.maxLength(256))),
  seed: z.optional(z.string().check(z.maxLength(256))),
  hashVersion,
});
/** GrowthBook's `Experiment Rule` (experiment-ref); variation ids may all be left out (taken from the experiment in order). */
const experimentRule = z.strictObject({
  ...ruleCommon,
  type: z.literal('experiment-ref'),
  experimentId: id,
  variations: z.array(z.strictObject({ variationId: z.optional(z.string().check(z.maxLength(256))), value: z.string().check(z.maxLength(100_000)), config })).check(z.minLength(1), z.maxLength(100)),
  sparse: z.optional(z.boolean()),
});
/** GrowthBook's `Safe Rollout Rule`: accepted in shape, refused (400) by the use case: Switchyard has no safe rollouts. */
const safeRolloutRule = z.strictObject({
  ...ruleCommon,
  type: z.literal('safe-rollout'),
  controlValue: z.string().check(z.maxLength(100_000)),
  variationValue: z.string().check(z.maxLength(100_000)),
  hashAttribute: z.string().check(z.maxLength(256)),
  trackingKey: z.optional(z.string().check(z.maxLength(256))),
  seed: z.optional(z.string().check(z.maxLength(256))),
  safeRolloutFields: z.record(z.string(), z.unknown()),
});
/** A rule `POST .../rules` adds, by type (`type` absent: a targeting rule, force or rollout). */
export const ruleCreateV2 = z.discriminatedUnion('type', [targetingRule, experimentRule, safeRolloutRule]);
export type RuleCreateV2 = z.infer<typeof ruleCreateV2>;

/** The patch of `PUT .../rules/{ruleId}`: any field of any rule type; `type` may only repeat the rule's own. */
export const rulePatch = z.strictObject({
  ...ruleCommon,
  type: z.optional(z.enum(['force', 'rollout', 'experiment-ref', 'safe-rollout'])),
  value: z.optional(z.string().check(z.maxLength(100_000))),
  config,
  sparse: z.optional(z.boolean()),
  coverage: z.optional(z.number().check(z.gte(0), z.lte(1))),
  hashAttribute: z.optional(z.string().check(z.maxLength(256))),
  seed: z.optional(z.string().check(z.maxLength(256))),
  hashVersion,
  experimentId: z.optional(id),
  variations: z.optional(
    z.array(z.strictObject({ variationId: z.string().check(z.maxLength(256)), value: z.string().check(z.maxLength(100_000)), config })).check(z.minLength(1), z.maxLength(100)),
  ),
  controlValue: z.optional(z.string().check(z.maxLength(100_000))),
  variationValue: z.optional(z.string().check(z.maxLength(100_000))),
});
export type RulePatchV2 = z.infer<typeof rulePatch>;

// ---- Responses ----

const revisionResponse = z.object({ revision: featureRevisionV2 });

const conflict = z.object({ name: z.string(), key: z.string(), resolved: z.boolean(), base: z.string(), live: z.string(), revision: z.string() });
const holdout = z.object({ id: z.string(), value: z.string() });
/** What a merge changes in the live version (GrowthBook's merge `result`). */
export const mergeResult = z.object({
  defaultValue: z.optional(z.string()),
  rules: z.optional(z.array(z.record(z.string(), z.unknown()))),
  environmentsEnabled: z.optional(z.record(z.string(), z.boolean())),
  prerequisites: z.optional(z.array(z.object({ id: z.string(), condition: z.string() }))),
  archived: z.optional(z.boolean()),
  metadata: z.optional(z.record(z.string(), z.unknown())),
  holdout: z.optional(z.nullable(holdout)),
});

const diffEnvelope = { name: z.string(), type: z.literal('feature'), from: z.int(), to: z.int() };
const diffChange = z.looseObject({ field: z.string(), change: z.enum(['added', 'removed', 'modified']) });

// ---- Endpoints ----

const common = { basePath: '/api/v2', tag: 'feature-revisions' } as const;

export const postFeatureRevisionRuleAddV2 = defineEndpoint({
  ...common,
  operationId: 'postFeatureRevisionRuleAddV2',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/rules',
  summary: 'Add a rule to a draft revision',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ rule: ruleCreateV2, rampSchedule: z.optional(inlineRampSchedule), schedule: z.optional(ruleSchedule), ...draftEdit, ...publishFlags }),
  response: revisionResponse,
});

export const putFeatureRevisionRuleV2 = defineEndpoint({
  ...common,
  operationId: 'putFeatureRevisionRuleV2',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}',
  summary: 'Update a rule in a draft revision',
  permission: 'manageFeatures',
  projectScoped: true,
  params: ruleParams,
  body: z.strictObject({ rule: rulePatch, rampSchedule: z.optional(inlineRampSchedule), schedule: z.optional(ruleSchedule), ...draftEdit, ...publishFlags }),
  response: revisionResponse,
});

export const putFeatureRevisionMetadataV2 = defineEndpoint({
  ...common,
  operationId: 'putFeatureRevisionMetadataV2',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/metadata',
  summary: 'Update revision metadata',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({
    comment,
    title: z.optional(z.string().check(z.maxLength(1000))),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    owner: z.optional(z.string().check(z.maxLength(256))),
    project: z.optional(z.string().check(z.maxLength(256))),
    tags: z.optional(z.array(z.string().check(z.maxLength(1024))).check(z.maxLength(1000))),
    // In GrowthBook's shape, refused by the use case: Switchyard's features have no such fields in revisions.
    neverStale: z.optional(z.boolean()),
    customFields: z.optional(z.record(z.string(), z.unknown())),
    jsonSchema: z.optional(z.record(z.string(), z.unknown())),
    ignoreWarnings,
  }),
  response: revisionResponse,
});

export const putFeatureRevisionHoldoutV2 = defineEndpoint({
  ...common,
  operationId: 'putFeatureRevisionHoldoutV2',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/holdout',
  summary: 'Set holdout in a draft revision',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ holdout: z.nullable(z.strictObject({ id, value: z.string().check(z.maxLength(100_000)) })), ...draftEdit }),
  response: revisionResponse,
});

export const getFeatureRevisionDiffV2 = defineEndpoint({
  ...common,
  operationId: 'getFeatureRevisionDiffV2',
  method: 'GET',
  path: '/features/{id}/revisions/{version}/diff',
  summary: 'Diff a revision against another revision',
  permission: 'read',
  params: revisionParams,
  query: z.object({
    format: z.optional(z.enum(['minimal', 'full'])),
    base: z.optional(
      z.pipe(
        z.string().check(z.regex(/^(baseVersion|live|[1-9][0-9]{0,8})$/, 'must be baseVersion, live or a revision number')),
        z.transform((value): number | 'baseVersion' | 'live' => (value === 'baseVersion' || value === 'live' ? value : Number(value))),
      ),
    ),
  }),
  response: z.object({
    diff: z.union([
      z.object({ ...diffEnvelope, changes: z.array(diffChange) }),
      z.object({ ...diffEnvelope, before: z.record(z.string(), z.unknown()), after: z.record(z.string(), z.unknown()) }),
    ]),
  }),
});

export const postFeatureRevisionRebasePreviewV2 = defineEndpoint({
  ...common,
  operationId: 'postFeatureRevisionRebasePreviewV2',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/rebase/preview',
  summary: 'Preview a rebase without applying it',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({
    conflictResolutions: z.optional(z.record(z.string().check(z.maxLength(512)), z.enum(['overwrite', 'discard']))),
    expectedLiveVersion: z.optional(z.int()),
    expectedDraftDateUpdated: z.optional(z.string().check(z.maxLength(64))),
    ignoreWarnings,
  }),
  response: z.object({
    success: z.boolean(),
    liveVersion: z.number(),
    draftDateUpdated: z.string(),
    conflicts: z.array(conflict),
    result: z.optional(mergeResult),
  }),
});

export const putFeatureRevisionRuleRampScheduleV2 = defineEndpoint({
  ...common,
  operationId: 'putFeatureRevisionRuleRampScheduleV2',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}/ramp-schedule',
  summary: 'Set ramp schedule for a rule',
  permission: 'manageFeatures',
  projectScoped: true,
  params: ruleParams,
  body: z.extend(inlineRampSchedule, {
    environment: z.optional(id),
    startState: z.optional(z.record(z.string(), z.unknown())),
    ...draftEdit,
  }),
  response: z.object({ revision: featureRevisionV2, warnings: z.optional(z.array(z.string())) }),
});

export const deleteFeatureRevisionRuleRampScheduleV2 = defineEndpoint({
  ...common,
  operationId: 'deleteFeatureRevisionRuleRampScheduleV2',
  method: 'DELETE',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}/ramp-schedule',
  summary: 'Remove ramp schedule from a rule',
  permission: 'manageFeatures',
  projectScoped: true,
  params: ruleParams,
  body: z.optional(z.strictObject(draftEdit)),
  response: revisionResponse,
});

export const featureRevisionEditEndpoints = [
  postFeatureRevisionRuleAddV2,
  putFeatureRevisionRuleV2,
  putFeatureRevisionMetadataV2,
  putFeatureRevisionHoldoutV2,
  getFeatureRevisionDiffV2,
  postFeatureRevisionRebasePreviewV2,
  putFeatureRevisionRuleRampScheduleV2,
  deleteFeatureRevisionRuleRampScheduleV2,
];
