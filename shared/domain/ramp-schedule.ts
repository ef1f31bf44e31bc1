/**
 * The ramp-schedule state machine, without I/O. Every function takes the stored schedule, the time
 * and (when rules change) the features whose rules the schedule controls, and returns the next
 * schedule with the rule writes to make in the same transaction — or throws a `DomainError`
 * (409 `invalid_status` when the status forbids the action) and changes nothing.
 *
 * The rule state model: a target rule's ramp-controlled fields always equal its state captured at
 * start with the accumulated patch A(i) applied, where i is `currentStepIndex`, A(-1) is empty and
 * A(i) is `{enabled: true}` then the patches of steps 0..i in order (end actions too once completed).
 * Rollback goes back to the captured state; jump goes to captured + A(k).
 */
import { ConflictError, InvalidInputError } from '../errors';
import type { MonitoringConfig } from '../contracts/ramp-monitoring';
import {
  currentStepMonitored,
  effectiveAutoUpdate,
  emptyRuntime,
  monitoringDueMs,
  monitoringModeOf,
  plannedSnapshotAt,
  type MonitoringRuntime,
} from './ramp-monitoring-state';
import type {
  ApiRampStatus,
  ApiRampStep,
  LockdownConfig,
  RampAction,
  RampEndCondition,
  RampSchedule,
  RampStatus,
  RampStep,
  RampTarget,
  RampTrigger,
} from '../contracts/ramp-schedules';
import {
  captureRuleState,
  locateRule,
  patchMisfit,
  type RampableFeature,
  type RampableRule,
  type RulePatchFields,
  type RuleState,
  type RuleWrite,
} from './ramp-rules';

/** The stored schedule: the API fields plus what only the state machine needs (never in a response). */
export interface RampScheduleRecord {
  id: string;
  organization?: string;
  dateCreated: string;
  dateUpdated: string;
  name: string;
  entityType: 'feature';
  /** The feature every target belongs to; empty until the first target is added. */
  entityId: string;
  targets: RampTarget[];
  steps: RampStep[];
  endActions: RampAction[];
  startDate: string | null;
  endCondition: RampEndCondition | null;
  status: RampStatus;
  currentStepIndex: number;
  startedAt: string | null;
  /** When the current step was entered (its nominal time when overdue steps are folded). */
  phaseStartedAt: string | null;
  pausedAt: string | null;
  nextStepAt: string | null;
  /** Target id → environment → the rule's ramp-controlled fields when the schedule started. */
  captured: Record<string, Record<string, RuleState>>;
  /** Time spent in finished pauses, left out of `elapsedMs`. */
  pausedMs: number;
  /** When the schedule completed or rolled back; `elapsedMs` stops there. */
  endedAt: string | null;
  /** Advances that failed in a row; see `recordAdvanceFailure`. */
  failures: number;
  /** After a failed advance, the next attempt waits until then. */
  retryAt: string | null;
  /** Why the advancer paused the schedule, when it did. */
  pauseReason: string | null;
  /** GrowthBook 5's lockdown: `locked` refuses other writes to the feature while the schedule runs (see `locksFeature`). */
  lockdownConfig?: LockdownConfig;
  /** Monitored ramps (absent on schedules stored before them): see ramp-monitoring-state.ts. */
  monitoringConfig?: MonitoringConfig | null;
  monitoring?: MonitoringRuntime | null;
  /** When the current step was entered (its actual time, unlike `phaseStartedAt`). */
  currentStepEnteredAt?: string | null;
  /** When the first monitored step was entered in this run: the no-traffic grace period counts from here. */
  monitoringStartDate?: string | null;
  lastRollbackAt?: string | null;
  lastRollbackReason?: string | null;
  /**
   * The end condition was given as GrowthBook 5's `cutoffDate`: at it the ramp completes and its rules
   * are switched off, and a ramp whose steps are done waits for it. Absent: the seed-era `endCondition`,
   * which completes the ramp with its rules as the steps and end actions leave them.
   */
  cutoffDisables?: boolean;
}

/** What an action does: the next schedule, the rule writes to make with it, and a revision comment. */
export interface Transition {
  schedule: RampScheduleRecord;
  /** Empty when no rule changes (pause, for example): then only the schedule is written. */
  writes: RuleWrite[];
  /** For the feature revision the writes make, e.g. `Ramp step 2 of 4`. */
  comment: string;
}

export type LifecycleAction =
  | { type: 'start' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'jump'; targetStepIndex: number }
  | { type: 'complete' }
  | { type: 'rollback'; reason?: string }
  | { type: 'approve-step' }
  | { type: 'advance'; force?: boolean }
  | { type: 'restart' };

/** The statuses each lifecycle action is allowed from; every other status gives 409 `invalid_status`. */
export const allowedFrom: Record<LifecycleAction['type'], readonly RampStatus[]> = {
  start: ['ready'],
  pause: ['running', 'pending-approval'],
  resume: ['paused'],
  jump: ['running', 'pending-approval', 'paused'],
  complete: ['running', 'pending-approval', 'paused'],
  rollback: ['running', 'pending-approval', 'paused', 'completed'],
  'approve-step': ['pending-approval'],
  // GrowthBook 5: advance from running or paused (waiting for approval is running there); restart from terminal only.
  advance: ['running', 'pending-approval', 'paused'],
  restart: ['completed', 'rolled-back'],
};

/** Statuses in which the definition (PUT) and the targets (add-target) may change. */
export const editableStatuses: readonly RampStatus[] = ['pending', 'ready', 'paused'];
/** Statuses in which the schedule may be deleted or lose a target. */
export const releasableStatuses: readonly RampStatus[] = ['pending', 'ready', 'paused', 'completed', 'rolled-back'];

const ms = (date: string) => Date.parse(date);
const iso = (time: number) => new Date(time).toISOString();

/** Raises 409 `invalid_status` unless the schedule is in one of `statuses`. */
export function assertStatus(schedule: RampScheduleRecord, action: string, statuses: readonly RampStatus[]): void {
  if (!statuses.includes(schedule.status)) {
    throw new ConflictError(
      'invalid_status',
      `Cannot ${action} ramp schedule ${schedule.id}: it is ${schedule.status}; allowed when ${statuses.join(', ')}`,
    );
  }
}

export const activeTargets = (schedule: Pick<RampScheduleRecord, 'targets'>) => schedule.targets.filter((target) => target.status === 'active');

const endAt = (schedule: RampScheduleRecord) => {
  const at = schedule.endCondition?.trigger?.at;
  return at ? ms(at) : undefined;
};

/** Whether the step waits for approve-step: an approval step at once, a step with an approval hold once its time is over. */
export const needsApproval = (step: RampStep | undefined): boolean =>
  step !== undefined && (step.trigger.type === 'approval' || step.holdConditions?.requiresApproval === true);

/** When a step entered at `enteredAt` is left: undefined for an approval step, which waits for approve-step. */
export function leaveTime(trigger: RampTrigger, enteredAt: number): number | undefined {
  if (trigger.type === 'interval') return enteredAt + Math.round(trigger.seconds * 1000);
  if (trigger.type === 'scheduled') return Math.max(ms(trigger.at), enteredAt);
  return undefined;
}

/** The per-target patch of a list of actions, later actions winning key by key; non-active targets are left out. */
function patchOf(schedule: RampScheduleRecord, actions: RampAction[]): Map<string, RulePatchFields> {
  const active = new Set(activeTargets(schedule).map((target) => target.id));
  const patches = new Map<string, RulePatchFields>();
  for (const action of actions) {
    if (!active.has(action.targetId)) continue;
    const { ruleId: _ruleId, ...fields } = action.patch;
    patches.set(action.targetId, { ...patches.get(action.targetId), ...fields });
  }
  return patches;
}

const enableAll = (schedule: RampScheduleRecord): RampAction[] =>
  activeTargets(schedule).map((target) => ({
    targetType: 'feature-rule',
    targetId: target.id,
    patch: { ruleId: target.ruleId ?? '', enabled: true },
  }));

/** A(k): the actions whose patches, applied to the captured state, give the rule state at step k. */
export function accumulatedActions(schedule: RampScheduleRecord, k: number): RampAction[] {
  if (k < 0) return [];
  return [...enableAll(schedule), ...schedule.steps.slice(0, k + 1).flatMap((step) => step.actions)];
}

/** One transition being computed: a copy of the schedule, and the actions it applies to the rules. */
interface Work {
  schedule: RampScheduleRecord;
  now: number;
  actions: RampAction[];
  /** Rollback and jump set the rules back to the captured state before `actions`. */
  restore: boolean;
}

const begin = (schedule: RampScheduleRecord, now: Date): Work => ({
  schedule: structuredClone(schedule),
  now: now.getTime(),
  actions: [],
  restore: false,
});

/** Closes a pause: its length counts as paused time. */
function endPause(work: Work): void {
  const { schedule } = work;
  if (schedule.pausedAt) schedule.pausedMs += Math.max(0, work.now - ms(schedule.pausedAt));
  schedule.pausedAt = null;
}

/** Applies every step after the current one and the end actions (then, at a cutoff, switches the rules off), and completes. */
function completeNow(work: Work, cutoff = false): void {
  const { schedule } = work;
  if (schedule.currentStepIndex < 0) work.actions.push(...enableAll(schedule));
  work.actions.push(...schedule.steps.slice(schedule.currentStepIndex + 1).flatMap((step) => step.actions));
  work.actions.push(...schedule.endActions);
  if (cutoff) work.actions.push(...enableAll(schedule).map((action) => ({ ...action, patch: { ...action.patch, enabled: false } })));
  endPause(work);
  schedule.currentStepIndex = schedule.steps.length - 1;
  schedule.status = 'completed';
  schedule.nextStepAt = null;
  schedule.endedAt ??= iso(work.now);
  stopMonitoring(schedule);
}

/** Whether the schedule's end condition is a GrowthBook 5 cutoff that has come by `now` (ms). */
const cutOff = (schedule: RampScheduleRecord, now: number) => schedule.cutoffDisables === true && (endAt(schedule) ?? Infinity) <= now;

/** Steps are left up to now, but none after the end condition: that one completes the schedule instead. */
const horizonOf = (work: Work) => Math.min(work.now, endAt(work.schedule) ?? Infinity);

/** Whether the current step's time has come (within the horizon). */
const stepIsOver = (work: Work) => work.schedule.nextStepAt !== null && ms(work.schedule.nextStepAt) <= horizonOf(work);

/**
 * Enters step `index` at `enteredAt` and applies its actions, then keeps leaving steps whose time
 * has passed (folding overdue steps into this one transition). Stops at an approval step, at a step
 * with an approval hold whose time has passed (both then wait for approve-step), at a step left in
 * the future or after the end condition (which then completes the schedule), or past the last step
 * (completed).
 */
function enterSteps(work: Work, index: number, enteredAt: number): void {
  const { schedule } = work;
  const horizon = horizonOf(work);
  for (;;) {
    if (index >= schedule.steps.length) {
      const deadline = endAt(schedule);
      if (schedule.steps.length === 0 && deadline !== undefined && deadline > work.now) {
        // A schedule without steps runs until its end condition.
        schedule.status = 'running';
        schedule.phaseStartedAt = iso(enteredAt);
        schedule.nextStepAt = null;
        return;
      }
      if (schedule.cutoffDisables && deadline !== undefined && deadline > work.now) {
        // GrowthBook 5: the steps done, the end actions apply and the ramp runs on, past its last step, until its cutoff.
        work.actions.push(...schedule.endActions);
        schedule.currentStepIndex = schedule.steps.length;
        schedule.status = 'running';
        schedule.nextStepAt = null;
        return;
      }
      completeNow(work, cutOff(schedule, work.now));
      return;
    }
    const step = schedule.steps[index];
    work.actions.push(...step.actions);
    schedule.currentStepIndex = index;
    schedule.phaseStartedAt = iso(enteredAt);
    const leaveAt = leaveTime(step.trigger, enteredAt);
    if (leaveAt === undefined) {
      schedule.status = 'pending-approval';
      schedule.nextStepAt = null;
      enteredStep(work, enteredAt);
      return;
    }
    schedule.status = 'running';
    schedule.nextStepAt = iso(leaveAt);
    enteredStep(work, enteredAt);
    // A monitored step is left on a verdict of its analysis (ramp-monitoring.ts), never on time alone.
    if (step.monitored || leaveAt > horizon) return;
    if (needsApproval(step)) {
      // Its time is over: now it waits for approve-step (`nextStepAt` keeps when the time hold ended).
      schedule.status = 'pending-approval';
      return;
    }
    index += 1;
    enteredAt = leaveAt;
  }
}

/**
 * Records the entry into the current step. Entering the first monitored step starts the monitoring
 * window (the no-traffic grace period counts from it); entering a monitored step plans its first snapshot.
 */
function enteredStep(work: Work, enteredAt: number): void {
  const { schedule } = work;
  schedule.currentStepEnteredAt = iso(enteredAt);
  if (!schedule.monitoringConfig) return;
  const firstMonitored = schedule.steps.findIndex((step) => step.monitored);
  if (schedule.currentStepIndex === firstMonitored) schedule.monitoringStartDate = iso(enteredAt);
  const runtime = {
    ...(schedule.monitoring ?? emptyRuntime()),
    snapshotId: null,
    snapshotStartedAt: null,
    lastSnapshotAt: null,
    lastSnapshotId: null,
  };
  schedule.monitoring = runtime;
  runtime.nextSnapshotAt = currentStepMonitored(schedule) ? plannedSnapshotAt(schedule, enteredAt) : null;
}

/** Ends monitoring's pending work (a rollback, a jump, completion): nothing in flight, nothing planned. */
function stopMonitoring(schedule: RampScheduleRecord): void {
  if (schedule.monitoring) schedule.monitoring = { ...schedule.monitoring, snapshotId: null, snapshotStartedAt: null, nextSnapshotAt: null };
}

/** Completes a running schedule whose end condition has passed. */
function checkDeadline(work: Work): void {
  const { schedule } = work;
  const deadline = endAt(schedule);
  // A GrowthBook 5 cutoff ends a paused (started) ramp too.
  const cutsPaused = schedule.cutoffDisables === true && schedule.status === 'paused' && schedule.startedAt !== null;
  const active = schedule.status === 'running' || schedule.status === 'pending-approval' || cutsPaused;
  if (active && deadline !== undefined && deadline <= work.now) completeNow(work, cutOff(schedule, work.now));
}

/** Enters step 0 now: `enabled: true` on every target rule, then step 0's actions (and any overdue ones). */
function enterFirstStep(work: Work): void {
  work.actions.push(...enableAll(work.schedule));
  enterSteps(work, 0, work.now);
}

/** Captures every active target's rules, the state rollback restores; 409 when a rule no longer fits. */
function capture(work: Work, rules: TargetRules): void {
  const { schedule } = work;
  if (activeTargets(schedule).length === 0) {
    throw new ConflictError('invalid_status', `Ramp schedule ${schedule.id} has no active target to ramp`);
  }
  for (const target of activeTargets(schedule)) {
    const found = rulesOf(schedule, target, rules);
    schedule.captured[target.id] = Object.fromEntries(Object.entries(found).map(([env, rule]) => [env, captureRuleState(rule)]));
  }
  const misfits = patchMisfits(schedule, rules);
  if (misfits.length) throw new ConflictError('invalid_status', `Ramp schedule ${schedule.id} does not fit its rules: ${misfits.join('; ')}`);
  schedule.startedAt = iso(work.now);
  schedule.pausedMs = 0;
  schedule.endedAt = null;
}

/** Target id → environment → the target's rule in that environment, as the features hold it now. */
export type TargetRules = Record<string, Record<string, RampableRule>>;

/** Finds the current rule of every target of the schedule in the given features. */
export function targetRules(schedule: Pick<RampScheduleRecord, 'targets'>, features: RampableFeature[]): TargetRules {
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  const rules: TargetRules = {};
  for (const target of schedule.targets) {
    const feature = byId.get(target.entityId);
    rules[target.id] = feature && target.ruleId ? locateRule(feature, target.ruleId, target.environment) : {};
  }
  return rules;
}

/** The environments the active targets' rules are in on `feature`: where the schedule's steps change what SDKs see. */
export function rampEnvironments(schedule: Pick<RampScheduleRecord, 'targets'>, feature: RampableFeature | undefined): string[] {
  if (!feature) return [];
  const rules = targetRules({ targets: activeTargets(schedule) }, [feature]);
  return [...new Set(Object.values(rules).flatMap((byEnvironment) => Object.keys(byEnvironment)))];
}

function rulesOf(schedule: RampScheduleRecord, target: RampTarget, rules: TargetRules): Record<string, RampableRule> {
  const found = rules[target.id] ?? {};
  if (Object.keys(found).length === 0) {
    throw new ConflictError(
      'invalid_status',
      `Ramp schedule ${schedule.id}: rule ${target.ruleId} of feature ${target.entityId} (target ${target.id}) no longer exists; eject the target`,
    );
  }
  return found;
}

/** Where each action's patch cannot apply to its target's rule, as `[path] problem` lines. */
export function patchMisfits(schedule: Pick<RampScheduleRecord, 'steps' | 'endActions'>, rules: TargetRules): string[] {
  const problems: string[] = [];
  const check = (action: RampAction, path: string) => {
    for (const rule of Object.values(rules[action.targetId] ?? {})) {
      const misfit = patchMisfit(action.patch, rule);
      if (misfit) problems.push(`[${path}.patch.${misfit.field}] ${misfit.message}`);
    }
  };
  schedule.steps.forEach((step, i) => step.actions.forEach((action, j) => check(action, `steps.${i}.actions.${j}`)));
  schedule.endActions.forEach((action, j) => check(action, `endActions.${j}`));
  return problems;
}

/** Turns a finished `Work` into its transition: one write per active target and environment its rule is in. */
function finish(work: Work, rules: TargetRules, comment: string): Transition {
  const { schedule } = work;
  const patches = patchOf(schedule, work.actions);
  const writes: RuleWrite[] = [];
  const bucketing = bucketingOf(schedule);
  for (const target of activeTargets(schedule)) {
    const patch = patches.get(target.id) ?? {};
    const captured = schedule.captured[target.id] ?? {};
    const changesRules = work.restore || Object.keys(patch).length > 0;
    if (!changesRules && bucketing === undefined) continue;
    // Only a change of the rules needs them to exist; a bucketing-only write skips a rule that is gone.
    const found = changesRules ? rulesOf(schedule, target, rules) : (rules[target.id] ?? {});
    for (const [environment, rule] of Object.entries(found)) {
      if (work.restore && !captured[environment]) continue;
      // A restore (rollback, jump) first brings back the captured state; the bucketing of the run, if any, goes on top.
      const before = work.restore ? captured[environment]?.rampBucketing : rule.rampBucketing;
      const changesBucketing = bucketing !== undefined && JSON.stringify(before ?? null) !== JSON.stringify(bucketing);
      if (!work.restore && Object.keys(patch).length === 0 && !changesBucketing) continue;
      writes.push({
        targetId: target.id,
        featureId: target.entityId,
        ruleId: target.ruleId ?? '',
        environment,
        ...(work.restore ? { restore: structuredClone(captured[environment]) } : {}),
        patch,
        ...(changesBucketing ? { bucketing } : {}),
      });
    }
  }
  schedule.failures = 0;
  schedule.retryAt = null;
  return { schedule, writes, comment };
}

/**
 * How the target rules of a schedule with monitoring are bucketed while it runs (undefined: the rules
 * keep theirs). From its start on, by explicit hash ranges, so a user keeps their arm across steps;
 * as an experiment on a monitored step. Completed, the ranges stay (the last users stay in).
 */
function bucketingOf(schedule: RampScheduleRecord): RuleWrite['bucketing'] {
  if (!schedule.monitoringConfig || !schedule.startedAt || schedule.status === 'rolled-back') return undefined;
  const monitored = schedule.status !== 'completed' && currentStepMonitored(schedule);
  return { key: rampTrackingKey(schedule.id), monitored };
}

/** The tracking key of a ramp's monitored steps: the experiment key SDKs report exposures under (as GrowthBook names it). */
export const rampTrackingKey = (scheduleId: string) => `ramp_${scheduleId}`;

/** The revision comment for where a forward transition ended. */
function progressComment(schedule: RampScheduleRecord): string {
  if (schedule.status === 'completed') return 'Ramp completed';
  if (schedule.currentStepIndex < 0) return 'Ramp started';
  if (schedule.currentStepIndex >= schedule.steps.length) return 'Ramp steps done, waiting for the cutoff';
  return `Ramp step ${schedule.currentStepIndex + 1} of ${schedule.steps.length}`;
}

/**
 * Applies a lifecycle action (start, pause, resume, jump, complete, rollback, approve-step) at `now`.
 * `features` holds the schedule's feature (its rules as they are now); see `targetRules`.
 */
export function act(schedule: RampScheduleRecord, action: LifecycleAction, now: Date, features: RampableFeature[]): Transition {
  assertStatus(schedule, action.type, allowedFrom[action.type]);
  if (!schedule.startedAt && ['jump', 'complete', 'rollback', 'advance'].includes(action.type)) {
    // Paused by the advancer before it ever started: nothing was captured, so nothing to move from.
    throw new ConflictError('invalid_status', `Cannot ${action.type} ramp schedule ${schedule.id}: it never started; resume starts it`);
  }
  const rules = targetRules(schedule, features);
  const work = begin(schedule, now);
  const s = work.schedule;
  switch (action.type) {
    case 'start':
      capture(work, rules);
      enterFirstStep(work);
      checkDeadline(work);
      return finish(work, rules, progressComment(s));
    case 'pause':
      s.status = 'paused';
      s.pausedAt = iso(work.now);
      return finish(work, rules, 'Ramp paused');
    case 'resume':
      return resume(work, rules);
    case 'jump':
      return jump(work, rules, action.targetStepIndex);
    case 'complete':
      completeNow(work);
      return finish(work, rules, progressComment(s));
    case 'rollback':
      work.restore = true;
      endPause(work);
      s.status = 'rolled-back';
      s.currentStepIndex = -1;
      s.nextStepAt = null;
      s.phaseStartedAt = null;
      s.endedAt ??= iso(work.now);
      s.lastRollbackAt = iso(work.now);
      s.lastRollbackReason = action.reason ?? 'Manual';
      s.monitoringStartDate = null;
      s.currentStepEnteredAt = null;
      stopMonitoring(s);
      return finish(work, rules, 'Ramp rolled back');
    case 'approve-step':
      enterSteps(work, s.currentStepIndex + 1, work.now);
      checkDeadline(work);
      return finish(work, rules, progressComment(s));
    case 'advance':
      return advanceNow(work, rules, action.force ?? false);
    case 'restart':
      return restart(work, rules);
  }
}

/** Whether the schedule waits on an approval (running there, or paused there): advance then needs `force`. */
export function awaitsApproval(schedule: Pick<RampScheduleRecord, 'status' | 'steps' | 'currentStepIndex'>): boolean {
  if (schedule.status === 'pending-approval') return true;
  // Running or paused at a step with an approval hold: advancing now would skip the approval too.
  return (schedule.status === 'paused' || schedule.status === 'running') && needsApproval(schedule.steps[schedule.currentStepIndex]);
}

/**
 * GrowthBook 5's manual advance: the next step now, whatever the current step's time; a paused
 * schedule is resumed by it. A step waiting for approval is passed only with `force` (409 otherwise;
 * the permission `force` needs is the caller's to check). Overdue steps behind it are folded in, as
 * the advancer folds them; past the last step the schedule completes.
 */
function advanceNow(work: Work, rules: TargetRules, force: boolean): Transition {
  const s = work.schedule;
  if (awaitsApproval(s) && !force) {
    throw new ConflictError(
      'invalid_status',
      'This step requires approval before advancing. Call `/actions/approve-step` first, or pass `force: true` to bypass (requires the bypassApprovalChecks permission).',
    );
  }
  endPause(work);
  s.pauseReason = null;
  if (s.currentStepIndex < 0) work.actions.push(...enableAll(s));
  enterSteps(work, s.currentStepIndex + 1, work.now);
  checkDeadline(work);
  return finish(work, rules, progressComment(s));
}

/**
 * GrowthBook 5's restart of a completed or rolled-back schedule: back to the start and running
 * again in one transition. A completed schedule's rules are rewound to the state captured at its
 * first start; a rolled-back schedule's rules are already there (and kept as they are now, edits
 * since included, which becomes the state a later rollback restores). Then step 0 is entered as
 * `start` enters it.
 */
function restart(work: Work, rules: TargetRules): Transition {
  const s = work.schedule;
  if (s.status === 'completed') work.restore = true;
  else capture(work, rules);
  s.currentStepIndex = -1;
  s.startedAt = iso(work.now);
  s.pausedAt = null;
  s.pausedMs = 0;
  s.endedAt = null;
  s.pauseReason = null;
  enterFirstStep(work);
  checkDeadline(work);
  return finish(work, rules, s.status === 'completed' ? 'Ramp restarted and completed' : `Ramp restarted: ${progressComment(s).toLowerCase()}`);
}

/** GrowthBook's LOCKDOWN_ACTIVE_STATUSES (`running`, which includes waiting for an approval there). */
export const lockdownActiveStatuses: readonly RampStatus[] = ['running', 'pending-approval'];

/** Whether the schedule refuses other writes to its feature now: lockdown `locked` while it runs. */
export const locksFeature = (schedule: Pick<RampScheduleRecord, 'status' | 'lockdownConfig'>) =>
  schedule.lockdownConfig?.mode === 'locked' && lockdownActiveStatuses.includes(schedule.status);

/** Resume: every pending time moves later by the pause length, then overdue work is done at once. */
function resume(work: Work, rules: TargetRules): Transition {
  const s = work.schedule;
  const pauseLength = s.pausedAt ? Math.max(0, work.now - ms(s.pausedAt)) : 0;
  endPause(work);
  s.pauseReason = null;
  if (!s.startedAt) {
    // Paused before it ever started (the advancer gave up on its start date): start now.
    capture(work, rules);
    enterFirstStep(work);
  } else if (s.currentStepIndex < 0) {
    enterFirstStep(work);
  } else {
    if (s.nextStepAt) s.nextStepAt = iso(ms(s.nextStepAt) + pauseLength);
    if (s.phaseStartedAt) s.phaseStartedAt = iso(ms(s.phaseStartedAt) + pauseLength);
    const step = s.steps[s.currentStepIndex];
    const waitsForApproval = needsApproval(step) && (step.trigger.type === 'approval' || stepIsOver(work));
    s.status = waitsForApproval ? 'pending-approval' : 'running';
    if (s.currentStepEnteredAt) s.currentStepEnteredAt = iso(ms(s.currentStepEnteredAt) + pauseLength);
    if (currentStepMonitored(s)) {
      // A monitored step resumes with a fresh look at its data; its hold goes on from where it was paused.
      s.monitoring = { ...(s.monitoring ?? emptyRuntime()), nextSnapshotAt: effectiveAutoUpdate(s).enabled ? iso(work.now) : null };
    } else if (!waitsForApproval && stepIsOver(work)) enterSteps(work, s.currentStepIndex + 1, ms(s.nextStepAt!));
  }
  checkDeadline(work);
  return finish(work, rules, progressComment(s));
}

/** Jump: the rules go to captured + A(k), the schedule to step k as if entered now, paused. */
function jump(work: Work, rules: TargetRules, k: number): Transition {
  const s = work.schedule;
  if (!Number.isInteger(k) || k < -1 || k >= s.steps.length) {
    throw new InvalidInputError(`Request body: [targetStepIndex] must be between -1 and ${s.steps.length - 1}`);
  }
  work.restore = true;
  work.actions.push(...accumulatedActions(s, k));
  endPause(work);
  s.status = 'paused';
  s.pausedAt = iso(work.now);
  s.currentStepIndex = k;
  s.phaseStartedAt = k < 0 ? null : iso(work.now);
  const leaveAt = k < 0 ? undefined : leaveTime(s.steps[k].trigger, work.now);
  s.nextStepAt = leaveAt === undefined ? null : iso(leaveAt);
  if (k >= 0) enteredStep(work, work.now);
  stopMonitoring(s);
  return finish(work, rules, k < 0 ? 'Ramp jumped to the start' : `Ramp jumped to step ${k + 1} of ${s.steps.length}`);
}

/** When the advancer must next look at the schedule (ms), ignoring retry delays; undefined when never. */
function dueAtMs(schedule: RampScheduleRecord): number | undefined {
  const deadline = endAt(schedule);
  switch (schedule.status) {
    case 'ready':
      return schedule.startDate && activeTargets(schedule).length ? ms(schedule.startDate) : undefined;
    case 'running': {
      const stepAt = currentStepMonitored(schedule) ? monitoringDueMs(schedule) : schedule.nextStepAt ? ms(schedule.nextStepAt) : undefined;
      const times = [stepAt, deadline].filter((t) => t !== undefined);
      return times.length ? Math.min(...times) : undefined;
    }
    case 'pending-approval':
      return deadline;
    case 'paused':
      return schedule.cutoffDisables && schedule.startedAt ? deadline : undefined;
    default:
      return undefined;
  }
}

/**
 * The sort key of the advancer's sparse index: the earliest time the schedule has work to do
 * (a start date, a step's time, an end condition), as an ISO date — ISO dates sort by time.
 * Undefined when nothing is pending (pending, paused, waiting for approval without a deadline, finished):
 * the schedule then stays out of the index.
 */
export function nextDueAt(schedule: RampScheduleRecord): string | undefined {
  const due = dueAtMs(schedule);
  if (due === undefined) return undefined;
  return iso(schedule.retryAt ? Math.max(due, ms(schedule.retryAt)) : due);
}

/** Whether the advancer has work to do on the schedule at `now`. */
export function due(schedule: RampScheduleRecord, now: Date): boolean {
  const at = nextDueAt(schedule);
  return at !== undefined && ms(at) <= now.getTime();
}

/**
 * What the advancer does with a schedule at `now`: start it (start date passed), complete it (end
 * condition passed), or leave every step whose time has passed, in one transition that never passes
 * an approval step. Undefined when nothing is due.
 */
export function advance(schedule: RampScheduleRecord, now: Date, features: RampableFeature[]): Transition | undefined {
  if (!due(schedule, now)) return undefined;
  // A monitored step's snapshots and verdicts are the monitor's (ramp-monitoring.ts); only its end condition is the advancer's.
  const deadline = endAt(schedule);
  if (schedule.status === 'running' && currentStepMonitored(schedule) && !(deadline !== undefined && deadline <= now.getTime())) return undefined;
  const rules = targetRules(schedule, features);
  const work = begin(schedule, now);
  const s = work.schedule;
  if (s.status === 'ready') {
    capture(work, rules);
    enterFirstStep(work);
  } else if (s.status === 'running' && !currentStepMonitored(s) && stepIsOver(work)) {
    // A step with an approval hold waits for approve-step once its time is over; the others are left.
    if (needsApproval(s.steps[s.currentStepIndex])) s.status = 'pending-approval';
    else enterSteps(work, s.currentStepIndex + 1, ms(s.nextStepAt!));
  }
  checkDeadline(work);
  return finish(work, rules, progressComment(s));
}

/**
 * Leaves the monitored step the schedule is at, on an `advance` verdict of its analysis at `now`:
 * the next step is entered now (and overdue unmonitored ones after it folded in, as `advance` does).
 */
export function leaveMonitoredStep(schedule: RampScheduleRecord, now: Date, features: RampableFeature[]): Transition {
  assertStatus(schedule, 'advance', ['running']);
  const rules = targetRules(schedule, features);
  const work = begin(schedule, now);
  enterSteps(work, work.schedule.currentStepIndex + 1, work.now);
  checkDeadline(work);
  return finish(work, rules, progressComment(work.schedule));
}

export interface FailurePolicy {
  /** Failed advances in a row before the schedule is paused. */
  maxFailures: number;
  /** The n-th failure in a row waits n times this long before the next attempt. */
  retryDelayMs: number;
}

/**
 * The schedule after an advance failed with `reason`: retried later (never in a hot loop), and
 * paused with the reason recorded once it has failed `maxFailures` times in a row.
 */
export function recordAdvanceFailure(
  schedule: RampScheduleRecord,
  now: Date,
  reason: string,
  policy: FailurePolicy = { maxFailures: 5, retryDelayMs: 60_000 },
): RampScheduleRecord {
  const failures = schedule.failures + 1;
  if (failures < policy.maxFailures) {
    return { ...schedule, failures, retryAt: iso(now.getTime() + policy.retryDelayMs * failures) };
  }
  return { ...schedule, failures: 0, retryAt: null, status: 'paused', pausedAt: iso(now.getTime()), pauseReason: reason };
}

/** Time spent running (waiting for approval included), without pauses; null before the start. */
export function elapsedMs(schedule: RampScheduleRecord, now: Date): number | null {
  if (!schedule.startedAt) return null;
  const end = schedule.endedAt ?? schedule.pausedAt ?? now.toISOString();
  return Math.max(0, ms(end) - ms(schedule.startedAt) - schedule.pausedMs);
}

/** GrowthBook 5's status of a stored one: waiting for an approval is `running` there (with `awaitingApproval`). */
export const apiRampStatus = (status: RampStatus): ApiRampStatus => (status === 'pending-approval' ? 'running' : status);

/**
 * The steps in GrowthBook 5's shape: an interval trigger is its `interval` (with its approval hold, if
 * any); an approval trigger is `interval: null` with `holdConditions.requiresApproval`. A dated trigger
 * (seed-era; GrowthBook 5 has none) is the seconds from the step's planned entry to its date, at least 1,
 * as GrowthBook 5 converts such steps: the current step is entered at `phaseStartedAt`, a later step when
 * the one before ends (an approval step adds no time), an earlier one counting from the start, the start
 * date or now.
 */
export function apiRampSteps(schedule: RampScheduleRecord, now: Date): ApiRampStep[] {
  let cursor = ms(schedule.startedAt ?? schedule.startDate ?? now.toISOString());
  return schedule.steps.map((step, i) => {
    if (i === schedule.currentStepIndex && schedule.phaseStartedAt) cursor = ms(schedule.phaseStartedAt);
    const { trigger, actions, approvalNotes, monitored, holdConditions } = step;
    const common = { actions, ...(approvalNotes !== undefined ? { approvalNotes } : {}), monitored: monitored === true };
    if (trigger.type === 'approval') return { interval: null, ...common, holdConditions: { requiresApproval: true } };
    const interval = trigger.type === 'interval' ? trigger.seconds : Math.max(1, Math.round((ms(trigger.at) - cursor) / 1000));
    cursor += interval * 1000;
    return { interval, ...common, ...(holdConditions ? { holdConditions } : {}) };
  });
}

/**
 * The schedule as the API answers it at `now`: GrowthBook 5.0.1's `RampSchedule` (steps by
 * `apiRampSteps`, `pending-approval` as `running` + `awaitingApproval`, the end condition as
 * `cutoffDate`), `elapsedMs` computed now. Schedules stored in the seed-era shape read the same way.
 */
export function toApiRampSchedule(schedule: RampScheduleRecord, now: Date): RampSchedule {
  return {
    id: schedule.id,
    dateCreated: schedule.dateCreated,
    dateUpdated: schedule.dateUpdated,
    name: schedule.name,
    // The only kind there is; the store's own `entityType` attribute shadows this field in the table.
    entityType: 'feature',
    entityId: schedule.entityId,
    targets: schedule.targets,
    steps: apiRampSteps(schedule, now),
    endActions: schedule.endActions,
    startDate: schedule.startDate,
    cutoffDate: endAt(schedule) === undefined ? null : iso(endAt(schedule)!),
    status: apiRampStatus(schedule.status),
    currentStepIndex: schedule.currentStepIndex,
    startedAt: schedule.startedAt,
    phaseStartedAt: schedule.phaseStartedAt,
    pausedAt: schedule.pausedAt,
    nextStepAt: schedule.nextStepAt,
    nextProcessAt: nextDueAt(schedule) ?? null,
    elapsedMs: elapsedMs(schedule, now),
    ...(schedule.lockdownConfig ? { lockdownConfig: schedule.lockdownConfig } : {}),
    ...(schedule.monitoringConfig !== undefined ? { monitoringConfig: schedule.monitoringConfig } : {}),
    ...(schedule.currentStepEnteredAt !== undefined ? { currentStepEnteredAt: schedule.currentStepEnteredAt } : {}),
    // A paused schedule waits on its pause, not on an approval (as GrowthBook answers it).
    awaitingApproval: schedule.status === 'pending-approval',
    ...(schedule.monitoringStartDate !== undefined ? { monitoringStartDate: schedule.monitoringStartDate } : {}),
    ...(schedule.lastRollbackAt !== undefined ? { lastRollbackAt: schedule.lastRollbackAt } : {}),
    ...(schedule.lastRollbackReason !== undefined ? { lastRollbackReason: schedule.lastRollbackReason } : {}),
    ...(schedule.monitoringConfig ? { monitoringStatus: monitoringStatusOf(schedule) } : {}),
  };
}

/** GrowthBook's read-only `monitoringStatus` of a schedule with a `monitoringConfig`. */
export function monitoringStatusOf(schedule: RampScheduleRecord) {
  const mode = monitoringModeOf(schedule.monitoringConfig);
  const effective = effectiveAutoUpdate(schedule);
  return {
    safeRolloutId: null,
    monitoringMode: mode,
    autoUpdate: mode === 'auto',
    effectiveAutoUpdate: effective.enabled,
    blockedReason: effective.reason,
    nextSnapshotAt: effective.enabled ? (schedule.monitoring?.nextSnapshotAt ?? null) : null,
    currentStepMonitored: currentStepMonitored(schedule),
  };
}
