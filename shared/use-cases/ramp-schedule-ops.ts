import * as contract from '../contracts/ramp-schedule-ops';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { UnresolvedConflictError } from '../errors';
import { assertCan } from '../permissions';
import { act, apiRampStatus, apiRampSteps, awaitsApproval, toApiRampSchedule, type RampScheduleRecord } from '../domain/ramp-schedule';
import { replaceStepTimings } from '../domain/ramp-steps';
import { newEvent, type DomainEvent } from '../store/events';
import { changeRampSchedule, rampActor } from '../store/ramp-schedules';

/** An event about a schedule, with the fields GrowthBook's ramp events carry. */
const rampEvent = (orgId: string, schedule: RampScheduleRecord, event: string, data: Record<string, unknown> = {}): DomainEvent =>
  newEvent(orgId, event, { type: 'rampSchedule', id: schedule.id }, {
    rampScheduleId: schedule.id,
    rampName: schedule.name,
    currentStepIndex: schedule.currentStepIndex,
    status: apiRampStatus(schedule.status),
    ...data,
  });

/**
 * `POST /ramp-schedules/{id}/actions/advance`: the next step now, as GrowthBook 5's apiAdvanceRampSchedule
 * (a paused schedule is resumed; an approval is passed only with `force`, which needs bypassApprovalChecks).
 * The step is pinned to the one first read: when the advancer (or another caller) moves the schedule on
 * meanwhile, this answers 409 instead of skipping a step nobody looked at.
 */
export async function apiAdvanceRampSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.apiAdvanceRampSchedule>): UseCaseOutput<typeof contract.apiAdvanceRampSchedule> {
  const force = body?.force ?? false;
  let pinned: number | undefined;
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.apiAdvanceRampSchedule.permission, true), (schedule, feature) => {
    pinned ??= schedule.currentStepIndex;
    if (schedule.currentStepIndex !== pinned) {
      throw new UnresolvedConflictError(`Cannot advance ramp schedule ${schedule.id}: it advanced while the request was in flight`);
    }
    const bypassed = force && awaitsApproval(schedule);
    if (bypassed) assertCan(auth, 'bypassApprovalChecks', feature?.project ? [feature.project] : []);
    const transition = act(schedule, { type: 'advance', force }, new Date(), feature ? [feature] : []);
    const next = transition.schedule;
    const reason = body?.reason !== undefined ? { reason: body.reason } : {};
    const moved = { previousStepIndex: schedule.currentStepIndex, ...reason };
    const events = [rampEvent(auth.orgId, next, next.status === 'completed' ? 'rampSchedule.actions.completed' : 'rampSchedule.actions.step.advanced', moved)];
    if (bypassed) events.push(rampEvent(auth.orgId, next, 'rampSchedule.approval-bypassed', { stepIndex: schedule.currentStepIndex, ...reason }));
    return { ...transition, events };
  });
  return { rampSchedule: toApiRampSchedule(updated!, new Date()) };
}

/** `POST /ramp-schedules/{id}/actions/restart`: a completed or rolled-back schedule back to its first step and running (GrowthBook 5's restart). */
export async function restartRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.restartRampSchedule>): UseCaseOutput<typeof contract.restartRampSchedule> {
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.restartRampSchedule.permission, true), (schedule, feature) => {
    const transition = act(schedule, { type: 'restart' }, new Date(), feature ? [feature] : []);
    // GrowthBook's restart announces itself as a start.
    const started = rampEvent(auth.orgId, transition.schedule, 'rampSchedule.actions.started', {
      restarted: true,
      previousStatus: schedule.status,
    });
    return { ...transition, events: [started] };
  });
  return { rampSchedule: toApiRampSchedule(updated!, new Date()) };
}

/** `PUT /ramp-schedules/{id}/steps`: the steps' timing and gates replaced; each position keeps its actions. */
export async function updateRampScheduleSteps({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateRampScheduleSteps>): UseCaseOutput<typeof contract.updateRampScheduleSteps> {
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.updateRampScheduleSteps.permission, true), (schedule, feature) => {
    const next = replaceStepTimings(schedule, body.steps, feature ? [feature] : []);
    const now = new Date();
    const timings = (of: RampScheduleRecord) => apiRampSteps(of, now).map(({ interval, holdConditions }) => ({ interval, ...(holdConditions ? { holdConditions } : {}) }));
    const event = rampEvent(auth.orgId, next, 'rampSchedule.update', { changes: { steps: { before: timings(schedule), after: timings(next) } } });
    return { schedule: next, writes: [], comment: '', events: [event] };
  });
  return { rampSchedule: toApiRampSchedule(updated!, new Date()) };
}

/** `PUT /ramp-schedules/{id}/lockdown`: set the lockdown, in any status; answers the schedule itself, as GrowthBook 5. */
export async function updateRampScheduleLockdown({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateRampScheduleLockdown>): UseCaseOutput<typeof contract.updateRampScheduleLockdown> {
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.updateRampScheduleLockdown.permission), (schedule) => {
    const next = { ...structuredClone(schedule), lockdownConfig: { mode: body.mode } };
    const event = rampEvent(auth.orgId, next, 'rampSchedule.update', {
      changes: { lockdownConfig: { before: schedule.lockdownConfig ?? { mode: 'none' }, after: next.lockdownConfig } },
    });
    return { schedule: next, writes: [], comment: '', events: [event] };
  });
  return toApiRampSchedule(updated!, new Date());
}
