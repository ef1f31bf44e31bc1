import * as z from './zod';
import { defineEndpoint } from './spec';
import { featureRevisionV2, revisionParams, revisionResponse } from './feature-revisions';

const comment = z.optional(z.string().check(z.maxLength(10_000)));
const noBody = z.optional(z.strictObject({}));

export const postFeatureRevisionRequestReviewV2 = defineEndpoint({
  operationId: 'postFeatureRevisionRequestReviewV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/request-review',
  summary: 'Request review for a draft revision',
  tag: 'feature-revisions',
  // GrowthBook gates it on draft management only, so contributors can ask for the approval they cannot give.
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.optional(
    z.strictObject({
      comment,
      autoPublishOnApproval: z.optional(z.boolean()),
      scheduledPublishAt: z.optional(z.nullable(z.string())),
      scheduledPublishLockEdits: z.optional(z.boolean()),
      scheduledPublishLockOthers: z.optional(z.boolean()),
    }),
  ),
  response: revisionResponse,
});

export const postFeatureRevisionSubmitReviewV2 = defineEndpoint({
  operationId: 'postFeatureRevisionSubmitReviewV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/submit-review',
  summary: 'Submit a review on a draft revision',
  tag: 'feature-revisions',
  permission: 'reviewFeatures',
  projectScoped: true,
  params: revisionParams,
  body: z.optional(
    z.strictObject({
      comment,
      action: z.optional(z.enum(['approve', 'request-changes', 'comment'])),
      skipAutoPublish: z.optional(z.boolean()),
    }),
  ),
  response: z.object({ revision: featureRevisionV2, autoPublished: z.optional(z.boolean()) }),
});

export const postFeatureRevisionRecallReviewV2 = defineEndpoint({
  operationId: 'postFeatureRevisionRecallReviewV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/recall-review',
  summary: 'Recall a review request (revert to draft)',
  tag: 'feature-revisions',
  permission: 'manageFeatures',
  projectScoped: true,
  params: revisionParams,
  body: noBody,
  response: revisionResponse,
});

export const postFeatureRevisionUndoReviewV2 = defineEndpoint({
  operationId: 'postFeatureRevisionUndoReviewV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/undo-review',
  summary: "Undo a reviewer's own review verdict",
  tag: 'feature-revisions',
  permission: 'reviewFeatures',
  projectScoped: true,
  params: revisionParams,
  body: noBody,
  response: revisionResponse,
});

/** GrowthBook's revision `log` entry. */
const logEntry = z.object({
  id: z.optional(z.string()),
  action: z.string(),
  subject: z.string(),
  value: z.string(),
  timestamp: z.string(),
  user: z.nullable(z.object({ type: z.enum(['dashboard', 'api_key', 'system']), id: z.optional(z.string()) })),
});

const logParams = z.extend(revisionParams, { logId: z.string().check(z.minLength(1), z.maxLength(256)) });

export const getFeatureRevisionLogV2 = defineEndpoint({
  operationId: 'getFeatureRevisionLogV2',
  method: 'GET',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/log',
  summary: 'List the activity log for a revision',
  tag: 'feature-revisions',
  permission: 'read',
  params: revisionParams,
  response: z.object({ log: z.array(logEntry) }),
});

export const putFeatureRevisionLogCommentV2 = defineEndpoint({
  operationId: 'putFeatureRevisionLogCommentV2',
  method: 'PUT',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/log/{logId}',
  summary: 'Edit the comment text of an owned log entry',
  tag: 'feature-revisions',
  // Only reviewers write comments and verdicts, so only they can own an entry to change.
  permission: 'reviewFeatures',
  projectScoped: true,
  params: logParams,
  body: z.strictObject({ comment: z.string().check(z.maxLength(10_000)) }),
  response: z.object({ status: z.literal(200) }),
});

export const deleteFeatureRevisionLogEntryV2 = defineEndpoint({
  operationId: 'deleteFeatureRevisionLogEntryV2',
  method: 'DELETE',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/log/{logId}',
  summary: 'Delete an owned revision Comment entry',
  tag: 'feature-revisions',
  // Only reviewers write comments and verdicts, so only they can own an entry to change.
  permission: 'reviewFeatures',
  projectScoped: true,
  params: logParams,
  body: noBody,
  response: z.object({ status: z.literal(200) }),
});

export const featureReviewEndpoints = [
  postFeatureRevisionRequestReviewV2,
  postFeatureRevisionSubmitReviewV2,
  postFeatureRevisionRecallReviewV2,
  postFeatureRevisionUndoReviewV2,
  getFeatureRevisionLogV2,
  putFeatureRevisionLogCommentV2,
  deleteFeatureRevisionLogEntryV2,
];
