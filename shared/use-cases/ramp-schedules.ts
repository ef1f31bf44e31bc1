import * as contract from '../contracts/ramp-schedules';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { paginated } from '../domain/pagination';
import { addTarget, assertDeletable, assertForcedValuesFit, ejectTarget, newRampSchedule, updateDefinition } from '../domain/ramp-definition';
import { rampEnvironments, toApiRampSchedule } from '../domain/ramp-schedule';
import { withTemplate } from '../domain/ramp-steps';
import { newId } from '../ids';
import { rampScheduleTemplates } from '../store/ramp-schedule-templates';
import { featureIds, features } from '../store/features';
import { actOnRampSchedule, changeRampSchedule, type RampActor, insertRampSchedule, rampActor, rampListFilter, rampSchedules } from '../store/ramp-schedules';
import type { ListVisibility } from '../db/repository';
import { canRead, readsEverywhere, type Principal } from '../permissions';
import { projectOf, readableOr404, visibleTo } from './read-access';
import { assertMonitoringReferences } from './ramp-monitoring';
import { assertConfigChangeAllowed, replan } from '../domain/ramp-monitoring';

/**
 * Which schedules a caller who may not read every project sees: those of the features it may read (one keys-only
 * Query of the features' list index), and those without a feature when it reads somewhere.
 */
async function visibleSchedules(auth: Principal): Promise<ListVisibility | undefined> {
  const visible = visibleTo(auth);
  if (!visible) return undefined;
  const readable = new Set(await featureIds(auth.orgId, { all: [], visible }));
  return (tags) => {
    const feature = tags.find((tag) => tag.startsWith('feature:'))?.slice('feature:'.length);
    return feature ? readable.has(feature) : canRead(auth);
  };
}

/** `POST /ramp-schedules/{id}/actions/add-target`: let a ramp schedule control one more rule of its feature. */
export async function addTargetRampSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.addTargetRampSchedule>): UseCaseOutput<typeof contract.addTargetRampSchedule> {
  const actor = rampActor(auth, contract.addTargetRampSchedule.permission, true);
  const targetId = newId('rt_');
  const updated = await changeRampSchedule(
    auth.orgId,
    params.id,
    actor,
    (schedule, feature) => {
      // The feature read is the one the body names: a schedule without a feature yet takes it on.
      actor.assertAllowed(feature);
      return addTarget(schedule, body, { targetId, feature });
    },
    { featureId: body.featureId },
  );
  return { rampSchedule: toApiRampSchedule(updated!, new Date()) };
}

// Review, not just write, on the project of the schedule's feature (BEHAVIOR.md).
/** `POST /ramp-schedules/{id}/actions/approve-step`: approve the step a ramp schedule waits on and move to the next one. */
export async function approveStepRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.approveStepRampSchedule>): UseCaseOutput<typeof contract.approveStepRampSchedule> {
  const actor = rampActor(auth, contract.approveStepRampSchedule.permission, true);
  // As GrowthBook's approveAndPublishStep: publishing every environment of the feature, not only the target rules'.
  const everyEnvironment: RampActor = {
    ...actor,
    assertMayPublish: (feature, environments) => actor.assertMayPublish(feature, [...new Set([...environments, ...Object.keys(feature?.environments ?? {})])]),
  };
  const schedule = await actOnRampSchedule(auth.orgId, params.id, everyEnvironment, { type: 'approve-step' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `POST /ramp-schedules/{id}/actions/complete`: apply every remaining step and the end actions now. */
export async function completeRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.completeRampSchedule>): UseCaseOutput<typeof contract.completeRampSchedule> {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, contract.completeRampSchedule.permission, true), { type: 'complete' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `POST /ramp-schedules`: create a ramp schedule, optionally controlling one feature rule. */
export async function createRampSchedule({
  body,
  auth,
}: UseCaseInput<typeof contract.createRampSchedule>): UseCaseOutput<typeof contract.createRampSchedule> {
  const [feature, template] = await Promise.all([
    body.featureId === undefined ? undefined : features.find(auth.orgId, body.featureId),
    body.templateId === undefined ? undefined : rampScheduleTemplates.find(auth.orgId, body.templateId),
  ]);
  const actor = rampActor(auth, contract.createRampSchedule.permission, true);
  actor.assertAllowed(feature);
  // An unknown template stays in the body: newRampSchedule answers 400 naming it.
  const schedule = newRampSchedule(template ? withTemplate(body, template) : body, { id: newId('rs_'), targetId: newId('rt_'), organization: auth.orgId, feature });
  actor.assertMayPublish(feature, rampEnvironments(schedule, feature));
  if (feature) assertForcedValuesFit(schedule, feature.valueType);
  await assertMonitoringReferences(auth.orgId, schedule.monitoringConfig);
  const created = await insertRampSchedule(auth.orgId, schedule);
  return { rampSchedule: toApiRampSchedule(created, new Date()) };
}

// The rules keep whatever state the schedule left them in; only the schedule and its rule locks go.
/** `DELETE /ramp-schedules/{id}`: delete a ramp schedule that is not running (applied rule changes stay). */
export async function deleteRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteRampSchedule>): UseCaseOutput<typeof contract.deleteRampSchedule> {
  await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.deleteRampSchedule.permission), (schedule) => {
    assertDeletable(schedule);
    return { deleted: true };
  });
  return { deletedId: params.id };
}

// The rule keeps its current state. Ejecting the last target deletes the schedule.
/** `POST /ramp-schedules/{id}/actions/eject-target`: release a rule from a ramp schedule; releasing the last one deletes the schedule. */
export async function ejectTargetRampSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.ejectTargetRampSchedule>): UseCaseOutput<typeof contract.ejectTargetRampSchedule> {
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.ejectTargetRampSchedule.permission), (schedule) => {
    const result = ejectTarget(schedule, body);
    return 'deleted' in result ? result : { schedule: result.schedule, writes: [], comment: '' };
  });
  return updated ? { rampSchedule: toApiRampSchedule(updated, new Date()) } : { deleted: true, rampScheduleId: params.id };
}

/** `GET /ramp-schedules/{id}`: get a ramp schedule. */
export async function getRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.getRampSchedule>): UseCaseOutput<typeof contract.getRampSchedule> {
  const schedule = await rampSchedules.get(auth.orgId, params.id);
  // A schedule is in the project of its feature (none without one); a caller who reads every project needs no look.
  if (!readsEverywhere(auth)) {
    const feature = schedule.entityId ? await features.find(auth.orgId, schedule.entityId) : undefined;
    readableOr404(auth, schedule, feature ? projectOf(feature) : [], 'Ramp schedule', params.id);
  }
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `POST /ramp-schedules/{id}/actions/jump`: bring the target rules to the state of one step (-1: the state at start) and pause. */
export async function jumpRampSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.jumpRampSchedule>): UseCaseOutput<typeof contract.jumpRampSchedule> {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, contract.jumpRampSchedule.permission, true), {
    type: 'jump',
    targetStepIndex: body.targetStepIndex,
  });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `GET /ramp-schedules`: list ramp schedules. */
export async function listRampSchedules({
  query,
  auth,
}: UseCaseInput<typeof contract.listRampSchedules>): UseCaseOutput<typeof contract.listRampSchedules> {
  const page = await rampSchedules.list(auth.orgId, { limit: query.limit, offset: query.offset, tags: rampListFilter(query), visible: await visibleSchedules(auth) });
  const now = new Date();
  return paginated('rampSchedules', { items: page.items.map((schedule) => toApiRampSchedule(schedule, now)), total: page.total }, query);
}

/** `POST /ramp-schedules/{id}/actions/pause`: pause a running ramp schedule. */
export async function pauseRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.pauseRampSchedule>): UseCaseOutput<typeof contract.pauseRampSchedule> {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, contract.pauseRampSchedule.permission), { type: 'pause' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `POST /ramp-schedules/{id}/actions/resume`: resume a paused ramp schedule; pending times move later by the pause length. */
export async function resumeRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.resumeRampSchedule>): UseCaseOutput<typeof contract.resumeRampSchedule> {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, contract.resumeRampSchedule.permission, true), { type: 'resume' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `POST /ramp-schedules/{id}/actions/rollback`: restore every target rule to its state at start and end the schedule. */
export async function rollbackRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.rollbackRampSchedule>): UseCaseOutput<typeof contract.rollbackRampSchedule> {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, contract.rollbackRampSchedule.permission, true), { type: 'rollback' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `POST /ramp-schedules/{id}/actions/start`: start a ready ramp schedule: enter step 0 now. */
export async function startRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.startRampSchedule>): UseCaseOutput<typeof contract.startRampSchedule> {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, contract.startRampSchedule.permission, true), { type: 'start' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
}

/** `PUT /ramp-schedules/{id}`: change the name, steps, end actions, start date or end condition of a ramp schedule that is not running. */
export async function updateRampSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateRampSchedule>): UseCaseOutput<typeof contract.updateRampSchedule> {
  if (body.monitoringConfig) {
    // The schedule first: another organization's id is a 404, whatever the config names.
    await rampSchedules.get(auth.orgId, params.id);
    await assertMonitoringReferences(auth.orgId, body.monitoringConfig);
  }
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.updateRampSchedule.permission, true), (schedule, feature) => {
    const next = updateDefinition(schedule, body, feature ? [feature] : []);
    if (feature) assertForcedValuesFit(next, feature.valueType);
    if (body.monitoringConfig !== undefined) assertConfigChangeAllowed(schedule, next.monitoringConfig ?? null);
    return { schedule: body.monitoringConfig !== undefined ? replan(next, Date.now()) : next, writes: [], comment: '' };
  });
  return { rampSchedule: toApiRampSchedule(updated!, new Date()) };
}
