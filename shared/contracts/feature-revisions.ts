import * as z from './zod';
import { defineEndpoint } from './spec';
import { bypassedGates, paginationFields, paginationQuery, queryBoolean } from './common';

/** GrowthBook's revision statuses. */
export const revisionStatuses = ['draft', 'pending-review', 'approved', 'changes-requested', 'published', 'discarded'] as const;
export type RevisionStatus = (typeof revisionStatuses)[number];

/** GrowthBook's `EventUser`: who did something (a member, an API key). */
export const eventUser = z.object({ type: z.enum(['dashboard', 'api_key', 'system']), id: z.optional(z.string()) });

/**
 * A revision as GrowthBook 5's v2 API answers it (`FeatureRevisionV2`). Rules are one flat list, each
 * rule with its environments (`allEnvironments` / `environments`); the reference document's schema is
 * checked in the tests, so rules are passed through here as they are built.
 */
export const featureRevisionV2 = z.object({
  id: z.string(),
  featureId: z.string(),
  baseVersion: z.int(),
  version: z.int(),
  comment: z.string(),
  date: z.string(),
  status: z.string(),
  createdBy: z.optional(eventUser),
  publishedBy: z.optional(eventUser),
  defaultValue: z.optional(z.string()),
  rules: z.array(z.record(z.string(), z.unknown())),
  definitions: z.optional(z.record(z.string(), z.string())),
  environmentsEnabled: z.optional(z.record(z.string(), z.boolean())),
  prerequisites: z.optional(z.array(z.object({ id: z.string() }))),
  metadata: z.optional(
    z.object({ description: z.string(), owner: z.string(), project: z.string(), tags: z.array(z.string()) }),
  ),
  reviews: z.optional(
    z.array(
      z.object({
        userId: z.string(),
        status: z.enum(['approved', 'changes-requested', 'approved-stale', 'changes-requested-stale']),
        timestamp: z.string(),
      }),
    ),
  ),
  /** The ramp schedules the draft creates on publish (see feature-revision-edits.ts). */
  rampActions: z.optional(z.array(z.looseObject({ mode: z.string(), ruleId: z.string() }))),
  // A deferred publish (POST .../schedule-publish), each field only when set.
  autoPublishOnApproval: z.optional(z.boolean()),
  autoPublishEnabledBy: z.optional(z.string()),
  scheduledPublishAt: z.optional(z.string()),
  scheduledPublishLockEdits: z.optional(z.boolean()),
  scheduledPublishLockOthers: z.optional(z.boolean()),
  scheduledPublishBypassApproval: z.optional(z.boolean()),
  scheduledPublishAttempts: z.optional(z.int()),
  scheduledPublishLastError: z.optional(z.string()),
  scheduledPublishGaveUpAt: z.optional(z.string()),
});
export type FeatureRevisionV2 = z.infer<typeof featureRevisionV2>;

export const revisionResponse = z.object({ revision: featureRevisionV2 });
/** A publish's answer: the revision, and the gates the caller's authority let it pass. */
const publishedRevisionResponse = z.object({ revision: featureRevisionV2, bypassedGates });

const featureParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(256)) });
export const revisionParams = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  version: z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,8}$/, 'must be a revision number')), z.transform(Number)),
});
/** Where GrowthBook allows it, `new` creates a draft for the edit. */
const revisionOrNewParams = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  version: z.pipe(
    z.string().check(z.regex(/^([1-9][0-9]{0,8}|new)$/, 'must be a revision number or "new"')),
    z.transform((value): number | 'new' => (value === 'new' ? 'new' : Number(value))),
  ),
});

const comment = z.optional(z.string().check(z.maxLength(10_000)));
const ignoreWarnings = z.optional(z.boolean());
/** A `status` query: one status, a comma-separated list, or the parameter repeated; `all-drafts` means every open status. */
export const statusList = z.pipe(
  z.union([z.string(), z.array(z.string())]),
  z.transform((value, ctx) => {
    const listed = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
    const expanded = listed.flatMap((status) => (status === 'all-drafts' ? ['draft', 'pending-review', 'approved', 'changes-requested'] : [status]));
    const unknown = expanded.find((status) => !(revisionStatuses as readonly string[]).includes(status));
    if (unknown) ctx.issues.push({ code: 'custom', input: value, message: `unknown status ${unknown} (one of ${revisionStatuses.join(', ')}, all-drafts)` });
    return expanded as RevisionStatus[];
  }),
);

export const getFeatureRevisionsV2 = defineEndpoint({
  operationId: 'getFeatureRevisionsV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/features/{id}/revisions',
  summary: 'List revisions for a feature',
  tag: 'feature-revisions',
  permission: 'read',
  params: featureParams,
  query: z.extend(paginationQuery, {
    status: z.optional(statusList),
    author: z.optional(z.string().check(z.maxLength(256))),
    mine: z.optional(queryBoolean),
  }),
  response: z.extend(paginationFields, { revisions: z.array(featureRevisionV2) }),
});

export const getFeatureRevisionLatestV2 = defineEndpoint({
  operationId: 'getFeatureRevisionLatestV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/latest',
  summary: 'Get the most recent active draft revision',
  tag: 'feature-revisions',
  permission: 'read',
  params: featureParams,
  query: z.object({
    mine: z.optional(queryBoolean),
    status: z.optional(statusList),
    author: z.optional(z.string().check(z.maxLength(256))),
  }),
  response: revisionResponse,
});

export const postFeatureRevisionV2 = defineEndpoint({
  operationId: 'postFeatureRevisionV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions',
  summary: 'Create a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: featureParams,
  body: z.strictObject({ comment, title: z.optional(z.string().check(z.maxLength(1000))), ignoreWarnings }),
  response: revisionResponse,
});

export const getFeatureRevisionV2 = defineEndpoint({
  operationId: 'getFeatureRevisionV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}',
  summary: 'Get a single feature revision',
  tag: 'feature-revisions',
  permission: 'read',
  params: revisionParams,
  response: revisionResponse,
});

export const putFeatureRevisionDefaultValueV2 = defineEndpoint({
  operationId: 'putFeatureRevisionDefaultValueV2',
  method: 'PUT',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/default-value',
  summary: 'Set the default value in a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({
    defaultValue: z.string().check(z.maxLength(100_000)),
    revisionTitle: z.optional(z.string().check(z.maxLength(1000))),
    revisionComment: comment,
    ignoreWarnings,
  }),
  response: revisionResponse,
});

const conflict = z.object({ name: z.string(), key: z.string(), resolved: z.boolean(), base: z.string(), live: z.string(), revision: z.string() });

export const getFeatureRevisionMergeStatusV2 = defineEndpoint({
  operationId: 'getFeatureRevisionMergeStatusV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/merge-status',
  summary: 'Get merge status for a draft revision',
  tag: 'feature-revisions',
  permission: 'read',
  params: revisionParams,
  response: z.object({
    success: z.boolean(),
    liveVersion: z.number(),
    draftDateUpdated: z.string(),
    conflicts: z.array(conflict),
    result: z.optional(
      z.object({
        defaultValue: z.optional(z.string()),
        rules: z.optional(z.array(z.record(z.string(), z.unknown()))),
        environmentsEnabled: z.optional(z.record(z.string(), z.boolean())),
        prerequisites: z.optional(z.array(z.object({ id: z.string(), condition: z.string() }))),
        archived: z.optional(z.boolean()),
        metadata: z.optional(z.record(z.string(), z.unknown())),
        holdout: z.optional(z.nullable(z.object({ id: z.string(), value: z.string() }))),
      }),
    ),
    rebaseRequired: z.boolean(),
  }),
});

export const postFeatureRevisionRebaseV2 = defineEndpoint({
  operationId: 'postFeatureRevisionRebaseV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/rebase',
  summary: 'Rebase a draft revision onto the current live version',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({
    conflictResolutions: z.optional(z.record(z.string().check(z.maxLength(512)), z.enum(['overwrite', 'discard']))),
    expectedLiveVersion: z.optional(z.int()),
    expectedDraftDateUpdated: z.optional(z.string().check(z.maxLength(64))),
    ignoreWarnings,
  }),
  response: revisionResponse,
});

export const postFeatureRevisionPublishV2 = defineEndpoint({
  operationId: 'postFeatureRevisionPublishV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/publish',
  summary: 'Publish a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({ comment, bypassApproval: z.optional(z.boolean()), ignoreWarnings }),
  response: publishedRevisionResponse,
});

export const postFeatureRevisionDiscardV2 = defineEndpoint({
  operationId: 'postFeatureRevisionDiscardV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/discard',
  summary: 'Discard a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({}),
  response: revisionResponse,
});

export const postFeatureRevisionReopenV2 = defineEndpoint({
  operationId: 'postFeatureRevisionReopenV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/reopen',
  summary: 'Reopen a discarded revision as a draft',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({}),
  response: revisionResponse,
});

export const postFeatureRevisionRevertV2 = defineEndpoint({
  operationId: 'postFeatureRevisionRevertV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/revert',
  summary: 'Revert the feature to a prior revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.strictObject({
    strategy: z.optional(z.enum(['draft', 'publish'])),
    comment,
    title: z.optional(z.string().check(z.maxLength(1000))),
    ignoreWarnings,
  }),
  response: publishedRevisionResponse,
});

/** The fields every draft edit takes: a title and comment for a draft created by `new`, and `ignoreWarnings`. */
const draftEdit = {
  revisionTitle: z.optional(z.string().check(z.maxLength(1000))),
  revisionComment: comment,
  ignoreWarnings,
};

export const postFeatureRevisionToggleV2 = defineEndpoint({
  operationId: 'postFeatureRevisionToggleV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/toggle',
  summary: 'Toggle an environment on/off in a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ environment: z.string().check(z.minLength(1), z.maxLength(256)), enabled: z.boolean(), ...draftEdit }),
  response: revisionResponse,
});

export const putFeatureRevisionArchiveV2 = defineEndpoint({
  operationId: 'putFeatureRevisionArchiveV2',
  method: 'PUT',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/archive',
  summary: 'Set archived state in a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ archived: z.boolean(), ...draftEdit }),
  response: revisionResponse,
});

export const putFeatureRevisionPrerequisitesV2 = defineEndpoint({
  operationId: 'putFeatureRevisionPrerequisitesV2',
  method: 'PUT',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/prerequisites',
  summary: 'Set feature-level prerequisites in a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({
    prerequisites: z.array(z.strictObject({ id: z.string().check(z.minLength(1), z.maxLength(256)) })).check(z.maxLength(100)),
    ...draftEdit,
  }),
  response: revisionResponse,
});

export const postFeatureRevisionRulesReorderV2 = defineEndpoint({
  operationId: 'postFeatureRevisionRulesReorderV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/rules/reorder',
  summary: 'Reorder rules in the revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionOrNewParams,
  body: z.strictObject({ ruleIds: z.array(z.string().check(z.maxLength(256))).check(z.maxLength(1000)), ...draftEdit }),
  response: revisionResponse,
});

export const deleteFeatureRevisionRuleV2 = defineEndpoint({
  operationId: 'deleteFeatureRevisionRuleV2',
  method: 'DELETE',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/rules/{ruleId}',
  summary: 'Delete a rule from a draft revision',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: z.extend(revisionOrNewParams, { ruleId: z.string().check(z.minLength(1), z.maxLength(256)) }),
  body: z.optional(z.strictObject(draftEdit)),
  response: revisionResponse,
});

export const featureRevisionEndpoints = [
  getFeatureRevisionsV2,
  getFeatureRevisionLatestV2,
  postFeatureRevisionV2,
  getFeatureRevisionV2,
  putFeatureRevisionDefaultValueV2,
  postFeatureRevisionToggleV2,
  putFeatureRevisionArchiveV2,
  putFeatureRevisionPrerequisitesV2,
  postFeatureRevisionRulesReorderV2,
  deleteFeatureRevisionRuleV2,
  getFeatureRevisionMergeStatusV2,
  postFeatureRevisionRebaseV2,
  postFeatureRevisionPublishV2,
  postFeatureRevisionDiscardV2,
  postFeatureRevisionReopenV2,
  postFeatureRevisionRevertV2,
];
