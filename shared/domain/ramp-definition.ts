/**
 * A ramp schedule's definition, without I/O: creating one, PUT, adding and ejecting targets,
 * deleting, and the `t1` targetId shorthand. The lifecycle lives in `ramp-schedule.ts`.
 */
import { ConflictError, InvalidInputError } from '../errors';
import type {
  AddTargetBody,
  CreateRampScheduleBody,
  EjectTargetBody,
  RampAction,
  RampActionInput,
  RampEndCondition,
  RampEndConditionInput,
  RampStep,
  RampStepInput,
  RampTarget,
  RampTrigger,
  UpdateRampScheduleBody,
} from '../contracts/ramp-schedules';
import type { ValueType } from '../contracts/features';
import { decodeValue } from './features';
import { captureRuleState, forceToValue, locateRule, type RampableFeature } from './ramp-rules';
import { assertMonitoringFits, normalizeMonitoringConfig } from './ramp-monitoring';
import {
  activeTargets,
  assertStatus,
  editableStatuses,
  leaveTime,
  patchMisfits,
  releasableStatuses,
  targetRules,
  type RampScheduleRecord,
  type Transition,
} from './ramp-schedule';

/** A new schedule as the store creates it (the store adds the dates). */
export type NewRampSchedule = Omit<RampScheduleRecord, 'dateCreated' | 'dateUpdated'>;

const normalizeDate = (date: string) => new Date(date).toISOString();

/**
 * Binds each action to a target: a missing `targetId` or `t1` means the only active target (400
 * when there are none or several); an explicit id must name a target of the schedule (400).
 * `patch.ruleId` defaults to the target's rule and must match it.
 */
export function resolveActions(actions: RampActionInput[], targets: RampTarget[], path: string): RampAction[] {
  return actions.map((action, i) => {
    const at = `${path}.${i}`;
    let target = targets.find((candidate) => candidate.id === action.targetId);
    if (!target && (action.targetId === undefined || action.targetId === 't1')) {
      const active = targets.filter((candidate) => candidate.status === 'active');
      if (active.length !== 1) {
        throw new InvalidInputError(
          `Request body: [${at}.targetId] name the target: the schedule has ${active.length} active targets, so it cannot be left out or be t1`,
        );
      }
      target = active[0];
    }
    if (!target) throw new InvalidInputError(`Request body: [${at}.targetId] the schedule has no target ${action.targetId}`);
    const ruleId = target.ruleId ?? '';
    if (action.patch.ruleId !== undefined && action.patch.ruleId !== ruleId) {
      throw new InvalidInputError(`Request body: [${at}.patch.ruleId] target ${target.id} controls rule ${ruleId}, not ${action.patch.ruleId}`);
    }
    return { targetType: 'feature-rule', targetId: target.id, patch: { ...action.patch, ruleId } };
  });
}

const normalizeTrigger = (trigger: RampTrigger): RampTrigger =>
  trigger.type === 'scheduled' ? { type: 'scheduled', at: normalizeDate(trigger.at) } : trigger;

/** How a step waits, as stored: its trigger, and with an interval or a date, an approval once the time is over. */
export type StepTiming = Pick<RampStep, 'trigger' | 'holdConditions'>;

/**
 * How a GrowthBook 5 step waits: `interval` seconds, then (with `holdConditions.requiresApproval`) an
 * approval; `interval: null` with `requiresApproval` waits for the approval only. 400 at `path` for a
 * step with neither, or a sample-size gate. A monitored step keeps its timing; `monitored` is the callers'.
 */
export function timingOf(
  step: { interval: number | null; holdConditions?: { minSampleSize?: number; requiresApproval?: boolean } },
  path: string,
): StepTiming {
  if (step.holdConditions?.minSampleSize !== undefined) {
    throw new InvalidInputError(`${path}.holdConditions.minSampleSize] sample-size gates are not supported: a monitored step advances on its monitoring verdict`);
  }
  const approval = step.holdConditions?.requiresApproval === true;
  if (step.interval !== null) {
    return { trigger: { type: 'interval', seconds: step.interval }, ...(approval ? { holdConditions: { requiresApproval: true } } : {}) };
  }
  if (approval) return { trigger: { type: 'approval' } };
  throw new InvalidInputError(`${path}.interval] a step without an interval must require approval (holdConditions.requiresApproval: true)`);
}

/**
 * How a requested step waits: GrowthBook 5's `interval` and `holdConditions` (`timingOf`), or the
 * seed-era `trigger`, which takes `holdConditions` too (as GrowthBook 5 reads it: an approval once
 * the interval or date is over). 400 naming the field when a step gives both shapes or neither.
 */
function stepTimingOf(step: RampStepInput, path: string): StepTiming {
  if (!step.trigger) {
    if (step.interval === undefined) {
      throw new InvalidInputError(`Request body: [${path}.interval] is required: the seconds to hold the step, or null with holdConditions.requiresApproval`);
    }
    return timingOf({ interval: step.interval, holdConditions: step.holdConditions }, `Request body: [${path}`);
  }
  if (step.interval !== undefined) {
    throw new InvalidInputError(`Request body: [${path}.interval] give GrowthBook 5's interval, or the older trigger, not both`);
  }
  if (step.holdConditions?.minSampleSize !== undefined) {
    throw new InvalidInputError(`Request body: [${path}.holdConditions.minSampleSize] sample-size gates are not supported: a monitored step advances on its monitoring verdict`);
  }
  const trigger = normalizeTrigger(step.trigger);
  const approvalAfter = step.holdConditions?.requiresApproval === true && trigger.type !== 'approval';
  return { trigger, ...(approvalAfter ? { holdConditions: { requiresApproval: true } } : {}) };
}

function resolveSteps(steps: RampStepInput[], targets: RampTarget[]): RampStep[] {
  return steps.map((step, i) => ({
    ...stepTimingOf(step, `steps.${i}`),
    actions: resolveActions(step.actions ?? [], targets, `steps.${i}.actions`),
    ...(step.approvalNotes !== undefined ? { approvalNotes: step.approvalNotes } : {}),
    ...(step.monitored !== undefined ? { monitored: step.monitored } : {}),
  }));
}

const normalizeEndCondition = (condition: RampEndConditionInput): RampEndCondition =>
  condition.trigger ? { trigger: { type: 'scheduled', at: normalizeDate(condition.trigger.at) } } : {};

/**
 * The end condition a create or PUT body sets: GrowthBook 5's `cutoffDate` or the seed-era `endCondition`
 * (400 when both are given); `null` clears it, undefined leaves it.
 */
function endConditionOf(
  body: Pick<UpdateRampScheduleBody, 'cutoffDate' | 'endCondition'>,
): Pick<RampScheduleRecord, 'endCondition' | 'cutoffDisables'> | undefined {
  if (body.cutoffDate !== undefined && body.endCondition !== undefined) {
    throw new InvalidInputError('Request body: [endCondition] give cutoffDate (GrowthBook 5) or endCondition (older shape), not both');
  }
  if (body.cutoffDate === null || body.endCondition === null) return { endCondition: null };
  // GrowthBook 5's cutoff switches the rules off; the seed-era end condition only completes the ramp.
  if (body.cutoffDate !== undefined) return { endCondition: { trigger: { type: 'scheduled', at: normalizeDate(body.cutoffDate) } }, cutoffDisables: true };
  if (body.endCondition !== undefined) return { endCondition: normalizeEndCondition(body.endCondition) };
  return undefined;
}

/** 400 when a patch cannot apply to its target's rule type (coverage on a force rule, for example). */
function assertFits(schedule: Pick<RampScheduleRecord, 'steps' | 'endActions' | 'targets'>, features: RampableFeature[]): void {
  const misfits = patchMisfits(schedule, targetRules(schedule, features));
  if (misfits.length) throw new InvalidInputError(misfits.map((line) => `Request body: ${line}`).join('\n'));
}

/**
 * 400 when an action forces a value the feature's type cannot hold (`"banana"` on a boolean flag):
 * caught when the schedule is defined, not when a step is applied long after.
 */
export function assertForcedValuesFit(schedule: Pick<RampScheduleRecord, 'steps' | 'endActions'>, valueType: ValueType): void {
  const problems: string[] = [];
  const check = (action: RampAction, path: string) => {
    if (action.patch.force === undefined || decodeValue(valueType, forceToValue(action.patch.force))) return;
    problems.push(`Request body: [${path}.patch.force] is not a valid ${valueType} value: ${JSON.stringify(action.patch.force).slice(0, 100)}`);
  };
  schedule.steps.forEach((step, i) => step.actions.forEach((action, j) => check(action, `steps.${i}.actions.${j}`)));
  schedule.endActions.forEach((action, j) => check(action, `endActions.${j}`));
  if (problems.length) throw new InvalidInputError(problems.join('\n'));
}

/** A new target on `feature`'s rule; 400 when the feature has no such rule. */
function newTarget(id: string, feature: RampableFeature, ruleId: string, environment: string | undefined): RampTarget {
  if (Object.keys(locateRule(feature, ruleId, environment)).length === 0) {
    const where = environment ? ` in environment ${environment}` : '';
    throw new InvalidInputError(`Request body: [ruleId] feature ${feature.id} has no rule ${ruleId}${where}`);
  }
  return { id, entityType: 'feature', entityId: feature.id, ruleId, environment: environment ?? null, status: 'active' };
}

/**
 * A new schedule from a create body: `pending` without a target, `ready` with `featureId` + `ruleId`.
 * `context.feature` is the feature `featureId` names (undefined when it does not exist: 400);
 * `targetId` is the id the initial target gets. Checking that no other unfinished schedule controls
 * the rule needs the store and is the caller's.
 */
export function newRampSchedule(
  body: CreateRampScheduleBody,
  context: { id: string; targetId: string; organization?: string; feature?: RampableFeature },
): NewRampSchedule {
  if (body.templateId !== undefined) throw new InvalidInputError(`Request body: [templateId] ramp template ${body.templateId} not found`);
  if (body.ruleId !== undefined && body.featureId === undefined) throw new InvalidInputError('Request body: [featureId] is required with ruleId');
  if (body.environment !== undefined && body.ruleId === undefined) {
    throw new InvalidInputError('Request body: [environment] is only used together with ruleId');
  }
  if (body.featureId !== undefined && !context.feature) {
    throw new InvalidInputError(`Request body: [featureId] feature ${body.featureId} not found`);
  }
  const feature = context.feature;
  const targets = feature && body.ruleId !== undefined ? [newTarget(context.targetId, feature, body.ruleId, body.environment)] : [];
  const schedule: NewRampSchedule = {
    id: context.id,
    ...(context.organization ? { organization: context.organization } : {}),
    name: body.name,
    entityType: 'feature',
    entityId: body.featureId ?? '',
    targets,
    steps: resolveSteps(body.steps ?? [], targets),
    endActions: resolveActions(body.endActions ?? [], targets, 'endActions'),
    startDate: body.startDate ? normalizeDate(body.startDate) : null,
    endCondition: null,
    ...endConditionOf(body),
    status: targets.length ? 'ready' : 'pending',
    currentStepIndex: -1,
    startedAt: null,
    phaseStartedAt: null,
    pausedAt: null,
    nextStepAt: null,
    captured: {},
    pausedMs: 0,
    endedAt: null,
    failures: 0,
    retryAt: null,
    pauseReason: null,
    ...(body.lockdownConfig ? { lockdownConfig: body.lockdownConfig } : {}),
    monitoringConfig: body.monitoringConfig ? normalizeMonitoringConfig(body.monitoringConfig) : null,
    monitoring: null,
  };
  assertFits(schedule, feature ? [feature] : []);
  assertMonitoringFits(schedule, feature ? [feature] : []);
  return schedule;
}

/**
 * PUT: name, steps, endActions, startDate, cutoffDate (or endCondition); only in pending, ready or paused (409).
 * Absent fields stay; `null` clears startDate and the cutoff. A started schedule keeps at least
 * the steps up to its current one, and its current step's leave time follows the new trigger.
 */
export function updateDefinition(
  schedule: RampScheduleRecord,
  body: UpdateRampScheduleBody,
  features: RampableFeature[],
): RampScheduleRecord {
  assertStatus(schedule, 'update', editableStatuses);
  const next = structuredClone(schedule);
  if (body.name !== undefined) next.name = body.name;
  if (body.steps !== undefined) {
    next.steps = resolveSteps(body.steps, next.targets);
    if (next.currentStepIndex >= next.steps.length) {
      const kept = next.currentStepIndex + 1;
      throw new InvalidInputError(`Request body: [steps] the schedule is at step ${kept}; keep at least ${kept} steps`);
    }
  }
  if (body.endActions !== undefined) next.endActions = resolveActions(body.endActions, next.targets, 'endActions');
  if (body.startDate !== undefined) next.startDate = body.startDate === null ? null : normalizeDate(body.startDate);
  const end = endConditionOf(body);
  if (end) {
    next.endCondition = end.endCondition;
    if (end.cutoffDisables) next.cutoffDisables = true;
    else delete next.cutoffDisables;
  }
  if (body.monitoringConfig !== undefined) next.monitoringConfig = body.monitoringConfig === null ? null : normalizeMonitoringConfig(body.monitoringConfig);
  assertFits(next, features);
  assertMonitoringFits(next, features);
  // Past the last step (a GrowthBook 5 cutoff ahead), there is no step to leave.
  if (next.status === 'paused' && next.currentStepIndex >= 0 && next.currentStepIndex < next.steps.length && next.phaseStartedAt) {
    const leaveAt = leaveTime(next.steps[next.currentStepIndex].trigger, Date.parse(next.phaseStartedAt));
    next.nextStepAt = leaveAt === undefined ? null : new Date(leaveAt).toISOString();
  }
  return next;
}

/**
 * add-target: one more rule of the schedule's feature (the first target sets the feature). Only in
 * pending, ready or paused (409). A pending schedule becomes ready. A started (paused) schedule
 * captures the new rule now and, past its start, enables it like start does for the others.
 * `context.feature` is the feature `body.featureId` names (undefined: 400). Checking that no other
 * unfinished schedule controls the rule is the caller's.
 */
export function addTarget(
  schedule: RampScheduleRecord,
  body: AddTargetBody,
  context: { targetId: string; feature?: RampableFeature },
): Transition {
  assertStatus(schedule, 'add a target to', editableStatuses);
  const { feature } = context;
  if (!feature) throw new InvalidInputError(`Request body: [featureId] feature ${body.featureId} not found`);
  if (schedule.entityId && schedule.entityId !== body.featureId) {
    throw new InvalidInputError(`Request body: [featureId] this schedule controls rules of feature ${schedule.entityId} only`);
  }
  const target = newTarget(context.targetId, feature, body.ruleId, body.environment);
  const overlapping = schedule.targets.find(
    (other) => other.ruleId === target.ruleId && (!other.environment || !target.environment || other.environment === target.environment),
  );
  if (overlapping) {
    throw new ConflictError('already_exists', `Rule ${body.ruleId} is already controlled by this schedule (target ${overlapping.id})`);
  }
  const next = structuredClone(schedule);
  next.targets.push(target);
  next.entityId = feature.id;
  if (next.status === 'pending') next.status = 'ready';
  if (!next.startedAt) return { schedule: next, writes: [], comment: 'Ramp target added' };
  const rules = locateRule(feature, target.ruleId!, target.environment);
  next.captured[target.id] = Object.fromEntries(Object.entries(rules).map(([env, rule]) => [env, captureRuleState(rule)]));
  const writes =
    next.currentStepIndex < 0
      ? []
      : Object.keys(rules).map((environment) => ({
          targetId: target.id,
          featureId: feature.id,
          ruleId: target.ruleId!,
          environment,
          patch: { enabled: true },
        }));
  return { schedule: next, writes, comment: 'Ramp target added' };
}

/**
 * eject-target: the schedule lets go of one target, named by `targetId` or by `ruleId` (and
 * `environment` when the rule is a target in several). The rule keeps its current state; the
 * target's actions leave the steps and end actions. Refused while running or pending-approval (409),
 * like delete. Ejecting the last target deletes the schedule: `{deleted: true}`.
 */
export function ejectTarget(
  schedule: RampScheduleRecord,
  body: EjectTargetBody,
): { schedule: RampScheduleRecord } | { deleted: true } {
  assertStatus(schedule, 'eject a target from', releasableStatuses);
  const target = findTarget(schedule, body);
  const remaining = schedule.targets.filter((other) => other.id !== target.id);
  if (remaining.length === 0) return { deleted: true };
  const next = structuredClone(schedule);
  next.targets = remaining;
  next.steps = next.steps.map((step) => ({ ...step, actions: step.actions.filter((action) => action.targetId !== target.id) }));
  next.endActions = next.endActions.filter((action) => action.targetId !== target.id);
  delete next.captured[target.id];
  if (next.status === 'ready' && activeTargets(next).length === 0) next.status = 'pending';
  return { schedule: next };
}

function findTarget(schedule: RampScheduleRecord, body: EjectTargetBody): RampTarget {
  if (body.targetId !== undefined) {
    const target = schedule.targets.find((candidate) => candidate.id === body.targetId);
    if (!target) throw new InvalidInputError(`Request body: [targetId] the schedule has no target ${body.targetId}`);
    return target;
  }
  if (body.ruleId === undefined) throw new InvalidInputError('Request body: [targetId] give targetId, or ruleId');
  const matches = schedule.targets.filter(
    (candidate) => candidate.ruleId === body.ruleId && (body.environment === undefined || candidate.environment === body.environment),
  );
  if (matches.length === 0) throw new InvalidInputError(`Request body: [ruleId] no target of the schedule controls rule ${body.ruleId}`);
  if (matches.length > 1) throw new InvalidInputError(`Request body: [environment] rule ${body.ruleId} is a target in several environments; name one`);
  return matches[0];
}

/** 409 `invalid_status` while the schedule is running or waiting for approval. */
export function assertDeletable(schedule: RampScheduleRecord): void {
  assertStatus(schedule, 'delete', releasableStatuses);
}
