import * as z from './zod';
import { defineEndpoint, type EndpointSpec } from './spec';
import { dateInput, deletedResponse, idParams, paginationFields, paginationQuery } from './common';
import { jsonCondition } from './saved-groups';
import { monitoringConfig, monitoringConfigInput, monitoringStatus } from './ramp-monitoring';

/**
 * The statuses a schedule is stored with. `pending-approval` is Switchyard's own (kept from the seed-era
 * shape): GrowthBook 5 answers it as `running` with `awaitingApproval: true` (see `apiRampStatuses`).
 */
export const rampStatuses = ['pending', 'ready', 'running', 'paused', 'pending-approval', 'completed', 'rolled-back'] as const;
export type RampStatus = (typeof rampStatuses)[number];
/** The statuses GrowthBook 5 answers. */
export const apiRampStatuses = ['pending', 'ready', 'running', 'paused', 'completed', 'rolled-back'] as const;
export type ApiRampStatus = (typeof apiRampStatuses)[number];

// ---- Shapes as the API answers them ----

const savedGroupsPatch = z.array(z.object({ match: z.enum(['all', 'none', 'any']), ids: z.array(z.string()) }));
const prerequisitesPatch = z.array(z.object({ id: z.string(), condition: z.string() }));

/** A sparse change to one feature rule: an absent key leaves the field alone, `null` clears it to its default (see `applyRulePatch`). */
export const rulePatch = z.object({
  ruleId: z.string(),
  coverage: z.optional(z.nullable(z.number())),
  condition: z.optional(z.nullable(z.string())),
  savedGroups: z.optional(z.nullable(savedGroupsPatch)),
  prerequisites: z.optional(z.nullable(prerequisitesPatch)),
  force: z.optional(z.unknown()),
  enabled: z.optional(z.nullable(z.boolean())),
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

/**
 * A step as it is stored: one trigger (an interval, an approval or a date), and with an interval or a
 * date, optionally an approval once that time has come (GrowthBook 5's interval + `requiresApproval`).
 * Answered as `apiRampStep`.
 */
export const rampStep = z.object({
  trigger: rampTrigger,
  actions: z.array(rampAction),
  approvalNotes: z.optional(z.nullable(z.string())),
  /** Backed by an analysis of the rule as an experiment; see shared/domain/ramp-monitoring.ts. */
  monitored: z.optional(z.boolean()),
  /** Only `{requiresApproval: true}`, only beside an interval or dated trigger: the step then waits for approve-step once its time is over. */
  holdConditions: z.optional(z.object({ requiresApproval: z.literal(true) })),
});
export type RampStep = z.infer<typeof rampStep>;

/** GrowthBook 5's gates of a step beyond its time hold. */
export const holdConditions = z.object({
  minSampleSize: z.optional(z.int()),
  requiresApproval: z.optional(z.boolean()),
});

/** A step as GrowthBook 5 answers it: `interval` seconds of time hold (null: none), then `holdConditions`. */
export const apiRampStep = z.object({
  interval: z.nullable(z.number()),
  actions: z.array(rampAction),
  approvalNotes: z.optional(z.nullable(z.string())),
  monitored: z.optional(z.boolean()),
  holdConditions: z.optional(holdConditions),
});
export type ApiRampStep = z.infer<typeof apiRampStep>;

export const rampTarget = z.object({
  id: z.string(),
  entityType: z.literal('feature'),
  entityId: z.string(),
  ruleId: z.optional(z.nullable(z.string())),
  environment: z.optional(z.nullable(z.string())),
  status: z.enum(['pending-join', 'active']),
  activatingRevisionVersion: z.optional(z.nullable(z.int())),
});
export type RampTarget = z.infer<typeof rampTarget>;

export const rampEndCondition = z.object({
  trigger: z.optional(z.object({ type: z.literal('scheduled'), at: z.string() })),
});
export type RampEndCondition = z.infer<typeof rampEndCondition>;

/** GrowthBook 5's lockdown: `locked` refuses other writes to the schedule's feature while it runs. */
export const lockdownConfig = z.strictObject({ mode: z.enum(['none', 'locked']) });
export type LockdownConfig = z.infer<typeof lockdownConfig>;

/** A ramp schedule as GrowthBook 5.0.1 answers it (its `RampSchedule`); see `toApiRampSchedule`. */
export const rampSchedule = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  entityType: z.literal('feature'),
  entityId: z.string(),
  targets: z.array(rampTarget),
  steps: z.array(apiRampStep),
  endActions: z.optional(z.array(rampAction)),
  startDate: z.optional(z.nullable(z.string())),
  cutoffDate: z.optional(z.nullable(z.string())),
  status: z.enum(apiRampStatuses),
  currentStepIndex: z.number().check(z.int(), z.gte(-1)),
  startedAt: z.optional(z.nullable(z.string())),
  phaseStartedAt: z.optional(z.nullable(z.string())),
  pausedAt: z.optional(z.nullable(z.string())),
  nextStepAt: z.nullable(z.string()),
  nextProcessAt: z.optional(z.nullable(z.string())),
  elapsedMs: z.optional(z.nullable(z.int())),
  lockdownConfig: z.optional(lockdownConfig),
  monitoringConfig: z.optional(z.nullable(monitoringConfig)),
  currentStepEnteredAt: z.optional(z.nullable(z.string())),
  /** Computed when answered: an approval is what the schedule waits on now. */
  awaitingApproval: z.boolean(),
  monitoringStartDate: z.optional(z.nullable(z.string())),
  lastRollbackAt: z.optional(z.nullable(z.string())),
  lastRollbackReason: z.optional(z.nullable(z.string())),
  monitoringStatus: z.optional(z.nullable(monitoringStatus)),
});
export type RampSchedule = z.infer<typeof rampSchedule>;

// ---- Request bodies ----

const dateTime = dateInput;
const shortId = z.string().check(z.minLength(1), z.maxLength(256));
/** A rule condition: a JSON object as a string, or empty for none. */
const ruleCondition = z.union([z.literal(''), jsonCondition]);
/** Ten years: longer intervals are mistakes, and keep every computed date representable. */
const MAX_INTERVAL_SECONDS = 10 * 365 * 24 * 3600;

const triggerInput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('interval'), seconds: z.number().check(z.positive(), z.lte(MAX_INTERVAL_SECONDS)) }),
  z.strictObject({ type: z.literal('approval') }),
  z.strictObject({ type: z.literal('scheduled'), at: dateTime }),
]);

const patchFields = {
  coverage: z.optional(z.nullable(z.number().check(z.gte(0), z.lte(1)))),
  condition: z.optional(z.nullable(ruleCondition)),
  savedGroups: z.optional(
    z.nullable(
      z
        .array(z.strictObject({ match: z.enum(['all', 'none', 'any']), ids: z.array(shortId).check(z.maxLength(100)) }))
        .check(z.maxLength(100)),
    ),
  ),
  prerequisites: z.optional(z.nullable(z.array(z.strictObject({ id: shortId, condition: ruleCondition })).check(z.maxLength(100)))),
  force: z.optional(z.unknown()),
  enabled: z.optional(z.nullable(z.boolean())),
};

/**
 * An action as a request gives it. `targetId` may be left out or be `t1` when the schedule has one
 * active target; `patch.ruleId` may be left out (the target's rule is filled in), except in PUT,
 * where the reference requires it.
 */
const patchInput = z.strictObject({ ruleId: z.optional(shortId), ...patchFields });
const actionInput = z.strictObject({
  targetType: z.optional(z.literal('feature-rule')),
  targetId: z.optional(shortId),
  patch: patchInput,
});
export type RampActionInput = z.infer<typeof actionInput>;
const putActionInput = z.extend(actionInput, { patch: z.extend(patchInput, { ruleId: shortId }) });

/** GrowthBook 5's step gates as a request gives them. */
export const holdConditionsInput = z.strictObject({
  minSampleSize: z.optional(z.number().check(z.int(), z.positive())),
  requiresApproval: z.optional(z.boolean()),
});

/**
 * A step as a request gives it: GrowthBook 5's `interval` (+ `holdConditions`), or the seed-era
 * `trigger` (which takes `holdConditions` too); one of the two, checked when the schedule is built (400 naming the field).
 */
const stepInput = <A extends z.ZodMiniType<RampActionInput>>(action: A) =>
  z.strictObject({
    interval: z.optional(z.nullable(z.number().check(z.positive(), z.lte(MAX_INTERVAL_SECONDS)))),
    holdConditions: z.optional(holdConditionsInput),
    trigger: z.optional(triggerInput),
    actions: z.optional(z.array(action).check(z.maxLength(100))),
    approvalNotes: z.optional(z.nullable(z.string().check(z.maxLength(10_000)))),
    monitored: z.optional(z.boolean()),
  });
export type RampStepInput = z.infer<ReturnType<typeof stepInput<typeof actionInput>>>;

const endConditionInput = z.strictObject({
  trigger: z.optional(z.strictObject({ type: z.literal('scheduled'), at: dateTime })),
});
export type RampEndConditionInput = z.infer<typeof endConditionInput>;

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const MAX_STEPS = 100;

export const createRampScheduleBody = z.strictObject({
  name,
  featureId: z.optional(shortId),
  ruleId: z.optional(shortId),
  environment: z.optional(shortId),
  steps: z.optional(z.array(stepInput(actionInput)).check(z.maxLength(MAX_STEPS))),
  endActions: z.optional(z.array(actionInput).check(z.maxLength(100))),
  startDate: z.optional(z.nullable(dateTime)),
  /** GrowthBook 5's spelling of the end condition's date; give one or the other. */
  cutoffDate: z.optional(z.nullable(dateTime)),
  endCondition: z.optional(endConditionInput),
  templateId: z.optional(shortId),
  lockdownConfig: z.optional(lockdownConfig),
  monitoringConfig: z.optional(z.nullable(monitoringConfigInput)),
});
export type CreateRampScheduleBody = z.infer<typeof createRampScheduleBody>;

export const updateRampScheduleBody = z.strictObject({
  name: z.optional(name),
  steps: z.optional(z.array(stepInput(putActionInput)).check(z.maxLength(MAX_STEPS))),
  endActions: z.optional(z.array(putActionInput).check(z.maxLength(100))),
  startDate: z.optional(z.nullable(dateTime)),
  cutoffDate: z.optional(z.nullable(dateTime)),
  endCondition: z.optional(z.nullable(endConditionInput)),
  monitoringConfig: z.optional(z.nullable(monitoringConfigInput)),
});
export type UpdateRampScheduleBody = z.infer<typeof updateRampScheduleBody>;

export const addTargetBody = z.strictObject({ featureId: shortId, ruleId: shortId, environment: z.optional(shortId) });
export type AddTargetBody = z.infer<typeof addTargetBody>;

export const ejectTargetBody = z.strictObject({
  targetId: z.optional(shortId),
  ruleId: z.optional(shortId),
  environment: z.optional(shortId),
});
export type EjectTargetBody = z.infer<typeof ejectTargetBody>;

export const jumpBody = z.strictObject({ targetStepIndex: z.number().check(z.int(), z.gte(-1)) });

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
  projectScoped: true,
  query: z.extend(paginationQuery, { featureId: z.optional(shortId), status: z.optional(z.enum(rampStatuses)) }),
  response: z.extend(z.object({ rampSchedules: z.array(rampSchedule) }), paginationFields.shape),
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
  projectScoped: true,
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
