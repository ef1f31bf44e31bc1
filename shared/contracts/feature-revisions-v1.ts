import * as z from './zod';
import { defineEndpoint } from './spec';
import { bypassedGates, paginationFields, paginationQuery, queryBoolean } from './common';
import { revisionListQuery } from './features-v2';
import { getFeatureRevisionMergeStatusV2 } from './feature-revisions';
import {
  deleteFeatureRevisionRuleRampScheduleV2,
  postFeatureRevisionRuleAddV2,
  putFeatureRevisionHoldoutV2,
  putFeatureRevisionMetadataV2,
  putFeatureRevisionRuleRampScheduleV2,
  putFeatureRevisionRuleV2,
  ruleCreateV2,
  rulePatch,
} from './feature-revision-edits';
import { postFeatureRevisionSubmitReviewV2 } from './feature-reviews';

// GrowthBook 5's deprecated v1 revision routes (tag `feature-revisions-v1`): the v2 draft operations
// (feature-revisions.ts) answered in v1's `FeatureRevision` shape, rules per environment.

/** A revision as GrowthBook 5's v1 routes answer it (`FeatureRevisionV1`): rules per environment, authors as ids. */
export const featureRevisionV1 = z.object({
  id: z.string(),
  featureId: z.string(),
  baseVersion: z.int(),
  version: z.int(),
  comment: z.string(),
  date: z.string(),
  status: z.string(),
  createdBy: z.optional(z.string()),
  publishedBy: z.optional(z.string()),
  defaultValue: z.optional(z.string()),
  rules: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
  definitions: z.optional(z.record(z.string(), z.string())),
  environmentsEnabled: z.optional(z.record(z.string(), z.boolean())),
  prerequisites: z.optional(z.array(z.object({ id: z.string(), condition: z.string() }))),
  metadata: z.optional(z.object({ description: z.string(), owner: z.string(), project: z.string(), tags: z.array(z.string()) })),
});
export type FeatureRevisionV1 = z.infer<typeof featureRevisionV1>;

const revisionResponse = z.object({ revision: featureRevisionV1 });
/** A publish's answer: the revision, and the gates the caller's authority let it pass. */
const publishedRevisionResponse = z.object({ revision: featureRevisionV1, bypassedGates });
const tag = 'feature-revisions-v1';

const id = z.string().check(z.minLength(1), z.maxLength(256));
const featureParams = z.object({ id });
const revisionParams = z.object({
  id,
  version: z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,8}$/, 'must be a revision number')), z.transform(Number)),
});
/** As in v2, an edit may name the revision `new` to make the draft it edits. */
const revisionOrNewParams = z.object({
  id,
  version: z.pipe(
    z.string().check(z.regex(/^([1-9][0-9]{0,8}|new)$/, 'must be a revision number or "new"')),
    z.transform((value): number | 'new' => (value === 'new' ? 'new' : Number(value))),
  ),
});
const comment = z.optional(z.string().check(z.maxLength(10_000)));
const environment = z.string().check(z.minLength(1), z.maxLength(256));
/** The fields every draft edit takes: a title and comment for a draft made by `new`, and `ignoreWarnings`. */
const draftEdit = {
  revisionTitle: z.optional(z.string().check(z.maxLength(1000))),
  revisionComment: comment,
  ignoreWarnings: z.optional(z.boolean()),
};
/** Switchyard has no hooks and always checks values against the schema; GrowthBook's skip flags are taken and change nothing. */
const skips = { skipSchemaValidation: z.optional(z.boolean()), skipHooks: z.optional(z.boolean()) };

export const listRevisions = defineEndpoint({
  operationId: 'listRevisions',
  method: 'GET',
  path: '/revisions',
  summary: 'List feature revisions',
  tag,
  permission: 'read',
  projectScoped: true,
  query: revisionListQuery,
  response: z.extend(paginationFields, { revisions: z.array(featureRevisionV1) }),
});

export const getFeatureRevisions = defineEndpoint({
  operationId: 'getFeatureRevisions',
  method: 'GET',
  path: '/features/{id}/revisions',
  summary: 'List revisions for a feature',
  tag,
  permission: 'read',
  params: featureParams,
  query: z.extend(paginationQuery, {
    skipPagination: z.optional(queryBoolean),
    status: revisionListQuery.shape.status,
    author: revisionListQuery.shape.author,
  }),
  response: z.extend(paginationFields, { revisions: z.array(featureRevisionV1) }),
});

export const postFeatureRevision = defineEndpoint({
  operationId: 'postFeatureRevision',
  method: 'POST',
  path: '/features/{id}/revisions',
  summary: 'Create a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: featureParams,
  // Switchyard sets no draft limit, so there is nothing to override.
  query: z.object({ overrideDraftLimit: z.optional(queryBoolean) }),
  body: z.strictObject({ comment, title: z.optional(z.string().check(z.maxLength(1000))), ignoreWarnings: z.optional(z.boolean()) }),
  response: revisionResponse,
});

export const getFeatureRevisionLatest = defineEndpoint({
  operationId: 'getFeatureRevisionLatest',
  method: 'GET',
  path: '/features/{id}/revisions/latest',
  summary: 'Get the most recent active draft revision',
  tag,
  permission: 'read',
  params: featureParams,
  query: z.object({ mine: z.optional(queryBoolean) }),
  response: revisionResponse,
});

export const getFeatureRevision = defineEndpoint({
  operationId: 'getFeatureRevision',
  method: 'GET',
  path: '/features/{id}/revisions/{version}',
  summary: 'Get a single feature revision',
  tag,
  permission: 'read',
  params: revisionParams,
  response: revisionResponse,
});

export const putFeatureRevisionDefaultValue = defineEndpoint({
  operationId: 'putFeatureRevisionDefaultValue',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/default-value',
  summary: 'Set the default value in a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ defaultValue: z.string().check(z.maxLength(100_000)), ...draftEdit, ...skips }),
  response: revisionResponse,
});

export const putFeatureRevisionPrerequisites = defineEndpoint({
  operationId: 'putFeatureRevisionPrerequisites',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/prerequisites',
  summary: 'Set feature-level prerequisites in a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({
    prerequisites: z
      .array(
        z.strictObject({
          id,
          // Switchyard's feature-level prerequisites require the parent to be on (GrowthBook's default condition).
          condition: z.string().check(
            z.refine((text) => {
              try {
                return JSON.stringify(JSON.parse(text)) === '{"value":true}';
              } catch {
                return false;
              }
            }, 'must be {"value": true}: a feature-level prerequisite requires the parent feature to be on'),
          ),
        }),
      )
      .check(z.maxLength(100)),
    ...draftEdit,
  }),
  response: revisionResponse,
});

export const putFeatureRevisionArchive = defineEndpoint({
  operationId: 'putFeatureRevisionArchive',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/archive',
  summary: 'Set archived state in a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ archived: z.boolean(), ...draftEdit }),
  response: revisionResponse,
});

export const postFeatureRevisionToggle = defineEndpoint({
  operationId: 'postFeatureRevisionToggle',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/toggle',
  summary: 'Toggle an environment on/off in a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ environment, enabled: z.boolean(), ...draftEdit }),
  response: revisionResponse,
});

export const deleteFeatureRevisionRule = defineEndpoint({
  operationId: 'deleteFeatureRevisionRule',
  method: 'DELETE',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}',
  summary: 'Delete a rule from one environment of a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: z.extend(revisionOrNewParams, { ruleId: id }),
  body: z.strictObject({ environment, ...draftEdit }),
  response: revisionResponse,
});

export const postFeatureRevisionRulesReorder = defineEndpoint({
  operationId: 'postFeatureRevisionRulesReorder',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/rules/reorder',
  summary: 'Reorder the rules of one environment in a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ environment, ruleIds: z.array(z.string().check(z.maxLength(256))).check(z.maxLength(1000)), ...draftEdit }),
  response: revisionResponse,
});

export const getFeatureRevisionMergeStatus = defineEndpoint({
  operationId: 'getFeatureRevisionMergeStatus',
  method: 'GET',
  path: '/features/{id}/revisions/{version}/merge-status',
  summary: 'Get merge status for a draft revision',
  tag,
  permission: 'read',
  params: revisionParams,
  // GrowthBook's v1 route answers the same merge as v2 (its `result.rules` the flat list too).
  response: getFeatureRevisionMergeStatusV2.response,
});

export const postFeatureRevisionRebase = defineEndpoint({
  operationId: 'postFeatureRevisionRebase',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/rebase',
  summary: 'Rebase a draft revision onto the current live version',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({
    conflictResolutions: z.optional(z.record(z.string().check(z.maxLength(512)), z.enum(['overwrite', 'discard']))),
    ignoreWarnings: z.optional(z.boolean()),
  }),
  response: revisionResponse,
});

export const postFeatureRevisionPublish = defineEndpoint({
  operationId: 'postFeatureRevisionPublish',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/publish',
  summary: 'Publish a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({ comment, bypassApproval: z.optional(z.boolean()), ignoreWarnings: z.optional(z.boolean()), ...skips }),
  response: publishedRevisionResponse,
});

export const postFeatureRevisionDiscard = defineEndpoint({
  operationId: 'postFeatureRevisionDiscard',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/discard',
  summary: 'Discard a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({}),
  response: revisionResponse,
});

export const postFeatureRevisionRevert = defineEndpoint({
  operationId: 'postFeatureRevisionRevert',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/revert',
  summary: 'Revert the feature to a prior revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({
    strategy: z.optional(z.enum(['draft', 'publish'])),
    comment,
    title: z.optional(z.string().check(z.maxLength(1000))),
    ignoreWarnings: z.optional(z.boolean()),
    ...skips,
  }),
  response: publishedRevisionResponse,
});

export const putFeatureRevisionMetadata = defineEndpoint({
  operationId: 'putFeatureRevisionMetadata',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/metadata',
  summary: 'Update revision metadata',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  // v1's body is v2's.
  body: putFeatureRevisionMetadataV2.body,
  response: revisionResponse,
});

export const putFeatureRevisionHoldout = defineEndpoint({
  operationId: 'putFeatureRevisionHoldout',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/holdout',
  summary: 'Set holdout in a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: putFeatureRevisionHoldoutV2.body,
  response: revisionResponse,
});

/** v1 names the rule's environment beside the rule, so the rule itself names none. */
const noEnvironments = z.refine<{ environments?: unknown; allEnvironments?: unknown }>(
  (rule) => rule.environments === undefined && rule.allEnvironments === undefined,
  'names no environments in v1: the body\'s `environment` places the rule',
);
// The v2 specs below all declare a body (`!`: the spec type makes every body optional).
const { rule: _addedRule, ...ruleAddRest } = postFeatureRevisionRuleAddV2.body!.shape;
const { rule: _patchedRule, ...rulePutRest } = putFeatureRevisionRuleV2.body!.shape;

export const postFeatureRevisionRuleAdd = defineEndpoint({
  operationId: 'postFeatureRevisionRuleAdd',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/rules',
  summary: 'Add a rule to one environment of a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ ...ruleAddRest, environment, rule: ruleCreateV2.check(noEnvironments) }),
  response: revisionResponse,
});

export const putFeatureRevisionRule = defineEndpoint({
  operationId: 'putFeatureRevisionRule',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}',
  summary: 'Update a rule in one environment of a draft revision',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: z.extend(revisionOrNewParams, { ruleId: id }),
  body: z.strictObject({ ...rulePutRest, environment, rule: rulePatch.check(noEnvironments) }),
  response: revisionResponse,
});

const { startState: _startState, ...rampScheduleBody } = putFeatureRevisionRuleRampScheduleV2.body!.shape;

export const putFeatureRevisionRuleRampSchedule = defineEndpoint({
  operationId: 'putFeatureRevisionRuleRampSchedule',
  method: 'PUT',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}/ramp-schedule',
  summary: 'Set ramp schedule for a rule',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: z.extend(revisionOrNewParams, { ruleId: id }),
  // v2's body without `startState`, which v1 does not take.
  body: z.strictObject(rampScheduleBody),
  response: revisionResponse,
});

export const deleteFeatureRevisionRuleRampSchedule = defineEndpoint({
  operationId: 'deleteFeatureRevisionRuleRampSchedule',
  method: 'DELETE',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}/ramp-schedule',
  summary: 'Remove ramp schedule from a rule',
  tag,
  permission: 'manageFeatures',
  projectScoped: true,
  params: z.extend(revisionOrNewParams, { ruleId: id }),
  // GrowthBook documents `environment` as deprecated here: a rule has one ramp, whatever the environment.
  body: z.optional(z.strictObject({ environment: z.optional(environment), ...draftEdit })),
  response: revisionResponse,
});

export const postFeatureRevisionRequestReview = defineEndpoint({
  operationId: 'postFeatureRevisionRequestReview',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/request-review',
  summary: 'Request review for a draft revision',
  tag,
  // As v2: contributors can ask for the approval they cannot give.
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.optional(z.strictObject({ comment, autoPublishOnApproval: z.optional(z.boolean()) })),
  response: revisionResponse,
});

export const postFeatureRevisionSubmitReview = defineEndpoint({
  operationId: 'postFeatureRevisionSubmitReview',
  method: 'POST',
  path: '/features/{id}/revisions/{version}/submit-review',
  summary: 'Submit a review on a draft revision',
  tag,
  permission: 'reviewFeatures',
  projectScoped: true,
  params: revisionParams,
  body: postFeatureRevisionSubmitReviewV2.body,
  response: z.object({ revision: featureRevisionV1, autoPublished: z.optional(z.boolean()) }),
});

export const featureRevisionV1Endpoints = [
  listRevisions,
  getFeatureRevisions,
  getFeatureRevisionLatest,
  postFeatureRevision,
  getFeatureRevision,
  putFeatureRevisionDefaultValue,
  postFeatureRevisionToggle,
  putFeatureRevisionArchive,
  putFeatureRevisionPrerequisites,
  postFeatureRevisionRulesReorder,
  deleteFeatureRevisionRule,
  getFeatureRevisionMergeStatus,
  postFeatureRevisionRebase,
  postFeatureRevisionPublish,
  postFeatureRevisionDiscard,
  postFeatureRevisionRevert,
  putFeatureRevisionMetadata,
  putFeatureRevisionHoldout,
  postFeatureRevisionRuleAdd,
  putFeatureRevisionRule,
  putFeatureRevisionRuleRampSchedule,
  deleteFeatureRevisionRuleRampSchedule,
  postFeatureRevisionRequestReview,
  postFeatureRevisionSubmitReview,
];
