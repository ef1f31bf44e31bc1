import * as z from './zod';
import { defineEndpoint } from './spec';
import { bypassedGates, paginationFields, paginationQuery, queryBoolean } from './common';
import { jsonCondition, savedGroup } from './saved-groups';

/**
 * GrowthBook 5's saved-group revisions (`/saved-groups-revisions`, tag `saved-group-revisions`), and the
 * archive, unarchive and references of a saved group. A revision shows the group it branched from
 * (`baseSavedGroup`), the group it would publish (`proposedSavedGroup`) and the difference as JSON
 * Patch operations (`proposedChanges`). Its published status is GrowthBook's `merged`.
 */

export const savedGroupRevisionStatuses = ['draft', 'pending-review', 'approved', 'changes-requested', 'merged', 'discarded'] as const;
export type SavedGroupRevisionStatus = (typeof savedGroupRevisionStatuses)[number];

/** What the activity log records, as GrowthBook names it. */
export const activityActions = [
  'created',
  'updated',
  'reviewed',
  'approved',
  'requested-changes',
  'commented',
  'review-requested',
  'review-retracted',
  'merged',
  'discarded',
  'reopened',
  'recalled',
  'scheduled-publish',
  'scheduled-publish-updated',
  'scheduled-publish-canceled',
  'merge-recovered',
] as const;
export type ActivityAction = (typeof activityActions)[number];

const patchOp = z.object({ op: z.enum(['add', 'replace', 'remove']), path: z.string(), value: z.optional(z.unknown()) });

export const savedGroupRevision = z.object({
  id: z.string(),
  version: z.optional(z.int()),
  title: z.optional(z.string()),
  status: z.enum(savedGroupRevisionStatuses),
  authorId: z.string(),
  contributors: z.optional(z.array(z.string())),
  revertedFrom: z.optional(z.string()),
  reviews: z.array(
    z.object({
      id: z.string(),
      userId: z.string(),
      decision: z.enum(['approve', 'request-changes', 'comment']),
      comment: z.optional(z.string()),
      stale: z.optional(z.boolean()),
      dateCreated: z.string(),
    }),
  ),
  activityLog: z.array(
    z.object({
      id: z.string(),
      userId: z.string(),
      action: z.enum(activityActions),
      description: z.optional(z.string()),
      dateCreated: z.string(),
    }),
  ),
  autoPublishOnApproval: z.optional(z.boolean()),
  autoPublishEnabledBy: z.optional(z.string()),
  scheduledPublishAt: z.optional(z.string()),
  scheduledPublishLockEdits: z.optional(z.boolean()),
  scheduledPublishLockOthers: z.optional(z.boolean()),
  scheduledPublishBypassApproval: z.optional(z.boolean()),
  scheduledPublishAttempts: z.optional(z.int()),
  scheduledPublishLastError: z.optional(z.string()),
  scheduledPublishGaveUpAt: z.optional(z.string()),
  resolution: z.optional(z.object({ action: z.enum(['merged', 'discarded']), userId: z.string(), dateCreated: z.string() })),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  baseSavedGroup: savedGroup,
  proposedSavedGroup: savedGroup,
  proposedChanges: z.array(patchOp),
});
export type SavedGroupRevision = z.infer<typeof savedGroupRevision>;

const revisionResponse = z.object({ revision: savedGroupRevision });

const id = z.string().check(z.minLength(1), z.maxLength(256));
const groupParams = z.object({ savedGroupId: id });
const revisionParams = z.object({
  savedGroupId: id,
  version: z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,8}$/, 'must be a revision number')), z.transform(Number)),
});
/** The field edits take `new` to create the draft they edit. */
const revisionOrNewParams = z.object({
  savedGroupId: id,
  version: z.pipe(
    z.string().check(z.regex(/^([1-9][0-9]{0,8}|new)$/, 'must be a revision number or "new"')),
    z.transform((value): number | 'new' => (value === 'new' ? 'new' : Number(value))),
  ),
});

const title = z.optional(z.string().check(z.maxLength(1000)));
const comment = z.optional(z.string().check(z.maxLength(10_000)));
const ignoreWarnings = z.optional(z.boolean());
const draftText = { revisionTitle: title, revisionComment: comment };
const items = z.array(z.string().check(z.maxLength(1000))).check(z.minLength(1));

/** `status`: a comma-separated list of statuses, or `open` for every status still open. */
const statusList = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    const listed = value.split(',').map((v) => v.trim()).filter(Boolean);
    const expanded = listed.flatMap((status) => (status === 'open' ? ['draft', 'pending-review', 'approved', 'changes-requested'] : [status]));
    const unknown = expanded.find((status) => !(savedGroupRevisionStatuses as readonly string[]).includes(status));
    if (unknown) ctx.issues.push({ code: 'custom', input: value, message: `unknown status ${unknown} (one of ${savedGroupRevisionStatuses.join(', ')}, open)` });
    return expanded as SavedGroupRevisionStatus[];
  }),
);
const listFilters = {
  status: z.optional(statusList),
  author: z.optional(z.string().check(z.maxLength(256))),
  mine: z.optional(queryBoolean),
  skipPagination: z.optional(queryBoolean),
};
const revisionPage = z.extend(paginationFields, { revisions: z.array(savedGroupRevision) });

export const listSavedGroupRevisions = defineEndpoint({
  operationId: 'listSavedGroupRevisions',
  method: 'GET',
  path: '/saved-groups-revisions',
  summary: 'List saved-group revisions across the organization',
  tag: 'saved-group-revisions',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, { ...listFilters, savedGroupId: z.optional(id) }),
  response: revisionPage,
});

export const getSavedGroupRevisions = defineEndpoint({
  operationId: 'getSavedGroupRevisions',
  method: 'GET',
  path: '/saved-groups-revisions/{savedGroupId}',
  summary: 'List revisions for a saved group',
  tag: 'saved-group-revisions',
  permission: 'read',
  projectScoped: true,
  params: groupParams,
  query: z.extend(paginationQuery, listFilters),
  response: revisionPage,
});

export const postSavedGroupRevision = defineEndpoint({
  operationId: 'postSavedGroupRevision',
  method: 'POST',
  path: '/saved-groups-revisions/{savedGroupId}',
  summary: 'Create a draft revision',
  tag: 'saved-group-revisions',
  permission: 'manageSavedGroups',
  projectScoped: true,
  params: groupParams,
  body: z.strictObject({ title, comment }),
  response: revisionResponse,
});

export const getSavedGroupRevisionLatest = defineEndpoint({
  operationId: 'getSavedGroupRevisionLatest',
  method: 'GET',
  path: '/saved-groups-revisions/{savedGroupId}/latest',
  summary: 'Get the most recent active draft revision',
  tag: 'saved-group-revisions',
  permission: 'read',
  projectScoped: true,
  params: groupParams,
  query: z.object({ mine: z.optional(queryBoolean) }),
  response: revisionResponse,
});

export const getSavedGroupRevision = defineEndpoint({
  operationId: 'getSavedGroupRevision',
  method: 'GET',
  path: '/saved-groups-revisions/{savedGroupId}/{version}',
  summary: 'Get a single saved group revision',
  tag: 'saved-group-revisions',
  permission: 'read',
  projectScoped: true,
  params: revisionParams,
  response: revisionResponse,
});

const edit = <B extends z.core.$ZodType>(operationId: string, method: 'PUT' | 'POST', suffix: string, summary: string, body: B) =>
  defineEndpoint({
    operationId,
    method,
    path: `/saved-groups-revisions/{savedGroupId}/{version}/${suffix}`,
    summary,
    tag: 'saved-group-revisions',
    permission: 'manageSavedGroups',
    projectScoped: true,
    params: revisionOrNewParams,
    body,
    response: revisionResponse,
  });

export const putSavedGroupRevisionMetadata = edit(
  'putSavedGroupRevisionMetadata',
  'PUT',
  'metadata',
  'Update saved group metadata in a draft revision',
  z.strictObject({
    ...draftText,
    name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
    owner: z.optional(z.string().check(z.maxLength(256))),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    projects: z.optional(z.array(z.string().check(z.maxLength(256)))),
  }),
);

export const putSavedGroupRevisionCondition = edit(
  'putSavedGroupRevisionCondition',
  'PUT',
  'condition',
  'Update the condition of a condition saved group draft revision',
  z.strictObject({ ...draftText, condition: jsonCondition }),
);

export const putSavedGroupRevisionValues = edit(
  'putSavedGroupRevisionValues',
  'PUT',
  'values',
  'Replace the values list in a list saved group draft revision',
  z.strictObject({ ...draftText, values: z.array(z.string()) }),
);

export const putSavedGroupRevisionArchive = edit(
  'putSavedGroupRevisionArchive',
  'PUT',
  'archive',
  'Stage an archive/unarchive in a draft revision',
  z.strictObject({ ...draftText, archived: z.boolean(), ignoreWarnings }),
);

export const postSavedGroupRevisionItemsAdd = edit(
  'postSavedGroupRevisionItemsAdd',
  'POST',
  'items/add',
  'Append items to a list saved group draft revision',
  z.strictObject({ ...draftText, items }),
);

export const postSavedGroupRevisionItemsRemove = edit(
  'postSavedGroupRevisionItemsRemove',
  'POST',
  'items/remove',
  'Remove items from a list saved group draft revision',
  z.strictObject({ ...draftText, items }),
);

const action = <B extends z.core.$ZodType, R extends z.core.$ZodType>(operationId: string, suffix: string, summary: string, body: B, response: R) =>
  defineEndpoint({
    operationId,
    method: 'POST',
    path: `/saved-groups-revisions/{savedGroupId}/{version}/${suffix}`,
    summary,
    tag: 'saved-group-revisions',
    permission: 'manageSavedGroups',
    projectScoped: true,
    params: revisionParams,
    body,
    response,
  });

export const getSavedGroupRevisionMergeStatus = defineEndpoint({
  operationId: 'getSavedGroupRevisionMergeStatus',
  method: 'GET',
  path: '/saved-groups-revisions/{savedGroupId}/{version}/merge-status',
  summary: 'Get merge status for a draft revision',
  tag: 'saved-group-revisions',
  permission: 'read',
  projectScoped: true,
  params: revisionParams,
  response: z.object({
    success: z.boolean(),
    hasConflicts: z.boolean(),
    conflicts: z.array(z.object({ field: z.string(), baseValue: z.unknown(), liveValue: z.unknown(), proposedValue: z.unknown() })),
    canAutoMerge: z.boolean(),
  }),
});

export const postSavedGroupRevisionRebase = action(
  'postSavedGroupRevisionRebase',
  'rebase',
  'Rebase a draft revision onto the current live saved group',
  z.strictObject({
    conflictResolutions: z.optional(z.record(z.string(), z.enum(['overwrite', 'discard', 'union']))),
    customValues: z.optional(z.record(z.string(), z.array(z.unknown()))),
  }),
  revisionResponse,
);

export const postSavedGroupRevisionPublish = action(
  'postSavedGroupRevisionPublish',
  'publish',
  'Publish a draft revision',
  z.strictObject({ bypassApproval: z.optional(z.boolean()), ignoreWarnings }),
  z.object({ revision: savedGroupRevision, bypassedGates }),
);

export const postSavedGroupRevisionDiscard = action(
  'postSavedGroupRevisionDiscard',
  'discard',
  'Discard a draft revision',
  z.strictObject({ reason: z.optional(z.string().check(z.maxLength(10_000))) }),
  revisionResponse,
);

export const postSavedGroupRevisionReopen = action('postSavedGroupRevisionReopen', 'reopen', 'Reopen a discarded revision', z.strictObject({}), revisionResponse);

export const postSavedGroupRevisionRevert = action(
  'postSavedGroupRevisionRevert',
  'revert',
  'Revert the saved group to a prior revision',
  z.strictObject({ strategy: z.optional(z.enum(['draft', 'publish'])), title, comment, ignoreWarnings }),
  z.object({ revision: savedGroupRevision, bypassedGates }),
);

export const postSavedGroupRevisionSchedulePublish = action(
  'postSavedGroupRevisionSchedulePublish',
  'schedule-publish',
  'Schedule (or cancel) a deferred publish',
  z.strictObject({
    scheduledPublishAt: z.nullable(z.iso.datetime({ offset: true })),
    lockEdits: z.optional(z.boolean()),
    lockOthers: z.optional(z.boolean()),
    bypassApproval: z.optional(z.boolean()),
    ignoreWarnings,
  }),
  revisionResponse,
);

export const postSavedGroupRevisionRequestReview = action(
  'postSavedGroupRevisionRequestReview',
  'request-review',
  'Request review for a draft revision',
  z.strictObject({ autoPublishOnApproval: z.optional(z.boolean()), ignoreWarnings }),
  revisionResponse,
);

export const postSavedGroupRevisionSubmitReview = action(
  'postSavedGroupRevisionSubmitReview',
  'submit-review',
  'Submit a review on a draft revision',
  z.strictObject({
    decision: z.enum(['approve', 'request-changes', 'comment']),
    comment: z.optional(z.string().check(z.maxLength(10_000))),
    skipAutoPublish: z.optional(z.boolean()),
  }),
  z.object({ revision: savedGroupRevision, autoPublished: z.optional(z.boolean()) }),
);

export const postSavedGroupRevisionRecallReview = action('postSavedGroupRevisionRecallReview', 'recall-review', 'Recall a review request', z.strictObject({}), revisionResponse);

export const postSavedGroupRevisionUndoReview = action('postSavedGroupRevisionUndoReview', 'undo-review', 'Retract your own review verdict', z.strictObject({}), revisionResponse);

const groupIdParams = z.object({ id });
const archivedResponse = z.object({ savedGroup, bypassedGates });

export const archiveSavedGroup = defineEndpoint({
  operationId: 'archiveSavedGroup',
  method: 'POST',
  path: '/saved-groups/{id}/archive',
  summary: 'Archive a single saved group',
  tag: 'saved-groups',
  permission: 'manageSavedGroups',
  projectScoped: true,
  params: groupIdParams,
  body: z.strictObject({ ignoreWarnings }),
  response: archivedResponse,
});

export const unarchiveSavedGroup = defineEndpoint({
  operationId: 'unarchiveSavedGroup',
  method: 'POST',
  path: '/saved-groups/{id}/unarchive',
  summary: 'Unarchive a single saved group',
  tag: 'saved-groups',
  permission: 'manageSavedGroups',
  projectScoped: true,
  params: groupIdParams,
  response: archivedResponse,
});

export const savedGroupReferences = z.object({
  features: z.array(z.object({ id: z.string(), name: z.optional(z.string()), project: z.optional(z.string()) })),
  experiments: z.array(z.object({ id: z.string(), name: z.optional(z.string()), project: z.optional(z.string()), projects: z.optional(z.array(z.string())) })),
  savedGroups: z.array(z.object({ id: z.string(), groupName: z.optional(z.string()), projects: z.optional(z.array(z.string())) })),
});
export type SavedGroupReferences = z.infer<typeof savedGroupReferences>;

export const getSavedGroupReferences = defineEndpoint({
  operationId: 'getSavedGroupReferences',
  method: 'GET',
  path: '/saved-groups/{id}/references',
  summary: 'Get features, experiments, and saved groups that reference this saved group',
  tag: 'saved-groups',
  permission: 'read',
  projectScoped: true,
  params: groupIdParams,
  response: savedGroupReferences,
});

export const savedGroupRevisionEndpoints = [
  listSavedGroupRevisions,
  getSavedGroupRevisions,
  postSavedGroupRevision,
  getSavedGroupRevisionLatest,
  getSavedGroupRevision,
  putSavedGroupRevisionMetadata,
  putSavedGroupRevisionCondition,
  putSavedGroupRevisionValues,
  putSavedGroupRevisionArchive,
  postSavedGroupRevisionItemsAdd,
  postSavedGroupRevisionItemsRemove,
  getSavedGroupRevisionMergeStatus,
  postSavedGroupRevisionRebase,
  postSavedGroupRevisionPublish,
  postSavedGroupRevisionDiscard,
  postSavedGroupRevisionReopen,
  postSavedGroupRevisionRevert,
  postSavedGroupRevisionSchedulePublish,
  postSavedGroupRevisionRequestReview,
  postSavedGroupRevisionSubmitReview,
  postSavedGroupRevisionRecallReview,
  postSavedGroupRevisionUndoReview,
  archiveSavedGroup,
  unarchiveSavedGroup,
  getSavedGroupReferences,
];
