import * as z from './zod';
import { defineEndpoint, type EndpointSpec } from './spec';
import { idParams } from './common';
import { lockdownConfig, rampSchedule } from './ramp-schedules';

/**
 * GrowthBook 5's ramp-schedule operations beside the lifecycle actions of ramp-schedules.ts: advance,
 * restart, the steps' timing and the lockdown. (Monitoring, its status and its actions are elsewhere.)
 */

const tag = 'ramp-schedules';
const rampScheduleResponse = z.object({ rampSchedule });
/** Ten years, as the step triggers of ramp-schedules.ts: longer intervals are mistakes. */
const MAX_INTERVAL_SECONDS = 10 * 365 * 24 * 3600;

export const advanceBody = z.strictObject({
  reason: z.optional(z.string().check(z.maxLength(10_000))),
  force: z.optional(z.boolean()),
});

export const apiAdvanceRampSchedule = defineEndpoint({
  operationId: 'apiAdvanceRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/advance',
  summary: 'Advance to the next step now, overriding its time; a paused schedule is resumed (force: true passes an approval)',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: z.optional(advanceBody),
  response: rampScheduleResponse,
});

export const restartRampSchedule = defineEndpoint({
  operationId: 'restartRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/restart',
  summary: 'Restart a completed or rolled-back ramp schedule from its first step',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  response: rampScheduleResponse,
});

/** A step as PUT /steps gives it: its timing and gates, never its actions (those stay per position). */
export const stepTimingInput = z.strictObject({
  interval: z.nullable(z.number().check(z.positive(), z.lte(MAX_INTERVAL_SECONDS))),
  monitored: z.optional(z.boolean()),
  holdConditions: z.optional(
    z.strictObject({
      minSampleSize: z.optional(z.number().check(z.int(), z.positive())),
      requiresApproval: z.optional(z.boolean()),
    }),
  ),
  approvalNotes: z.optional(z.nullable(z.string().check(z.maxLength(10_000)))),
});
export type StepTimingInput = z.infer<typeof stepTimingInput>;

export const updateStepsBody = z.strictObject({ steps: z.array(stepTimingInput).check(z.maxLength(100)) });

export const updateRampScheduleSteps = defineEndpoint({
  operationId: 'updateRampScheduleSteps',
  method: 'PUT',
  path: '/ramp-schedules/{id}/steps',
  summary: "Replace the steps' timing and gates of a schedule that is not running; each position keeps its actions",
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: updateStepsBody,
  response: rampScheduleResponse,
});

export const updateRampScheduleLockdown = defineEndpoint({
  operationId: 'updateRampScheduleLockdown',
  method: 'PUT',
  path: '/ramp-schedules/{id}/lockdown',
  summary: "Set the lockdown: `locked` refuses other writes to the schedule's feature while it runs",
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: lockdownConfig,
  // As GrowthBook 5: the schedule itself, not wrapped.
  response: rampSchedule,
});

/** Every endpoint of this file. */
export const rampScheduleOpsEndpoints: EndpointSpec[] = [apiAdvanceRampSchedule, restartRampSchedule, updateRampScheduleSteps, updateRampScheduleLockdown];
