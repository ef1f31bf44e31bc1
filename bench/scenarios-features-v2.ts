/**
 * The bench scenario's steps for GrowthBook 5's `/api/v2` feature operations, the revision lists across
 * features, and the deprecated v1 revision routes: one feature of their own (`ids.featureV2Id`), made,
 * changed through drafts and deleted here.
 */
import type { Ids, Step } from './scenarios';

const v1 = '/api/v1';
const v2 = '/api/v2';
const feature = (ids: Ids) => `${ids.featureV2Id}`;
/** A revision's number from its id (`frev_<version>_<feature>`): ids, not bare numbers, are what the steps remember. */
const versionOf = (revisionId: string | undefined) => revisionId?.split('_')[1];
const draft = (ids: Ids, path = '') => `${v1}/features/${feature(ids)}/revisions/${versionOf(ids.v1DraftId)}${path}`;

/** Run after the other steps that change features, before any deletes. */
export const featureV2Steps: Step[] = [
  {
    operationId: 'postFeatureV2',
    method: 'POST',
    path: () => `${v2}/features`,
    body: (ids) => ({
      id: `bench-v2-${ids.run ?? 'run'}`,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: { production: { enabled: true }, dev: { enabled: true } },
      rules: [
        { id: 'fr_v2a', type: 'force', value: 'true', condition: '{"country":"US"}' },
        { id: 'fr_v2b', type: 'rollout', value: 'true', coverage: 0.5, hashAttribute: 'id', environments: ['production'] },
      ],
    }),
    capture: (body, ids) => {
      ids.featureV2Id = body.feature.id;
    },
    minimum: { calls: 4, why: 'the environments (to place the flat rules) + as postFeature: owner and environments + one transaction (feature, revision, payload entries, list indexes)' },
  },
  {
    operationId: 'listFeaturesV2',
    method: 'GET',
    path: () => `${v2}/features?limit=10`,
    minimum: { calls: 4, why: 'as listFeatures: page index + keys from its mark + page items + environments' },
  },
  {
    operationId: 'getFeatureV2',
    method: 'GET',
    path: (ids) => `${v2}/features/${feature(ids)}?withRevisions=all`,
    minimum: { calls: 3, why: 'as getFeature: feature + environments + newest revisions, in parallel' },
  },
  {
    operationId: 'updateFeatureV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${feature(ids)}`,
    body: () => ({ description: 'Updated through v2 by the bench' }),
    minimum: { calls: 3, why: 'as updateFeature: environments + feature + one transaction (the body has no rules to place)' },
  },
  {
    operationId: 'toggleFeatureV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${feature(ids)}/toggle`,
    body: () => ({ environments: { dev: false }, reason: 'Bench' }),
    minimum: { calls: 3, why: 'as toggleFeature: environments and the feature (parallel) + one transaction (feature, revision, payload entries)' },
  },
  {
    operationId: 'revertFeatureV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${feature(ids)}/revert`,
    body: () => ({ revision: 1, comment: 'Bench revert' }),
    minimum: { calls: 3, why: 'as revertFeature: environments + feature + revision 1 (no content change: nothing written)' },
  },
  {
    operationId: 'getFeatureKeysV2',
    method: 'GET',
    path: () => `${v2}/feature-keys`,
    minimum: { calls: 1, why: 'as getFeatureKeys: the keys-only list index' },
  },
  {
    operationId: 'getFeatureStaleV2',
    method: 'GET',
    path: (ids) => `${v2}/stale-features?ids=${feature(ids)}`,
    minimum: { calls: 6, why: 'feature keys + items, experiment keys + items, environments (parallel) + the open drafts of the feature named' },
  },
  {
    operationId: 'listRevisionsV2',
    method: 'GET',
    path: () => `${v2}/feature-revisions?limit=10`,
    minimum: { calls: 6, why: 'revision list page index + its tail + keys from its mark + page items + their features + environments' },
  },
  {
    operationId: 'listRevisions',
    method: 'GET',
    path: () => `${v1}/revisions?limit=10`,
    minimum: { calls: 6, why: 'as listRevisionsV2' },
  },
  {
    operationId: 'postFeatureRevision',
    method: 'POST',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions`,
    body: () => ({ comment: 'Bench v1 draft' }),
    capture: (body, ids) => {
      ids.v1DraftId = body.revision.id;
    },
    minimum: { calls: 6, why: "as postFeatureRevisionV2 (feature, one transaction, environments) + the draft read back for v1's rules (feature, draft, environments)" },
  },
  {
    operationId: 'getFeatureRevisions',
    method: 'GET',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions?limit=5`,
    minimum: { calls: 4, why: 'feature + environments + newest number + one key range of revisions, in parallel' },
  },
  {
    operationId: 'getFeatureRevisionLatest',
    method: 'GET',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions/latest`,
    minimum: { calls: 6, why: "as getFeatureRevisionLatestV2 (feature + open drafts, environments) + the draft read back for v1's rules" },
  },
  {
    operationId: 'getFeatureRevision',
    method: 'GET',
    path: (ids) => draft(ids),
    minimum: { calls: 3, why: 'feature + revision + environments, in parallel' },
  },
  {
    operationId: 'putFeatureRevisionDefaultValue',
    method: 'PUT',
    path: (ids) => draft(ids, '/default-value'),
    body: () => ({ defaultValue: 'true' }),
    minimum: { calls: 8, why: "as putFeatureRevisionDefaultValueV2 (feature + draft + environments, references, draft write) + the draft read back for v1's rules" },
  },
  {
    operationId: 'postFeatureRevisionToggle',
    method: 'POST',
    path: (ids) => draft(ids, '/toggle'),
    body: () => ({ environment: 'dev', enabled: true }),
    minimum: { calls: 8, why: 'as the default value' },
  },
  {
    operationId: 'putFeatureRevisionArchive',
    method: 'PUT',
    path: (ids) => draft(ids, '/archive'),
    body: () => ({ archived: false }),
    minimum: { calls: 8, why: 'as the default value' },
  },
  {
    operationId: 'putFeatureRevisionPrerequisites',
    method: 'PUT',
    path: (ids) => draft(ids, '/prerequisites'),
    body: () => ({ prerequisites: [] }),
    minimum: { calls: 8, why: 'as the default value' },
  },
  {
    operationId: 'postFeatureRevisionRulesReorder',
    method: 'POST',
    path: (ids) => draft(ids, '/rules/reorder'),
    body: () => ({ environment: 'production', ruleIds: ['fr_v2b', 'fr_v2a'] }),
    minimum: { calls: 8, why: 'as the default value' },
  },
  // The v1 twins of v2's rule, metadata and holdout edits, on the open v1 draft after its reorder.
  {
    operationId: 'postFeatureRevisionRuleAdd',
    method: 'POST',
    path: (ids) => draft(ids, '/rules'),
    body: () => ({ environment: 'dev', rule: { type: 'force', value: 'true', condition: '{"plan":"pro"}' } }),
    minimum: { calls: 9, why: "environments (v1's one environment checked) + as postFeatureRevisionRuleAddV2 + the draft read back for v1's rules" },
  },
  {
    operationId: 'putFeatureRevisionRule',
    method: 'PUT',
    path: (ids) => draft(ids, '/rules/fr_v2b'),
    body: () => ({ environment: 'production', rule: { description: 'Edited in a v1 draft' } }),
    minimum: { calls: 11, why: "environments + draft (parallel: the rule in v1's environment) + as putFeatureRevisionRuleV2 + the draft read back for v1's rules" },
  },
  {
    operationId: 'putFeatureRevisionMetadata',
    method: 'PUT',
    path: (ids) => draft(ids, '/metadata'),
    body: () => ({ description: 'Bench v1 draft', tags: ['bench'] }),
    minimum: { calls: 9, why: "as putFeatureRevisionMetadataV2 + the draft read back for v1's rules" },
  },
  {
    operationId: 'putFeatureRevisionHoldout',
    method: 'PUT',
    path: (ids) => draft(ids, '/holdout'),
    body: () => ({ holdout: null }),
    minimum: { calls: 8, why: 'as the default value (no holdout to look up)' },
  },
  {
    operationId: 'getFeatureRevisionMergeStatus',
    method: 'GET',
    path: (ids) => draft(ids, '/merge-status'),
    minimum: { calls: 3, why: 'as v2: feature + draft + environments (parallel); the base is live, so no base revision read' },
  },
  {
    operationId: 'postFeatureRevisionRebase',
    method: 'POST',
    path: (ids) => draft(ids, '/rebase'),
    body: () => ({}),
    minimum: { calls: 7, why: "as postFeatureRevisionRebaseV2 (feature + draft, draft write, environments) + the draft read back for v1's rules" },
  },
  // The v1 draft's review after its rebase: requested with the organization key, approved by the admin member (a person).
  {
    operationId: 'postFeatureRevisionRequestReview',
    method: 'POST',
    path: (ids) => draft(ids, '/request-review'),
    body: () => ({ comment: 'Bench v1 review' }),
    minimum: { calls: 7, why: "as postFeatureRevisionRequestReviewV2 + the draft read back for v1's rules" },
  },
  {
    operationId: 'postFeatureRevisionSubmitReview',
    method: 'POST',
    path: (ids) => draft(ids, '/submit-review'),
    key: (ids) => ids.memberToken,
    body: () => ({ action: 'approve', comment: 'Looks good' }),
    minimum: { calls: 8, why: "as postFeatureRevisionSubmitReviewV2 + the draft read back for v1's rules" },
  },
  {
    operationId: 'postFeatureRevisionPublish',
    method: 'POST',
    path: (ids) => draft(ids, '/publish'),
    body: () => ({ comment: 'Bench v1 publish' }),
    minimum: { calls: 9, why: "as postFeatureRevisionPublishV2 + the revision read back for v1's rules" },
  },
  {
    operationId: 'postFeatureRevisionRevert',
    method: 'POST',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions/1/revert`,
    body: () => ({}),
    capture: (body, ids) => {
      ids.v1RevertId = body.revision.id;
    },
    minimum: { calls: 8, why: "as postFeatureRevisionRevertV2 to a draft + the draft read back for v1's rules" },
  },
  {
    operationId: 'postFeatureRevisionDiscard',
    method: 'POST',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions/${versionOf(ids.v1RevertId)}/discard`,
    body: () => ({}),
    minimum: { calls: 7, why: "as postFeatureRevisionDiscardV2 (feature + draft, draft write, environments) + the draft read back for v1's rules" },
  },
  // A pending ramp in a draft of its own, never published (a published one would start it); removed among the deletes.
  {
    operationId: 'putFeatureRevisionRuleRampSchedule',
    method: 'PUT',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions/new/rules/fr_v2b/ramp-schedule`,
    body: () => ({ name: 'Bench v1 draft ramp', steps: [{ interval: 3600, actions: [{ patch: { coverage: 0.75 } }] }] }),
    capture: (body, ids) => {
      ids.v1RampDraftId = body.revision.id;
    },
    minimum: { calls: 13, why: "a new draft (feature + environments, references, feature, one transaction) + as putFeatureRevisionRuleRampScheduleV2 + the draft read back for v1's rules" },
  },
];

/** Deletes what `featureV2Steps` made (the pending ramp, then a rule in a new draft). */
export const featureV2Deletes: Step[] = [
  {
    operationId: 'deleteFeatureRevisionRuleRampSchedule',
    method: 'DELETE',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions/${versionOf(ids.v1RampDraftId)}/rules/fr_v2b/ramp-schedule`,
    body: () => ({}),
    minimum: { calls: 8, why: "as deleteFeatureRevisionRuleRampScheduleV2 + the draft read back for v1's rules" },
  },
  {
    operationId: 'deleteFeatureRevisionRule',
    method: 'DELETE',
    path: (ids) => `${v1}/features/${feature(ids)}/revisions/new/rules/fr_v2a`,
    body: () => ({ environment: 'dev' }),
    minimum: { calls: 12, why: "a new draft (feature + environments, references, feature, one transaction) + the edit (feature + draft + environments, references, draft write) + the draft read back for v1's rules" },
  },
  {
    operationId: 'deleteFeatureV2',
    method: 'DELETE',
    path: (ids) => `${v2}/features/${feature(ids)}`,
    minimum: { calls: 3, why: "as deleteFeature: read + environments' parents (the feature is served) + one transaction (feature, its revisions, list indexes)" },
  },
];
