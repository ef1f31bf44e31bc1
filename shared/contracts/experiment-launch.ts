import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams } from './common';
import { experimentWithEnhancedStatus } from './experiments';

// The pre-launch checklist and the temporary rollout of a stopped experiment: GrowthBook's
// getExperimentStartChecklist, postExperimentStartChecklistManualComplete and postExperimentModifyTemporaryRollout.
// Manual items come from the launch checklist the admin CLI configures (shared/store/launch-checklists.ts).

const checklistItem = z.strictObject({
  key: z.string(),
  required: z.boolean(),
  status: z.enum(['complete', 'incomplete']),
  manual: z.boolean(),
  reason: z.string(),
  hardBlock: z.optional(z.boolean()),
});

const checklistResponse = z.object({ checklistItems: z.array(checklistItem), status: z.enum(['ready', 'notReady']) });

export const getExperimentStartChecklist = defineEndpoint({
  operationId: 'getExperimentStartChecklist',
  method: 'GET',
  path: '/experiments/{id}/start-checklist',
  summary: "Get an experiment's pre-launch checklist status",
  tag: 'experiments',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: checklistResponse,
});

export const postExperimentStartChecklistManualComplete = defineEndpoint({
  operationId: 'postExperimentStartChecklistManualComplete',
  method: 'POST',
  path: '/experiments/{id}/start-checklist/manual/complete',
  summary: 'Mark manual pre-launch checklist items complete',
  tag: 'experiments',
  // GrowthBook's canUpdateExperiment.
  permission: 'createAnalyses',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({ keys: z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.minLength(1), z.maxLength(100)) }),
  response: checklistResponse,
});

export const postExperimentModifyTemporaryRollout = defineEndpoint({
  operationId: 'postExperimentModifyTemporaryRollout',
  method: 'POST',
  path: '/experiments/{id}/modify-temporary-rollout',
  summary: 'Turn the temporary rollout of a stopped experiment on or off',
  tag: 'experiments',
  permission: 'runExperiments',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    enableTemporaryRollout: z.boolean(),
    releasedVariationId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    // Switchyard has no experiment guards or locked dependents to acknowledge; taken so GrowthBook's callers are not refused.
    ignoreWarnings: z.optional(z.boolean()),
  }),
  response: z.object({ experiment: experimentWithEnhancedStatus }),
});

export const experimentLaunchEndpoints = [getExperimentStartChecklist, postExperimentStartChecklistManualComplete, postExperimentModifyTemporaryRollout];
