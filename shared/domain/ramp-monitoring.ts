/**
 * Monitored ramp steps, without I/O: the checks on a schedule's monitoring definition, the evaluator
 * that turns a snapshot of the step's experiment into a verdict (advance, hold or roll back) with its
 * reason, as GrowthBook's `rampScheduleEvaluator` decides, and the transitions that apply a verdict.
 *
 * On a monitored step the rollout rule is served as an experiment: treatment `[0, coverage)`, control
 * `[0.5, 0.5 + coverage)` (a passthrough arm), tracked as `ramp_<schedule id>` with variation keys
 * `0` (control) and `1` (treatment). The analysis compares the arms as GrowthBook's safe rollouts do:
 * frequentist, sequential, one-sided, absolute differences.
 */
import { ConflictError, InvalidInputError } from '../errors';
import type {
  HealthAction,
  HealthSignal,
  HealthSummary,
  MetricHealth,
  MonitoringConfig,
  MonitoringConfigInput,
  TrafficHealth,
} from '../contracts/ramp-monitoring';
import { accumulatedActions, act, activeTargets, leaveMonitoredStep, targetRules, type RampScheduleRecord, type Transition } from './ramp-schedule';
import type { RampableFeature } from './ramp-rules';
import {
  DEFAULT_NO_TRAFFIC_GRACE_HOURS,
  currentStepMonitored,
  emptyRuntime,
  intervalEndMs,
  monitoringModeOf,
  plannedSnapshotAt,
  type MonitoringVerdict,
} from './ramp-monitoring-state';

/** GrowthBook's health defaults (`shared/constants`): SRM p-value threshold and minimum users, multiple-exposure thresholds. */
export const HEALTH = {
  srmThreshold: 0.001,
  srmMinUsersPerVariation: 8,
  multipleExposuresMinCount: 10,
  multipleExposuresMinPercent: 0.01,
} as const;
/** The largest coverage of a monitored step: the control arm `[0.5, 0.5 + coverage)` must end by 1. */
export const MAX_MONITORED_COVERAGE = 0.5;

/** The stored config of an accepted input: `monitoringMode` and `autoUpdate` agree; `autoRollback` is not kept. */
export function normalizeMonitoringConfig(input: MonitoringConfigInput): MonitoringConfig {
  const { autoRollback: _notKept, ...config } = input;
  const mode = monitoringModeOf(config);
  return { ...config, monitoringMode: mode, autoUpdate: mode === 'auto' };
}

/** The stored config with another mode (set-monitoring-mode, set-auto-update); 409 without a config. */
export function withMonitoringMode(schedule: RampScheduleRecord, mode: 'auto' | 'manual'): RampScheduleRecord {
  if (!schedule.monitoringConfig) {
    throw new ConflictError('invalid_status', `Ramp schedule ${schedule.id} has no monitoringConfig; set one with PUT /ramp-schedules/${schedule.id}/monitoring`);
  }
  const next: RampScheduleRecord = { ...schedule, monitoringConfig: { ...schedule.monitoringConfig, monitoringMode: mode, autoUpdate: mode === 'auto' } };
  return replan(next, Date.now());
}

/** The schedule with its next automatic snapshot planned again after a change of config or mode. */
export function replan(schedule: RampScheduleRecord, nowMs: number): RampScheduleRecord {
  if (!schedule.monitoringConfig) return { ...schedule, monitoring: schedule.monitoring ? { ...schedule.monitoring, nextSnapshotAt: null } : schedule.monitoring };
  const runtime = schedule.monitoring ?? emptyRuntime();
  if (!currentStepMonitored(schedule)) return { ...schedule, monitoring: { ...runtime, nextSnapshotAt: null } };
  const lastAt = runtime.lastSnapshotAt ? Date.parse(runtime.lastSnapshotAt) : Date.parse(schedule.currentStepEnteredAt ?? new Date(nowMs).toISOString());
  const planned = plannedSnapshotAt({ ...schedule, monitoring: runtime }, Math.min(nowMs, lastAt));
  return { ...schedule, monitoring: { ...runtime, nextSnapshotAt: planned } };
}

/**
 * 400 unless the schedule's monitored steps can be monitored: a `monitoringConfig`; an interval or
 * scheduled trigger without an approval hold (it waits for its analysis, not a person); rollout rules only
 * (the rule becomes an experiment); and, at each monitored step, a coverage above 0 and at most 0.5.
 */
export function assertMonitoringFits(schedule: RampScheduleRecord | Omit<RampScheduleRecord, 'dateCreated' | 'dateUpdated'>, features: RampableFeature[]): void {
  const monitored = schedule.steps.flatMap((step, index) => (step.monitored ? [index] : []));
  if (monitored.length === 0) return;
  const problems: string[] = [];
  if (!schedule.monitoringConfig) problems.push(`[steps.${monitored[0]}.monitored] a monitored step needs the schedule's monitoringConfig`);
  const rules = targetRules(schedule, features);
  const record = schedule as RampScheduleRecord;
  for (const index of monitored) {
    const step = schedule.steps[index];
    if (step.trigger.type === 'approval') problems.push(`[steps.${index}.trigger] a monitored step needs an interval or scheduled trigger, not approval`);
    else if (step.holdConditions?.requiresApproval) {
      problems.push(`[steps.${index}.holdConditions.requiresApproval] a monitored step advances on its analysis; an approval after it is not supported`);
    }
    for (const target of activeTargets(schedule)) {
      for (const rule of Object.values(rules[target.id] ?? {})) {
        if (rule.type !== 'rollout') {
          problems.push(`[steps.${index}.monitored] rule ${rule.id} is a ${rule.type} rule; only rollout rules can be monitored`);
          continue;
        }
        const patches = accumulatedActions(record, index).filter((action) => action.targetId === target.id && action.patch.coverage !== undefined);
        const coverage = patches.length ? (patches.at(-1)!.patch.coverage ?? 1) : (rule.coverage ?? 1);
        if (!(coverage > 0 && coverage <= MAX_MONITORED_COVERAGE)) {
          problems.push(`[steps.${index}.actions] a monitored step's coverage must be above 0 and at most ${MAX_MONITORED_COVERAGE} (rule ${rule.id} would be at ${coverage})`);
        }
      }
    }
  }
  if (problems.length) throw new InvalidInputError(problems.map((line) => `Request body: ${line}`).join('\n'));
}

// ---- The evaluator ----

/** One metric of a monitoring snapshot: the treatment's effect against control, as the analysis gave it. */
export interface SnapshotMetric {
  id: string;
  name?: string;
  inverse: boolean;
  /** Users per arm: control, treatment. */
  users: [number, number];
  /** Means per arm (a conversion rate for proportions). */
  means: [number, number];
  /** The treatment's absolute effect, its one-sided interval and p-value; absent when it could not be computed. */
  expected?: number;
  ci?: [number, number];
  pValue?: number;
}

/** What the evaluator reads of a successful monitoring snapshot. */
export interface MonitoringSnapshot {
  id: string;
  /** When it was asked for: its data runs up to then. */
  createdAt: string;
  /** Users per arm: control, treatment. */
  variationUnits: [number, number];
  srm: number;
  multipleExposures: number;
  metrics: SnapshotMetric[];
}

export interface EvaluationInput {
  schedule: RampScheduleRecord;
  /** The latest successful snapshot of the step (null when there is none yet). */
  snapshot: MonitoringSnapshot | null;
  now: Date;
}

export interface Verdict {
  decision: 'advance' | 'hold' | 'rollback';
  reason: string;
  summary: HealthSummary;
  /** A health signal (SRM, multiple exposures, no traffic) fired, whatever its action, or a guardrail failed. */
  unhealthy: boolean;
}

const HOUR_MS = 3_600_000;
const finite = (value: number | undefined) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * A metric's health as GrowthBook reports it: `failing` when the one-sided interval lies wholly on the
 * harmful side of zero (a significant regression), `not-enough-data` when an arm has no users or the
 * effect could not be computed, else `within-bounds`.
 */
export function metricHealth(metric: SnapshotMetric, role: 'guardrail' | 'signal'): MetricHealth {
  const harmBound = metric.ci ? finite(metric.inverse ? metric.ci[0] : metric.ci[1]) : undefined;
  const enough = metric.users[0] > 0 && metric.users[1] > 0 && metric.expected !== undefined && harmBound !== undefined;
  const failing = enough && (metric.inverse ? harmBound! > 0 : harmBound! < 0);
  const relative = metric.means[0] !== 0 ? (metric.means[1] - metric.means[0]) / Math.abs(metric.means[0]) : undefined;
  return {
    id: metric.id,
    ...(metric.name ? { name: metric.name } : {}),
    status: !enough ? 'not-enough-data' : failing ? 'failing' : 'within-bounds',
    role,
    ...(finite(relative) !== undefined ? { relativeLift: relative } : {}),
    ...(finite(metric.expected) !== undefined ? { absoluteLift: metric.expected } : {}),
    ...(harmBound !== undefined ? { ciHarmBound: harmBound } : {}),
    ...(finite(metric.pValue) !== undefined ? { pValue: metric.pValue } : {}),
  };
}

/** GrowthBook's SRM health: unhealthy below the threshold once each arm could have its minimum users. */
export const srmUnhealthy = (srm: number, totalUsers: number) =>
  totalUsers >= HEALTH.srmMinUsersPerVariation * 2 && Number.isFinite(srm) && srm < HEALTH.srmThreshold;

/** GrowthBook's multiple-exposure health: unhealthy from 10 such users and 1% of all users. */
export const multipleExposuresUnhealthy = (count: number, totalUsers: number) =>
  count >= HEALTH.multipleExposuresMinCount && totalUsers > 0 && count / totalUsers >= HEALTH.multipleExposuresMinPercent;

/**
 * The verdict on the current monitored step of a running schedule. In order:
 * 1. without a successful snapshot asked for after the step was entered: hold;
 * 2. no traffic: hold during the grace period (from the first monitored step), then `noTrafficAction`;
 * 3. a guardrail metric failing: roll back;
 * 4. a sample-ratio mismatch: `srmAction`; 5. multiple exposures: `multipleExposureAction`;
 * 6. the step's time hold not over: hold; 7. no snapshot asked for after it ended: hold;
 * 8. a signal metric failing: hold; 9. else advance.
 * `warn` reports a signal without acting on it. GrowthBook's current evaluator looks at the time hold
 * first; here the protective checks (2–5) run on every snapshot, as its earlier evaluator did, so a
 * regression is rolled back within one monitoring interval rather than at the end of the step.
 */
export function evaluateMonitoredStep({ schedule, snapshot, now }: EvaluationInput): Verdict {
  const config = schedule.monitoringConfig!;
  const guardrailIds = [...new Set(config.guardrailMetricIds)];
  const signalIds = [...new Set(config.signalMetricIds ?? [])].filter((id) => !guardrailIds.includes(id));
  const step = schedule.steps[schedule.currentStepIndex];
  const enteredAt = schedule.currentStepEnteredAt ?? schedule.phaseStartedAt ?? now.toISOString();
  const current = snapshot && Date.parse(snapshot.createdAt) >= Date.parse(enteredAt) ? snapshot : null;
  const summary = summaryOf(schedule, current, guardrailIds, signalIds, now);
  const verdict = (decision: Verdict['decision'], reason: string, unhealthy = false): Verdict => ({
    decision,
    reason,
    unhealthy,
    summary: { ...summary, safeToAdvance: decision === 'advance', decision, ...(decision === 'advance' ? {} : { decisionReason: reason }) },
  });
  if (!current) return verdict('hold', 'Waiting for analysis results that cover the current monitored step');

  const totalUsers = summary.traffic!.totalUsers;
  let warned = false;
  if (totalUsers === 0) {
    const start = Date.parse(schedule.monitoringStartDate ?? enteredAt);
    const graceMs = (config.noTrafficGracePeriodHours ?? DEFAULT_NO_TRAFFIC_GRACE_HOURS) * HOUR_MS;
    const elapsed = now.getTime() - start;
    if (elapsed < graceMs) {
      const hours = graceMs / HOUR_MS;
      return verdict('hold', `No traffic yet — waiting for ${hours}h monitoring grace period (~${Math.ceil((graceMs - elapsed) / 60_000)} min remaining)`);
    }
    const acted = healthAction(config.noTrafficAction, 'No traffic detected — rolling back (noTrafficAction=rollback)', 'No traffic detected — holding step (noTrafficAction=hold)');
    if (acted) return verdict(acted.decision, acted.reason, true);
    warned = true;
  }

  const failing = guardrailIds.find((id) => summary.metrics[id]?.status === 'failing');
  if (failing) return verdict('rollback', `Guardrail metric ${failing} is a significant loser (variation 1)`, true);

  if (srmUnhealthy(current.srm, totalUsers)) {
    const p = current.srm.toFixed(4);
    const acted = healthAction(
      config.srmAction,
      `Experiment health: SRM check failed (p=${p})`,
      `Experiment health: SRM check failed — holding step (p=${p})`,
    );
    if (acted) return verdict(acted.decision, acted.reason, true);
    warned = true;
  }
  if (multipleExposuresUnhealthy(current.multipleExposures, totalUsers)) {
    const percent = ((current.multipleExposures / totalUsers) * 100).toFixed(1);
    const acted = healthAction(
      config.multipleExposureAction,
      `Experiment health: multiple exposures detected (${percent}% of users)`,
      `Experiment health: multiple exposures detected — holding step (${percent}% of users)`,
    );
    if (acted) return verdict(acted.decision, acted.reason, true);
    warned = true;
  }

  const holdEnd = intervalEndMs(step, enteredAt);
  if (holdEnd !== undefined && now.getTime() < holdEnd) {
    return verdict('hold', `Monitored step: ~${Math.ceil((holdEnd - now.getTime()) / 60_000)} min remaining in hold interval`, warned);
  }
  if (holdEnd !== undefined && Date.parse(current.createdAt) < holdEnd) {
    return verdict('hold', 'Waiting for a snapshot that covers the full step duration', warned);
  }
  const signal = signalIds.find((id) => summary.metrics[id]?.status === 'failing');
  if (signal) return verdict('hold', `Signal metric ${signal} is unhealthy — holding step`, warned);
  return verdict('advance', 'Every guardrail and health check passed', warned);
}

/** What a health action does: a rollback or hold verdict, or nothing for `warn`. GrowthBook's default is `hold`. */
function healthAction(action: HealthAction | undefined, rollbackReason: string, holdReason: string) {
  const chosen = action ?? 'hold';
  if (chosen === 'rollback') return { decision: 'rollback' as const, reason: rollbackReason };
  if (chosen === 'hold') return { decision: 'hold' as const, reason: holdReason };
  return undefined;
}

/** GrowthBook's `healthSummary` of a snapshot, before the decision: traffic, per-metric health, every active signal. */
function summaryOf(
  schedule: RampScheduleRecord,
  snapshot: MonitoringSnapshot | null,
  guardrailIds: string[],
  signalIds: string[],
  now: Date,
): Omit<HealthSummary, 'decision' | 'safeToAdvance'> {
  if (!snapshot) return { signals: ['awaiting-data'], metrics: {} };
  const totalUsers = snapshot.variationUnits[0] + snapshot.variationUnits[1];
  const traffic: TrafficHealth = {
    totalUsers,
    variationUnits: [...snapshot.variationUnits],
    srm: { pValue: snapshot.srm, status: srmUnhealthy(snapshot.srm, totalUsers) ? 'failing' : 'ok' },
    ...(totalUsers > 0
      ? {
          multipleExposures: {
            count: snapshot.multipleExposures,
            percent: snapshot.multipleExposures / totalUsers,
            status: multipleExposuresUnhealthy(snapshot.multipleExposures, totalUsers) ? ('warning' as const) : ('ok' as const),
          },
        }
      : {}),
  };
  const metrics: Record<string, MetricHealth> = {};
  for (const metric of snapshot.metrics) {
    if (guardrailIds.includes(metric.id)) metrics[metric.id] = metricHealth(metric, 'guardrail');
    else if (signalIds.includes(metric.id)) metrics[metric.id] = metricHealth(metric, 'signal');
  }
  const signals: HealthSignal[] = [];
  if (totalUsers === 0) {
    const config = schedule.monitoringConfig!;
    const start = Date.parse(schedule.monitoringStartDate ?? schedule.currentStepEnteredAt ?? now.toISOString());
    const inGrace = now.getTime() - start < (config.noTrafficGracePeriodHours ?? DEFAULT_NO_TRAFFIC_GRACE_HOURS) * HOUR_MS;
    signals.push(inGrace ? 'awaiting-data' : 'no-traffic');
  } else {
    if (traffic.srm?.status === 'failing') signals.push('srm');
    if (traffic.multipleExposures?.status === 'warning') signals.push('multiple-exposures');
    if (guardrailIds.some((id) => metrics[id]?.status === 'failing')) signals.push('guardrail-failing');
    if (signalIds.some((id) => metrics[id]?.status === 'failing')) signals.push('signal-regression');
    if (signals.length === 0) signals.push('healthy');
  }
  return { signals, snapshotAt: snapshot.createdAt, traffic, metrics };
}

// ---- Applying verdicts ----

/** The verdict as the schedule records it. */
const recorded = (schedule: RampScheduleRecord, verdict: Verdict, snapshotId: string | null, now: Date): MonitoringVerdict => ({
  decision: verdict.decision,
  reason: verdict.reason,
  at: now.toISOString(),
  stepIndex: schedule.currentStepIndex,
  snapshotId,
  summary: verdict.summary,
});

/**
 * What a verdict on the snapshot `snapshotId` (judged now) does to the schedule, as one transition:
 * a rollback restores the rules to their state at start (`lastRollbackReason` is the verdict's reason);
 * an advance enters the next step; a hold only records the verdict and plans the next snapshot.
 */
export function applyVerdict(schedule: RampScheduleRecord, verdict: Verdict, snapshot: { id: string; createdAt: string } | null, now: Date, features: RampableFeature[]): Transition {
  const judged = {
    ...(schedule.monitoring ?? emptyRuntime()),
    snapshotId: null,
    snapshotStartedAt: null,
    failures: 0,
    lastError: null,
    ...(snapshot ? { lastSnapshotId: snapshot.id, lastSnapshotAt: snapshot.createdAt } : {}),
    verdict: recorded(schedule, verdict, snapshot?.id ?? null, now),
  };
  const base: RampScheduleRecord = { ...schedule, monitoring: judged };
  if (verdict.decision === 'rollback') {
    const transition = act(base, { type: 'rollback', reason: verdict.reason }, now, features);
    return { ...transition, comment: `Ramp rolled back by monitoring: ${verdict.reason}` };
  }
  if (verdict.decision === 'advance') return leaveMonitoredStep(base, now, features);
  const held = { ...base, monitoring: { ...judged, nextSnapshotAt: plannedSnapshotAt(base, now.getTime()) } };
  return { schedule: held, writes: [], comment: '' };
}

/** The schedule with a snapshot of its current step started (`snapshotId`, asked for at `now`). */
export function startedSnapshot(schedule: RampScheduleRecord, snapshotId: string, now: Date): RampScheduleRecord {
  const runtime = schedule.monitoring ?? emptyRuntime();
  return { ...schedule, monitoring: { ...runtime, snapshotId, snapshotStartedAt: now.toISOString(), nextSnapshotAt: null } };
}

/** A monitoring failure's backoff: the n-th failure in a row waits n minutes, at most one cadence. */
const failureDelayMs = (failures: number, cadence: number) => Math.min(failures * 60_000, cadence);

/**
 * The schedule after its snapshot failed (a failing query, a timeout): the step stays where it is,
 * the error is recorded in the verdict (`hold`), and another snapshot is planned after a backoff, in
 * manual mode too, since the operator asked for one.
 */
export function failedSnapshot(schedule: RampScheduleRecord, snapshotId: string, error: string, now: Date): RampScheduleRecord {
  const runtime = schedule.monitoring ?? emptyRuntime();
  const failures = runtime.failures + 1;
  const reason = `Monitoring snapshot ${snapshotId} failed, retrying: ${error}`;
  const cadence = (schedule.monitoringConfig?.updateScheduleMinutes ?? 60) * 60_000;
  const previous = runtime.verdict?.stepIndex === schedule.currentStepIndex ? runtime.verdict.summary : undefined;
  return {
    ...schedule,
    monitoring: {
      ...runtime,
      snapshotId: null,
      snapshotStartedAt: null,
      failures,
      lastError: error,
      nextSnapshotAt: new Date(now.getTime() + failureDelayMs(failures, cadence)).toISOString(),
      verdict: {
        decision: 'hold',
        reason,
        at: now.toISOString(),
        stepIndex: schedule.currentStepIndex,
        snapshotId,
        summary: { ...(previous ?? { signals: ['awaiting-data'], metrics: {} }), safeToAdvance: false, decision: 'hold', decisionReason: reason },
      },
    },
  };
}

/** 409 unless a refresh can run now (GrowthBook's checks): not finished, with monitored steps, within them. */
export function assertRefreshable(schedule: RampScheduleRecord): void {
  if (schedule.status === 'completed' || schedule.status === 'rolled-back') {
    throw new ConflictError('invalid_status', `Cannot refresh monitoring on a terminal schedule (status: "${schedule.status}").`);
  }
  const first = schedule.steps.findIndex((step) => step.monitored);
  if (first < 0) throw new ConflictError('invalid_status', 'This schedule has no monitored steps. Add a step with `monitored: true` to enable monitoring.');
  const last = schedule.steps.reduce((found, step, i) => (step.monitored ? i : found), -1);
  if (schedule.currentStepIndex < first) {
    throw new ConflictError(
      'invalid_status',
      `Monitoring has not started yet. The schedule reaches its first monitored step at index ${first} (current: ${schedule.currentStepIndex}).`,
    );
  }
  if (schedule.currentStepIndex > last) {
    throw new ConflictError('invalid_status', `The schedule has moved past all monitored steps (last monitored: index ${last}, current: ${schedule.currentStepIndex}).`);
  }
  if (!currentStepMonitored(schedule)) throw new ConflictError('invalid_status', `Step ${schedule.currentStepIndex} is not monitored; nothing to analyse now.`);
  if (!schedule.monitoringConfig) throw new ConflictError('invalid_status', `Ramp schedule ${schedule.id} has no monitoringConfig.`);
  if (schedule.monitoring?.snapshotId) {
    throw new ConflictError('conflict', `A monitoring snapshot (${schedule.monitoring.snapshotId}) is already running; poll GET /ramp-schedules/${schedule.id}/status`);
  }
}

/**
 * 409 when a config change would change what a started monitoring window measures: once its first
 * monitored step was entered (and until the schedule ends), the data source, exposure query, metrics
 * and cadence are locked, as GrowthBook locks them once its monitoring experiment has started.
 * Health actions and the grace period may change at any time.
 */
export function assertConfigChangeAllowed(schedule: RampScheduleRecord, next: MonitoringConfig | null): void {
  const current = schedule.monitoringConfig;
  const started = !!schedule.monitoringStartDate && schedule.status !== 'completed' && schedule.status !== 'rolled-back';
  if (!started || !current) return;
  const measured = (config: MonitoringConfig | null) =>
    config
      ? JSON.stringify([
          config.datasourceId,
          config.exposureQueryId,
          [...config.guardrailMetricIds].sort(),
          [...(config.signalMetricIds ?? [])].sort(),
          config.updateScheduleMinutes ?? null,
        ])
      : 'none';
  if (measured(current) !== measured(next)) {
    throw new ConflictError(
      'invalid_status',
      `Cannot change the monitoring data source, exposure query, metrics or update cadence of ramp schedule ${schedule.id} after monitoring has started; roll it back or let it complete first`,
    );
  }
}
