/**
 * Ramp schedules a draft attaches to its rules (GrowthBook's revision `rampActions`), without I/O:
 * checked against the draft when attached, and turned into ramp schedules when the draft is
 * published, the ones that start at once started in the same step (their first step applied to the
 * published rules). Until then a pending ramp is only data on the draft: no schedule, no rule lock,
 * nothing the advancer sees.
 */
import * as z from '../contracts/zod';
import { InvalidInputError } from '../errors';
import { createRampScheduleBody, type CreateRampScheduleBody } from '../contracts/ramp-schedules';
import type { InlineRampSchedule, PendingRamp } from '../contracts/feature-revision-edits';
import type { ValueType } from '../contracts/features';
import { newId } from '../ids';
import { assertForcedValuesFit, newRampSchedule, type NewRampSchedule } from './ramp-definition';
import { applyRuleWrites, locateRule, type RampableFeature } from './ramp-rules';
import { act, type RampScheduleRecord } from './ramp-schedule';

const unsupported = (field: string, why: string) => new InvalidInputError(`Request body: [${field}] ${why}`);

/** The ramp of a rule scheduled by a start/end window (GrowthBook's `schedule` on force and rollout rules). */
export function windowRamp(ruleId: string, window: { startDate?: string | null; endDate?: string | null }): PendingRamp {
  return {
    mode: 'create',
    name: 'Rule schedule',
    ruleId,
    steps: [],
    ...(window.startDate ? { startDate: window.startDate } : {}),
    ...(window.endDate ? { cutoffDate: window.endDate, endActions: [{ targetType: 'feature-rule', targetId: '', patch: { ruleId, enabled: false } }] } : {}),
  };
}

/**
 * Switchyard's create body for a pending ramp: steps with `interval` seconds become interval
 * triggers (with an approval hold after them when asked), an approval hold alone an approval trigger;
 * `cutoffDate` stays GrowthBook 5's cutoff. 400 naming the
 * field for what Switchyard's ramps cannot do (monitoring, start actions, lockdown, sample-size holds).
 */
export function createBodyOf(featureId: string, ramp: PendingRamp): CreateRampScheduleBody {
  if (ramp.startActions?.length) throw unsupported('startActions', 'are not supported; put the changes in the first step');
  if (ramp.monitoringConfig) throw unsupported('monitoringConfig', 'monitored ramps are not supported');
  if (ramp.lockdownConfig?.mode === 'locked') throw unsupported('lockdownConfig.mode', 'locked ramps are not supported from a draft');
  const action = (a: NonNullable<InlineRampSchedule['endActions']>[number], at: string) => {
    const { allEnvironments, environments, ...patch } = a.patch;
    if (allEnvironments != null || environments != null) throw unsupported(`${at}.patch`, 'a ramp step cannot change the environments of a rule');
    return { targetType: 'feature-rule' as const, ...(a.targetId ? { targetId: a.targetId } : {}), patch };
  };
  const steps = (ramp.steps ?? []).map((step, i) => {
    const at = `steps.${i}`;
    if (step.monitored) throw unsupported(`${at}.monitored`, 'monitored steps are not supported');
    if (step.holdConditions?.minSampleSize !== undefined) throw unsupported(`${at}.holdConditions.minSampleSize`, 'sample-size holds need monitoring, which is not supported');
    const approval = !!step.holdConditions?.requiresApproval;
    if (!approval && step.interval === null) {
      throw unsupported(`${at}.interval`, 'give the seconds to hold the step, or null with holdConditions.requiresApproval');
    }
    return {
      trigger: step.interval === null ? { type: 'approval' as const } : { type: 'interval' as const, seconds: step.interval },
      // An interval, then an approval once it is over.
      ...(approval && step.interval !== null ? { holdConditions: { requiresApproval: true } } : {}),
      actions: (step.actions ?? []).map((a, j) => action(a, `${at}.actions.${j}`)),
      ...(step.approvalNotes !== undefined ? { approvalNotes: step.approvalNotes } : {}),
    };
  });
  const body = {
    name: ramp.name || `Ramp of rule ${ramp.ruleId}`,
    featureId,
    ruleId: ramp.ruleId,
    ...(ramp.environment ? { environment: ramp.environment } : {}),
    steps,
    endActions: (ramp.endActions ?? []).map((a, j) => action(a, `endActions.${j}`)),
    startDate: ramp.startDate ?? null,
    // GrowthBook 5's cutoff: at it the ramp completes and switches its rule off.
    ...(ramp.cutoffDate ? { cutoffDate: ramp.cutoffDate } : {}),
    ...(ramp.templateId ? { templateId: ramp.templateId } : {}),
  };
  // The ramp-schedule endpoints' own checks (conditions, dates, bounds), so both paths accept the same ramps.
  const parsed = z.safeParse(createRampScheduleBody, body);
  if (!parsed.success) {
    throw new InvalidInputError(parsed.error.issues.map((issue) => `Request body: [${issue.path.join('.')}] ${issue.message}`).join('\n'));
  }
  return parsed.data;
}

/**
 * The schedule a pending ramp becomes on `feature` (the draft's content when attached, the published
 * content on publish): 400 when the rule is not there or a step does not fit it or its value type.
 */
export function scheduleOf(feature: RampableFeature & { valueType: ValueType }, ramp: PendingRamp, ids: { id: string; targetId: string; organization?: string }): NewRampSchedule {
  const schedule = newRampSchedule(createBodyOf(feature.id, ramp), { ...ids, feature });
  assertForcedValuesFit(schedule, feature.valueType);
  return schedule;
}

/** What a publish does with the draft's pending ramps: the feature with started ramps' first changes applied, and the schedules to store. */
export interface Activation<F> {
  feature: F;
  schedules: Array<NewRampSchedule | RampScheduleRecord>;
}

/**
 * The pending ramps of a draft being published, as schedules on the published `feature`: one that
 * starts now (no start date, or one already past, and no start approval asked) is started at `now`,
 * its first step applied to the feature; the others wait, ready, for their start date (the advancer)
 * or a start. A ramp whose rule the published feature no longer has is dropped.
 */
export function activatePendingRamps<F extends RampableFeature & { valueType: ValueType }>(
  feature: F,
  ramps: PendingRamp[],
  now: Date,
  organization: string,
): Activation<F> {
  let current = feature;
  const schedules: Activation<F>['schedules'] = [];
  for (const ramp of ramps) {
    if (Object.keys(locateRule(current, ramp.ruleId, ramp.environment)).length === 0) continue;
    const schedule = scheduleOf(current, ramp, { id: newId('rs_'), targetId: newId('rt_'), organization });
    const startsNow = !ramp.requiresStartApproval && (!schedule.startDate || Date.parse(schedule.startDate) <= now.getTime());
    if (!startsNow) {
      schedules.push(schedule);
      continue;
    }
    const stamped = { ...schedule, dateCreated: now.toISOString(), dateUpdated: now.toISOString() };
    const started = act(stamped, { type: 'start' }, now, [current]);
    current = applyRuleWrites(current, started.writes);
    schedules.push(started.schedule);
  }
  return { feature: current, schedules };
}
