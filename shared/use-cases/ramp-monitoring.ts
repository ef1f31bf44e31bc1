import * as contract from '../contracts/ramp-monitoring-endpoints';
import type { MonitoringConfig } from '../contracts/ramp-monitoring';
import type { StoredSnapshot } from '../contracts/snapshots';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { freezeRampInputs } from '../analysis/ramp-inputs';
import { buildSnapshotQueries } from '../analysis/sql/snapshot-queries';
import { snapshotDeadline } from '../analysis/snapshot-outcome';
import { startSnapshotRun } from '../analysis/start-snapshot-run';
import type { ApiVariationAnalysis } from '../analysis/statistics/api-analysis';
import { isLostRace, retryOnConflict } from '../db/optimistic';
import type { TransactionOp } from '../db/repository';
import { activeTargets, apiRampStatus, toApiRampSchedule, type RampScheduleRecord, type Transition } from '../domain/ramp-schedule';
import { currentStepMonitored, effectiveAutoUpdate, monitoringModeOf } from '../domain/ramp-monitoring-state';
import {
  applyVerdict,
  assertConfigChangeAllowed,
  assertMonitoringFits,
  assertRefreshable,
  evaluateMonitoredStep,
  failedSnapshot,
  normalizeMonitoringConfig,
  replan,
  startedSnapshot,
  withMonitoringMode,
  type MonitoringSnapshot,
  type Verdict,
} from '../domain/ramp-monitoring';
import { InvalidInputError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { logger } from '../logger';
import { readsEverywhere, type Principal } from '../permissions';
import { dataSources } from '../store/data-sources';
import { newEvent, prepareEvent } from '../store/events';
import { factMetrics } from '../store/fact-metrics';
import { factTables } from '../store/fact-tables';
import { features } from '../store/features';
import { changeRampSchedule, commitRampOutcome, rampActor, rampSchedules, readRampWorld, type RampWorld } from '../store/ramp-schedules';
import { readSnapshotResults } from '../store/snapshot-results';
import { prepareSnapshotWatch, snapshots } from '../store/snapshots';
import { projectOf, readableOr404 } from './read-access';

/**
 * Monitored ramps: the monitoring endpoints, the reference checks of a `monitoringConfig`, and what the
 * scheduler does for a schedule on a monitored step (`monitorRampSchedule`): start its snapshot when
 * due, judge a finished one, and apply the verdict through the same conditional transaction as every
 * ramp transition, with its events.
 */

/** 400 unless the config's data source, exposure query and metrics exist in the organization. */
export async function assertMonitoringReferences(orgId: string, config: MonitoringConfig | null | undefined): Promise<void> {
  if (!config) return;
  const ids = [...new Set([...config.guardrailMetricIds, ...(config.signalMetricIds ?? [])])];
  const [dataSource, metrics] = await Promise.all([dataSources.find(orgId, config.datasourceId), factMetrics.getMany(orgId, ids)]);
  if (!dataSource) throw new InvalidInputError(`Request body: [monitoringConfig.datasourceId] data source ${config.datasourceId} not found`);
  if (!dataSource.assignmentQueries.some((query) => query.id === config.exposureQueryId)) {
    throw new InvalidInputError(
      `Request body: [monitoringConfig.exposureQueryId] data source ${dataSource.id} has no exposure query ${config.exposureQueryId} (it has: ${dataSource.assignmentQueries.map((q) => q.id).join(', ') || 'none'})`,
    );
  }
  const found = new Map(metrics.map((metric) => [metric.id, metric]));
  for (const [field, list] of [['guardrailMetricIds', config.guardrailMetricIds], ['signalMetricIds', config.signalMetricIds ?? []]] as const) {
    for (const id of list) {
      const metric = found.get(id);
      if (!metric) throw new InvalidInputError(`Request body: [monitoringConfig.${field}] metric ${id} not found`);
      if (metric.datasource !== dataSource.id) {
        throw new InvalidInputError(`Request body: [monitoringConfig.${field}] metric ${id} reads data source ${metric.datasource}, not ${dataSource.id}`);
      }
    }
  }
}

const present = (schedule: RampScheduleRecord) => toApiRampSchedule(schedule, new Date());

/** `PUT /ramp-schedules/{id}/monitoring`: replace the monitoring configuration. */
export async function updateRampScheduleMonitoring({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateRampScheduleMonitoring>): UseCaseOutput<typeof contract.updateRampScheduleMonitoring> {
  const config = normalizeMonitoringConfig(body);
  // The schedule first: another organization's id is a 404, whatever the config names.
  await rampSchedules.get(auth.orgId, params.id);
  await assertMonitoringReferences(auth.orgId, config);
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, contract.updateRampScheduleMonitoring.permission), (schedule, feature) => {
    assertConfigChangeAllowed(schedule, config);
    const next = { ...schedule, monitoringConfig: config };
    assertMonitoringFits(next, feature ? [feature] : []);
    return { schedule: replan(next, Date.now()), writes: [], comment: '' };
  });
  return present(updated!);
}

async function setMode(auth: Principal, id: string, mode: 'auto' | 'manual') {
  const updated = await changeRampSchedule(auth.orgId, id, rampActor(auth, 'write'), (schedule) => ({
    schedule: withMonitoringMode(schedule, mode),
    writes: [],
    comment: '',
  }));
  return present(updated!);
}

/** `POST /ramp-schedules/{id}/actions/set-monitoring-mode`: auto or manual snapshots. */
export async function setMonitoringModeRampSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.setMonitoringModeRampSchedule>): UseCaseOutput<typeof contract.setMonitoringModeRampSchedule> {
  return setMode(auth, params.id, body.monitoringMode);
}

/** `POST /ramp-schedules/{id}/actions/set-auto-update`: the legacy spelling of set-monitoring-mode. */
export async function setAutoUpdateRampSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.setAutoUpdateRampSchedule>): UseCaseOutput<typeof contract.setAutoUpdateRampSchedule> {
  return setMode(auth, params.id, body.enabled ? 'auto' : 'manual');
}

/** `POST /ramp-schedules/{id}/actions/refresh-monitoring`: start a snapshot of the current monitored step now. */
export async function refreshMonitoringRampSchedule({
  params,
  auth,
}: UseCaseInput<typeof contract.refreshMonitoringRampSchedule>): UseCaseOutput<typeof contract.refreshMonitoringRampSchedule> {
  const actor = rampActor(auth, contract.refreshMonitoringRampSchedule.permission);
  const started = await retryOnConflict(async () => {
    const world = await readRampWorld(auth.orgId, params.id);
    actor.assertAllowed(world.feature?.entity);
    assertRefreshable(world.schedule.entity);
    return startMonitoringSnapshot(auth.orgId, world, new Date(), { triggeredBy: 'manual', keyId: auth.keyId, memberId: auth.memberId });
  });
  return { rampSchedule: present(started) };
}

/** `GET /ramp-schedules/{id}/status`: the schedule's step, monitoring state and latest verdict. */
export async function getRampScheduleStatus({
  params,
  auth,
}: UseCaseInput<typeof contract.getRampScheduleStatus>): UseCaseOutput<typeof contract.getRampScheduleStatus> {
  const schedule = await rampSchedules.get(auth.orgId, params.id);
  if (!readsEverywhere(auth)) {
    const feature = schedule.entityId ? await features.find(auth.orgId, schedule.entityId) : undefined;
    readableOr404(auth, schedule, feature ? projectOf(feature) : [], 'Ramp schedule', params.id);
  }
  const config = schedule.monitoringConfig;
  const mode = monitoringModeOf(config);
  const effective = effectiveAutoUpdate(schedule);
  const verdict = schedule.monitoring?.verdict;
  const inFlight = schedule.monitoring?.snapshotId;
  // The latest verdict on this step stands while the next snapshot runs (GrowthBook: poll until snapshotAt moves).
  const waiting = currentStepMonitored(schedule) && (!verdict || verdict.stepIndex !== schedule.currentStepIndex);
  // A snapshot in flight may have finished already: its verdict comes with the scheduler's next run.
  const finished = inFlight ? (await snapshots.read(auth.orgId, inFlight))?.entity.status : undefined;
  return {
    id: schedule.id,
    status: apiRampStatus(schedule.status),
    currentStepIndex: schedule.currentStepIndex,
    totalSteps: schedule.steps.length,
    startedAt: schedule.startedAt,
    lastRollbackAt: schedule.lastRollbackAt ?? null,
    lastRollbackReason: schedule.lastRollbackReason ?? null,
    ...(config
      ? {
          monitoring: {
            enabled: true,
            monitoringMode: mode,
            autoUpdate: mode === 'auto',
            effectiveAutoUpdate: effective.enabled,
            blockedReason: effective.reason,
            currentStepMonitored: currentStepMonitored(schedule),
            nextSnapshotAt: effective.enabled ? (schedule.monitoring?.nextSnapshotAt ?? null) : null,
            safeRolloutId: null,
          },
        }
      : {}),
    ...(config && waiting
      ? {
          healthSummary: {
            safeToAdvance: false,
            decision: 'hold' as const,
            decisionReason: !inFlight
              ? 'Waiting for analysis results that cover the current monitored step'
              : finished && finished !== 'running'
                ? `Snapshot ${inFlight} has finished (${finished}); its verdict is applied on the scheduler's next run`
                : `Waiting for snapshot ${inFlight} to finish`,
            signals: ['awaiting-data' as const],
            metrics: {},
          },
        }
      : config && verdict
        ? { healthSummary: verdict.summary }
        : {}),
  };
}

// ---- What the scheduler does ----

/** Who started a snapshot. */
interface Trigger {
  triggeredBy: 'manual' | 'schedule';
  keyId: string;
  memberId?: string;
}

/**
 * Starts a snapshot of the schedule's current monitored step: freezes its inputs, then in one
 * transaction conditional on the schedule's version creates the snapshot (with its watch) and records
 * it as in flight, so two schedulers never start two; then starts its run (DuckDB in this process, or
 * the Step Functions workflow in AWS). Returns the schedule as written.
 */
export async function startMonitoringSnapshot(orgId: string, world: RampWorld, now: Date, trigger: Trigger): Promise<RampScheduleRecord> {
  const schedule = world.schedule.entity;
  const config = schedule.monitoringConfig!;
  const ids = [...new Set([...config.guardrailMetricIds, ...(config.signalMetricIds ?? [])])];
  const [dataSource, metrics] = await Promise.all([dataSources.find(orgId, config.datasourceId), factMetrics.getMany(orgId, ids)]);
  const tableIds = [...new Set(metrics.flatMap((m) => [m.numerator.factTableId, ...(m.denominator ? [m.denominator.factTableId] : [])]))];
  const inputs = freezeRampInputs({ schedule, dataSource, metrics, factTables: await factTables.getMany(orgId, tableIds), now });
  // Building the SQL now turns a config the engine cannot run into an error here, not a failed run.
  buildSnapshotQueries(inputs);
  const created = snapshots.prepareCreate(orgId, {
    id: newId('snp_'),
    experiment: schedule.id,
    status: 'running',
    inputs,
    triggeredBy: trigger.triggeredBy,
    triggeredByKeyId: trigger.keyId,
    ...(trigger.memberId ? { triggeredByMemberId: trigger.memberId } : {}),
    phase: 0,
  });
  const next = startedSnapshot(schedule, created.entity.id, now);
  const written = await commitRampOutcome(orgId, world, { schedule: next, writes: [], comment: '' }, schedule.id, [
    created,
    prepareSnapshotWatch(orgId, created.entity.id, snapshotDeadline(now)),
  ]);
  await startSnapshotRun(orgId, created.entity.id);
  return written!;
}

/** What a monitoring snapshot's stored results say, as the evaluator reads them; the data runs up to its inputs' end. */
export function monitoringSnapshotOf(
  snapshot: StoredSnapshot,
  stored: NonNullable<Awaited<ReturnType<typeof readSnapshotResults>>>,
): MonitoringSnapshot {
  const units = stored.summary.traffic?.overall.variationUnits ?? [0, 0];
  const inverse = new Map((snapshot.inputs?.metrics ?? []).map((metric) => [metric.id, metric.inverse]));
  return {
    id: snapshot.id,
    createdAt: snapshot.inputs?.end ?? snapshot.dateCreated,
    variationUnits: [units[0] ?? 0, units[1] ?? 0],
    srm: stored.summary.traffic?.overall.srm ?? 1,
    multipleExposures: stored.summary.multipleExposures,
    metrics: stored.metrics.map((metric) => {
      const overall = metric.dimensions.find((d) => d.dimension === 'All') ?? metric.dimensions[0];
      const [control, treatment] = overall?.variations ?? [];
      const c = control?.analyses[0] as unknown as ApiVariationAnalysis | undefined;
      const t = treatment?.analyses[0] as unknown as ApiVariationAnalysis | undefined;
      return {
        id: metric.metricId,
        name: metric.metricName,
        inverse: inverse.get(metric.metricId) ?? false,
        users: [control?.users ?? 0, treatment?.users ?? 0],
        means: [c?.mean ?? 0, t?.mean ?? 0],
        ...(t ? { expected: t.percentChange, ci: [t.ciLow, t.ciHigh] as [number, number], ...(t.pValue !== undefined ? { pValue: t.pValue } : {}) } : {}),
      };
    }),
  };
}

/** GrowthBook's event payload object of a ramp event. */
function eventObject(schedule: RampScheduleRecord, extra: Record<string, unknown>) {
  return { object: { rampScheduleId: schedule.id, rampName: schedule.name, currentStepIndex: schedule.currentStepIndex, status: apiRampStatus(schedule.status), ...extra } };
}

/**
 * The events of a verdict and of the action it took, with GrowthBook's names: `saferollout.rollback`
 * and `rampSchedule.actions.rolledBack` for a rollback; `saferollout.unhealthy` for a health signal
 * that held the step or only warned; `rampSchedule.actions.step.advanced` for an advance, with
 * `rampSchedule.actions.completed` and `saferollout.ship` when it completed the ramp.
 */
export function verdictEvents(orgId: string, before: RampScheduleRecord, transition: Transition, verdict: Verdict, snapshotId: string): TransactionOp[] {
  const after = transition.schedule;
  const feature = { type: 'feature', id: before.entityId };
  const common = { reason: verdict.reason, decision: verdict.decision, snapshotId, signals: verdict.summary.signals, previousStepIndex: before.currentStepIndex };
  const names: string[] = [];
  if (verdict.decision === 'rollback') names.push('feature.saferollout.rollback', 'feature.rampSchedule.actions.rolledBack');
  else if (verdict.unhealthy) names.push('feature.saferollout.unhealthy');
  if (verdict.decision === 'advance') {
    names.push('feature.rampSchedule.actions.step.advanced');
    if (after.status === 'completed') names.push('feature.rampSchedule.actions.completed', 'feature.saferollout.ship');
  }
  return names.map((name) => prepareEvent(newEvent(orgId, name, feature, eventObject(after, common))));
}

/** What the monitor did with one schedule. */
export type MonitorOutcome = 'started' | 'waiting' | 'advance' | 'hold' | 'rollback' | 'failed' | 'skipped';

const SCHEDULER: Trigger = { triggeredBy: 'schedule', keyId: 'scheduler' };

/**
 * The scheduler's work on one schedule whose time has come, if it is running on a monitored step:
 * judge the snapshot in flight once it has finished (a failed one is recorded and retried later,
 * never advancing the step), or start the next one when it is due. Every write is conditional on the
 * schedule's version, so two schedulers apply each verdict once: the loser reads again and finds
 * nothing left to do.
 */
export async function monitorRampSchedule(orgId: string, id: string, now: Date, expectedFeatureId?: string): Promise<MonitorOutcome> {
  try {
    return await retryOnConflict(() => monitorAttempt(orgId, id, now, expectedFeatureId));
  } catch (error) {
    if (!isLostRace(error)) throw error;
    logger.warn('Ramp monitoring kept losing races', { orgId, scheduleId: id });
    return 'failed';
  }
}

async function monitorAttempt(orgId: string, id: string, now: Date, expectedFeatureId?: string): Promise<MonitorOutcome> {
  let world: RampWorld;
  try {
    world = await readRampWorld(orgId, id, { expectedFeatureId });
  } catch (error) {
    if (error instanceof NotFoundError) return 'skipped';
    throw error;
  }
  const schedule = world.schedule.entity;
  if (schedule.status !== 'running' || !currentStepMonitored(schedule) || !schedule.monitoringConfig) return 'skipped';
  const inFlight = schedule.monitoring?.snapshotId;
  if (inFlight) return judge(orgId, world, inFlight, now);
  const due = schedule.monitoring?.nextSnapshotAt;
  if (!due || Date.parse(due) > now.getTime()) return 'skipped';
  try {
    await startMonitoringSnapshot(orgId, world, now, SCHEDULER);
    return 'started';
  } catch (error) {
    if (isLostRace(error)) throw error;
    // The config no longer fits its data source or metrics: reported on the schedule and retried, never advanced.
    const message = (error as Error).message;
    logger.warn('Ramp monitoring snapshot could not start', { orgId, scheduleId: id, reason: message });
    await commitRampOutcome(orgId, world, { schedule: failedSnapshot(schedule, 'not started', message, now), writes: [], comment: '' }, schedule.id);
    return 'failed';
  }
}

/** Judges the snapshot in flight: still running, failed (recorded, retried later), or a verdict applied. */
async function judge(orgId: string, world: RampWorld, snapshotId: string, now: Date): Promise<MonitorOutcome> {
  const schedule = world.schedule.entity;
  const found = await snapshots.read(orgId, snapshotId);
  const snapshot = found?.entity;
  if (snapshot?.status === 'running') return 'waiting';
  const stored = snapshot?.status === 'success' ? await readSnapshotResults(orgId, snapshotId) : undefined;
  if (!snapshot || !stored) {
    const error = !snapshot ? 'the snapshot is gone' : (snapshot.error ?? 'the snapshot has no results');
    logger.warn('Ramp monitoring snapshot failed', { orgId, scheduleId: schedule.id, snapshotId, error });
    await commitRampOutcome(orgId, world, { schedule: failedSnapshot(schedule, snapshotId, error, now), writes: [], comment: '' }, schedule.id);
    return 'failed';
  }
  const read = monitoringSnapshotOf(snapshot, stored);
  const verdict = evaluateMonitoredStep({ schedule, snapshot: read, now });
  const transition = applyVerdict(schedule, verdict, { id: read.id, createdAt: read.createdAt }, now, world.feature ? [world.feature.entity] : []);
  await commitRampOutcome(orgId, world, transition, schedule.id, verdictEvents(orgId, schedule, transition, verdict, snapshotId));
  logger.info('Ramp monitoring verdict', { orgId, scheduleId: schedule.id, snapshotId, decision: verdict.decision, reason: verdict.reason, targets: activeTargets(schedule).length });
  return verdict.decision;
}
