import * as z from 'zod';
import { defineEndpoint, type EndpointSpec } from './spec';
import { dateInput, deletedResponse, idParams, paginationFields, paginationQuery } from './common';
import { jsonCondition } from './saved-groups';

export const rampStatuses = ['pending', 'ready', 'running', 'paused', 'pending-approval', 'completed', 'rolled-back'] as const;
export type RampStatus = (typeof rampStatuses)[number];

// ---- Shapes as the API answers them ----

const savedGroupsPatch = z.array(z.object({ match: z.enum(['all', 'none', 'any']), ids: z.array(z.string()) }));
const prerequisitesPatch = z.array(z.object({ id: z.string(), condition: z.string() }));

/** A sparse change to one feature rule: an absent key leaves the field alone, `null` clears it to its default (see `applyRulePatch`). */
export const rulePatch = z.object({
  ruleId: z.string(),
  coverage: z.number().nullable().optional(),
  condition: z.string().nullable().optional(),
  savedGroups: savedGroupsPatch.nullable().optional(),
  prerequisites: prerequisitesPatch.nullable().optional(),
  force: z.unknown().optional(),
  enabled: z.boolean().nullable().optional(),
});
export type RulePatch = z.infer<typeof rulePatch>;

export const rampAction = z.object({
  targetType: z.literal('feature-rule'),
  targetId: z.string(),
  patch: rulePatch,
});
export type RampAction = z.infer<typeof rampAction>;

export const rampTrigger = z.discriminatedUnion('type', [
  z.object({ type: z.literal('interval'), seconds: z.number() }),
  z.object({ type: z.literal('approval') }),
  z.object({ type: z.literal('scheduled'), at: z.string() }),
]);
export type RampTrigger = z.infer<typeof rampTrigger>;

export const rampStep = z.object({
  trigger: rampTrigger,
  actions: z.array(rampAction),
  approvalNotes: z.string().nullable().optional(),
});
export type RampStep = z.infer<typeof rampStep>;

export const rampTarget = z.object({
  id: z.string(),
  entityType: z.literal('feature'),
  entityId: z.string(),
  ruleId: z.string().nullable().optional(),
  environment: z.string().nullable().optional(),
  status: z.enum(['pending-join', 'active']),
  activatingRevisionVersion: z.number().int().nullable().optional(),
});
export type RampTarget = z.infer<typeof rampTarget>;

export const rampEndCondition = z.object({
  trigger: z.object({ type: z.literal('scheduled'), at: z.string() }).optional(),
});
export type RampEndCondition = z.infer<typeof rampEndCondition>;

export const rampSchedule = z.object({
  id: z.string(),
  /** Named by the spec (section 2.2); the reference document leaves it out. */
  organization: z.string().optional(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  entityType: z.literal('feature'),
  entityId: z.string(),
  targets: z.array(rampTarget),
  steps: z.array(rampStep),
  endActions: z.array(rampAction).optional(),
  startDate: z.string().nullable().optional(),
  endCondition: rampEndCondition.nullable().optional(),
  status: z.enum(rampStatuses),
  currentStepIndex: z.number().int().min(-1),
  startedAt: z.string().nullable().optional(),
  phaseStartedAt: z.string().nullable().optional(),
  pausedAt: z.string().nullable().optional(),
  nextStepAt: z.string().nullable(),
  nextProcessAt: z.string().nullable().optional(),
  elapsedMs: z.number().int().nullable().optional(),
});
export type RampSchedule = z.infer<typeof rampSchedule>;

// ---- Request bodies ----

const dateTime = dateInput;
const shortId = z.string().min(1).max(256);
/** A rule condition: a JSON object as a string, or empty for none. */
const ruleCondition = z.union([z.literal(''), jsonCondition]);
/** Ten years: longer intervals are mistakes, and keep every computed date representable. */
const MAX_INTERVAL_SECONDS = 10 * 365 * 24 * 3600;

const triggerInput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('interval'), seconds: z.number().positive().max(MAX_INTERVAL_SECONDS) }),
  z.strictObject({ type: z.literal('approval') }),
  z.strictObject({ type: z.literal('scheduled'), at: dateTime }),
]);

const patchFields = {
  coverage: z.number().min(0).max(1).nullable().optional(),
  condition: ruleCondition.nullable().optional(),
  savedGroups: z
    .array(z.strictObject({ match: z.enum(['all', 'none', 'any']), ids: z.array(shortId).max(100) }))
    .max(100)
    .nullable()
    .optional(),
  prerequisites: z
    .array(z.strictObject({ id: shortId, condition: ruleCondition }))
    .max(100)
    .nullable()
    .optional(),
  force: z.unknown().optional(),
  enabled: z.boolean().nullable().optional(),
};

/**
 * An action as a request gives it. `targetId` may be left out or be `t1` when the schedule has one
 * active target; `patch.ruleId` may be left out (the target's rule is filled in), except in PUT,
 * where the reference requires it.
 */
const patchInput = z.strictObject({ ruleId: shortId.optional(), ...patchFields });
const actionInput = z.strictObject({
  targetType: z.literal('feature-rule').optional(),
  targetId: shortId.optional(),
  patch: patchInput,
});
export type RampActionInput = z.infer<typeof actionInput>;
const putActionInput = actionInput.extend({ patch: patchInput.extend({ ruleId: shortId }) });

const stepInput = <A extends z.ZodType<RampActionInput>>(action: A) =>
  z.strictObject({
    trigger: triggerInput,
    actions: z.array(action).max(100).optional(),
    approvalNotes: z.string().max(10_000).nullable().optional(),
  });
export type RampStepInput = z.infer<ReturnType<typeof stepInput<typeof actionInput>>>;

const endConditionInput = z.strictObject({
  trigger: z.strictObject({ type: z.literal('scheduled'), at: dateTime }).optional(),
});
export type RampEndConditionInput = z.infer<typeof endConditionInput>;

const name = z.string().trim().min(1).max(256);
const MAX_STEPS = 100;

export const createRampScheduleBody = z.strictObject({
  name,
  featureId: shortId.optional(),
  ruleId: shortId.optional(),
  environment: shortId.optional(),
  steps: z.array(stepInput(actionInput)).max(MAX_STEPS).optional(),
  endActions: z.array(actionInput).max(100).optional(),
  startDate: dateTime.nullable().optional(),
  endCondition: endConditionInput.optional(),
  templateId: shortId.optional(),
});
export type CreateRampScheduleBody = z.infer<typeof createRampScheduleBody>;

export const updateRampScheduleBody = z.strictObject({
  name: name.optional(),
  steps: z.array(stepInput(putActionInput)).max(MAX_STEPS).optional(),
  endActions: z.array(putActionInput).max(100).optional(),
  startDate: dateTime.nullable().optional(),
  endCondition: endConditionInput.nullable().optional(),
});
export type UpdateRampScheduleBody = z.infer<typeof updateRampScheduleBody>;

export const addTargetBody = z.strictObject({ featureId: shortId, ruleId: shortId, environment: shortId.optional() });
export type AddTargetBody = z.infer<typeof addTargetBody>;

export const ejectTargetBody = z.strictObject({
  targetId: shortId.optional(),
  ruleId: shortId.optional(),
  environment: shortId.optional(),
});
export type EjectTargetBody = z.infer<typeof ejectTargetBody>;

export const jumpBody = z.strictObject({ targetStepIndex: z.number().int().min(-1) });

// ---- Endpoints ----

const tag = 'ramp-schedules';
const rampScheduleResponse = z.object({ rampSchedule });

export const listRampSchedules = defineEndpoint({
  operationId: 'listRampSchedules',
  method: 'GET',
  path: '/ramp-schedules',
  summary: 'List ramp schedules',
  tag,
  permission: 'read',
  query: paginationQuery.extend({ featureId: shortId.optional(), status: z.enum(rampStatuses).optional() }),
  response: z.object({ rampSchedules: z.array(rampSchedule) }).extend(paginationFields.shape),
});

export const createRampSchedule = defineEndpoint({
  operationId: 'createRampSchedule',
  method: 'POST',
  path: '/ramp-schedules',
  summary: 'Create a ramp schedule, optionally controlling one feature rule',
  tag,
  permission: 'write',
  projectScoped: true,
  body: createRampScheduleBody,
  response: rampScheduleResponse,
});

export const getRampSchedule = defineEndpoint({
  operationId: 'getRampSchedule',
  method: 'GET',
  path: '/ramp-schedules/{id}',
  summary: 'Get a ramp schedule',
  tag,
  permission: 'read',
  params: idParams,
  response: rampScheduleResponse,
});

export const updateRampSchedule = defineEndpoint({
  operationId: 'updateRampSchedule',
  method: 'PUT',
  path: '/ramp-schedules/{id}',
  summary: 'Change the name, steps, end actions, start date or end condition of a ramp schedule that is not running',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: updateRampScheduleBody,
  response: rampScheduleResponse,
});

export const deleteRampSchedule = defineEndpoint({
  operationId: 'deleteRampSchedule',
  method: 'DELETE',
  path: '/ramp-schedules/{id}',
  summary: 'Delete a ramp schedule that is not running (applied rule changes stay)',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

/** A body-less lifecycle action answering `{rampSchedule}`. */
const lifecycleAction = <const Id extends string>(operationId: Id, action: string, summary: string) =>
  defineEndpoint({
    operationId,
    method: 'POST',
    path: `/ramp-schedules/{id}/actions/${action}`,
    summary,
    tag,
    permission: 'write',
    projectScoped: true,
    params: idParams,
    response: rampScheduleResponse,
  });

export const startRampSchedule = lifecycleAction('startRampSchedule', 'start', 'Start a ready ramp schedule: enter step 0 now');
export const pauseRampSchedule = lifecycleAction('pauseRampSchedule', 'pause', 'Pause a running ramp schedule');
export const resumeRampSchedule = lifecycleAction(
  'resumeRampSchedule',
  'resume',
  'Resume a paused ramp schedule; pending times move later by the pause length',
);
export const rollbackRampSchedule = lifecycleAction(
  'rollbackRampSchedule',
  'rollback',
  'Restore every target rule to its state at start and end the schedule',
);
export const completeRampSchedule = lifecycleAction(
  'completeRampSchedule',
  'complete',
  'Apply every remaining step and the end actions now',
);

export const jumpRampSchedule = defineEndpoint({
  operationId: 'jumpRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/jump',
  summary: 'Bring the target rules to the state of one step (-1: the state at start) and pause',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: jumpBody,
  response: rampScheduleResponse,
});

export const approveStepRampSchedule = defineEndpoint({
  operationId: 'approveStepRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/approve-step',
  summary: 'Approve the step a ramp schedule waits on and move to the next one',
  tag,
  // Checked again by the handler against the project of the schedule's feature.
  permission: 'review',
  projectScoped: true,
  params: idParams,
  response: rampScheduleResponse,
});

export const addTargetRampSchedule = defineEndpoint({
  operationId: 'addTargetRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/add-target',
  summary: 'Let a ramp schedule control one more rule of its feature',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: addTargetBody,
  response: rampScheduleResponse,
});

export const ejectTargetRampSchedule = defineEndpoint({
  operationId: 'ejectTargetRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/eject-target',
  summary: 'Release a rule from a ramp schedule; releasing the last one deletes the schedule',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: ejectTargetBody,
  response: z.union([
    rampScheduleResponse,
    z.object({ deleted: z.boolean(), rampScheduleId: z.string() }),
  ]),
});

/** Every ramp-schedule endpoint. */
export const rampScheduleEndpointSpecs = [
  listRampSchedules,
  createRampSchedule,
  getRampSchedule,
  updateRampSchedule,
  deleteRampSchedule,
  startRampSchedule,
  pauseRampSchedule,
  resumeRampSchedule,
  jumpRampSchedule,
  completeRampSchedule,
  rollbackRampSchedule,
  approveStepRampSchedule,
  addTargetRampSchedule,
  ejectTargetRampSchedule,
];

export const rampScheduleEndpoints: EndpointSpec[] = rampScheduleEndpointSpecs;
