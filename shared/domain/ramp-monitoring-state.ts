/**
 * What a monitored ramp schedule keeps between scheduler runs, and the small rules about it that the
 * state machine (`ramp-schedule.ts`) needs when it enters, leaves or ends a step. No I/O. The
 * evaluator that reads snapshots is `ramp-monitoring.ts`.
 */
import type { HealthSummary, MonitoringConfig, MonitoringMode } from '../contracts/ramp-monitoring';
import type { RampStatus, RampStep } from '../contracts/ramp-schedules';

/** GrowthBook's default grace period before `noTrafficAction` applies. */
export const DEFAULT_NO_TRAFFIC_GRACE_HOURS = 24;
/** The snapshot cadence when `updateScheduleMinutes` is not set. */
export const DEFAULT_UPDATE_MINUTES = 60;

/** The latest verdict on the current monitored step, and why: what `monitoringStatus` and `GET …/status` report. */
export interface MonitoringVerdict {
  decision: 'advance' | 'hold' | 'rollback';
  reason: string;
  /** When it was decided. */
  at: string;
  stepIndex: number;
  /** The snapshot it read (none when it waited for one). */
  snapshotId: string | null;
  summary: HealthSummary;
}

/** The monitoring state of a schedule, stored with it (never in a response as such). */
export interface MonitoringRuntime {
  /** The snapshot started for the current step and not yet judged. */
  snapshotId: string | null;
  snapshotStartedAt: string | null;
  /** When the scheduler starts the next snapshot (auto mode); null when none is planned. */
  nextSnapshotAt: string | null;
  /** The latest snapshot judged, and when it was asked for. */
  lastSnapshotId: string | null;
  lastSnapshotAt: string | null;
  verdict: MonitoringVerdict | null;
  /** Snapshots that failed in a row (a failing query, a timeout); reset by a successful one. */
  failures: number;
  lastError: string | null;
}

/** The fields of a schedule this module reads. */
export interface MonitoredSchedule {
  status: RampStatus;
  steps: RampStep[];
  currentStepIndex: number;
  currentStepEnteredAt?: string | null;
  monitoringConfig?: MonitoringConfig | null;
  monitoring?: MonitoringRuntime | null;
}

export const emptyRuntime = (): MonitoringRuntime => ({
  snapshotId: null,
  snapshotStartedAt: null,
  nextSnapshotAt: null,
  lastSnapshotId: null,
  lastSnapshotAt: null,
  verdict: null,
  failures: 0,
  lastError: null,
});

/** The mode a config asks for: `monitoringMode`, else `autoUpdate: false` means manual, else auto (as GrowthBook reads it). */
export function monitoringModeOf(config: MonitoringConfig | null | undefined): MonitoringMode {
  if (config?.monitoringMode) return config.monitoringMode;
  return config?.autoUpdate === false ? 'manual' : 'auto';
}

/** The snapshot cadence in milliseconds. */
export const cadenceMs = (config: MonitoringConfig) => (config.updateScheduleMinutes ?? DEFAULT_UPDATE_MINUTES) * 60_000;

/** Whether the step the schedule is at is monitored. */
export const currentStepMonitored = (schedule: Pick<MonitoredSchedule, 'steps' | 'currentStepIndex'>) =>
  schedule.currentStepIndex >= 0 && !!schedule.steps[schedule.currentStepIndex]?.monitored;

/** Whether snapshots run by themselves now, and why not (GrowthBook's `effectiveAutoUpdate` and `blockedReason`). */
export function effectiveAutoUpdate(schedule: MonitoredSchedule): { enabled: boolean; reason: string | null } {
  if (!schedule.monitoringConfig) return { enabled: false, reason: 'Monitoring is not configured' };
  if (monitoringModeOf(schedule.monitoringConfig) === 'manual') return { enabled: false, reason: 'Manual mode enabled' };
  if (schedule.status !== 'running') return { enabled: false, reason: `Ramp is ${schedule.status}` };
  if (!currentStepMonitored(schedule)) return { enabled: false, reason: 'Current step is not monitored' };
  return { enabled: true, reason: null };
}

/** When a monitored step's time hold ends (undefined for a step without one). */
export function intervalEndMs(step: RampStep | undefined, enteredAt: string | null | undefined): number | undefined {
  if (!step || !enteredAt) return undefined;
  if (step.trigger.type === 'interval') return Date.parse(enteredAt) + Math.round(step.trigger.seconds * 1000);
  if (step.trigger.type === 'scheduled') return Math.max(Date.parse(step.trigger.at), Date.parse(enteredAt));
  return undefined;
}

/**
 * When the next automatic snapshot of the current step runs after `fromMs`: one cadence later, but
 * never after the end of the step's time hold, so that a snapshot covering the whole step follows it.
 * Null when snapshots do not run by themselves.
 */
export function plannedSnapshotAt(schedule: MonitoredSchedule, fromMs: number): string | null {
  if (!effectiveAutoUpdate(schedule).enabled) return null;
  const next = fromMs + cadenceMs(schedule.monitoringConfig!);
  const holdEnd = intervalEndMs(schedule.steps[schedule.currentStepIndex], schedule.currentStepEnteredAt);
  const lastAt = schedule.monitoring?.lastSnapshotAt ? Date.parse(schedule.monitoring.lastSnapshotAt) : -Infinity;
  const coversHold = holdEnd === undefined || lastAt >= holdEnd;
  const at = !coversHold && holdEnd! > fromMs ? Math.min(next, holdEnd!) : next;
  return new Date(at).toISOString();
}

/**
 * When the scheduler must look at a running schedule on a monitored step: at once while a snapshot
 * is in flight (to judge it when it ends), else when the next automatic snapshot is due. Undefined
 * when nothing is planned (manual mode: a refresh starts the next one).
 */
export function monitoringDueMs(schedule: MonitoredSchedule): number | undefined {
  const runtime = schedule.monitoring;
  if (runtime?.snapshotId) return Date.parse(runtime.snapshotStartedAt ?? new Date(0).toISOString());
  return runtime?.nextSnapshotAt ? Date.parse(runtime.nextSnapshotAt) : undefined;
}
