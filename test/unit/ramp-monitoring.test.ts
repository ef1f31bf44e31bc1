import { ApiError, toApiError } from '../../shared/api/errors';
import { monitoringConfigInput } from '../../shared/contracts/ramp-monitoring';
import {
  applyVerdict,
  assertConfigChangeAllowed,
  evaluateMonitoredStep,
  failedSnapshot,
  metricHealth,
  startedSnapshot,
  type MonitoringSnapshot,
  type SnapshotMetric,
} from '../../shared/domain/ramp-monitoring';
import { monitoringDueMs } from '../../shared/domain/ramp-monitoring-state';
import { act, advance, nextDueAt, type RampScheduleRecord } from '../../shared/domain/ramp-schedule';
import { applied, at, baseFeature, createSchedule, FEATURE_ID, isoAt, T0 } from './ramp-schedule-fixtures';

const MONITORING = {
  datasourceId: 'ds_1',
  exposureQueryId: 'user_id',
  guardrailMetricIds: ['errors'],
  signalMetricIds: ['latency'],
  updateScheduleMinutes: 10,
};

/** 10% monitored for an hour, 30% monitored for an hour, then 100%. */
const STEPS = [
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 0.1 } }], monitored: true },
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 0.3 } }], monitored: true },
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 1 } }] },
];

/** A monitored schedule started at T0, on its first (monitored) step, with its feature. */
function started(config: Record<string, unknown> = {}) {
  const feature = baseFeature();
  const ready = createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', steps: STEPS, monitoringConfig: { ...MONITORING, ...config } }, feature);
  return applied(act(ready, { type: 'start' }, T0, [feature]), feature);
}

const metric = (id: string, fields: Partial<SnapshotMetric> = {}): SnapshotMetric => ({
  id,
  inverse: false,
  users: [5000, 5000],
  means: [0.1, 0.1],
  expected: 0,
  ci: [-Infinity, 0.01],
  pValue: 0.5,
  ...fields,
});

/** A healthy snapshot asked for `seconds` after T0. */
const snapshot = (seconds: number, fields: Partial<MonitoringSnapshot> = {}): MonitoringSnapshot => ({
  id: `snp_${seconds}`,
  createdAt: isoAt(seconds),
  variationUnits: [5000, 5000],
  srm: 0.6,
  multipleExposures: 0,
  metrics: [metric('errors'), metric('latency')],
  ...fields,
});

const evaluate = (schedule: RampScheduleRecord, snap: MonitoringSnapshot | null, seconds: number) => evaluateMonitoredStep({ schedule, snapshot: snap, now: at(seconds) });

describe('the monitoring evaluator', () => {
  it('advances once the step interval is over and a snapshot covering it is healthy', () => {
    const { schedule } = started();
    const verdict = evaluate(schedule, snapshot(3600), 3600);
    expect(verdict).toMatchObject({ decision: 'advance', unhealthy: false });
    expect(verdict.summary).toMatchObject({ safeToAdvance: true, decision: 'advance', signals: ['healthy'] });
  });

  it('holds while the step interval runs, saying how long is left', () => {
    const { schedule } = started();
    expect(evaluate(schedule, snapshot(1200), 1200)).toMatchObject({ decision: 'hold', reason: 'Monitored step: ~40 min remaining in hold interval' });
  });

  it('holds when the latest snapshot was asked for before the interval ended', () => {
    const { schedule } = started();
    expect(evaluate(schedule, snapshot(3000), 3700)).toMatchObject({ decision: 'hold', reason: 'Waiting for a snapshot that covers the full step duration' });
  });

  it('holds without a snapshot, or with one from before the step was entered', () => {
    const { schedule } = started();
    const waiting = { decision: 'hold', reason: 'Waiting for analysis results that cover the current monitored step' };
    expect(evaluate(schedule, null, 3600)).toMatchObject(waiting);
    expect(evaluate(schedule, snapshot(-60), 3600)).toMatchObject(waiting);
    expect(evaluate(schedule, null, 3600).summary.signals).toEqual(['awaiting-data']);
  });

  it('rolls back on a guardrail regression, even before the interval is over', () => {
    const { schedule } = started();
    const regressed = snapshot(600, { metrics: [metric('errors', { expected: -0.02, ci: [-Infinity, -0.005], pValue: 0.001 }), metric('latency')] });
    const verdict = evaluate(schedule, regressed, 600);
    expect(verdict).toMatchObject({ decision: 'rollback', reason: 'Guardrail metric errors is a significant loser (variation 1)', unhealthy: true });
    expect(verdict.summary.signals).toEqual(['guardrail-failing']);
    expect(verdict.summary.metrics.errors).toMatchObject({ status: 'failing', role: 'guardrail', absoluteLift: -0.02, ciHarmBound: -0.005 });
  });

  it('judges an inverse guardrail by its lower bound: an increase is the harm', () => {
    const { schedule } = started();
    const up = metric('errors', { inverse: true, expected: 0.02, ci: [0.004, Infinity] });
    const down = metric('errors', { inverse: true, expected: -0.02, ci: [-0.03, Infinity] });
    expect(evaluate(schedule, snapshot(3600, { metrics: [up] }), 3600).decision).toBe('rollback');
    expect(evaluate(schedule, snapshot(3600, { metrics: [down] }), 3600).decision).toBe('advance');
  });

  it('holds on a failing signal metric instead of rolling back', () => {
    const { schedule } = started();
    const slow = snapshot(3600, { metrics: [metric('errors'), metric('latency', { ci: [-Infinity, -0.01] })] });
    expect(evaluate(schedule, slow, 3600)).toMatchObject({ decision: 'hold', reason: 'Signal metric latency is unhealthy — holding step' });
    expect(evaluate(schedule, slow, 3600).summary.signals).toEqual(['signal-regression']);
  });

  it('treats a metric as guardrail only when it is listed as both', () => {
    const { schedule } = started({ signalMetricIds: ['errors'] });
    const regressed = snapshot(3600, { metrics: [metric('errors', { ci: [-Infinity, -0.01] })] });
    expect(evaluate(schedule, regressed, 3600).decision).toBe('rollback');
  });

  it('reports a metric without users in an arm as not-enough-data, never failing', () => {
    expect(metricHealth(metric('errors', { users: [0, 10], ci: [-Infinity, -1] }), 'guardrail').status).toBe('not-enough-data');
    expect(metricHealth(metric('errors', { expected: undefined, ci: undefined }), 'guardrail').status).toBe('not-enough-data');
  });

  describe('sample-ratio mismatch', () => {
    const srm = (seconds: number) => snapshot(seconds, { variationUnits: [5400, 4600], srm: 0.0000001 });

    it('holds by default (srmAction hold)', () => {
      const { schedule } = started();
      const verdict = evaluate(schedule, srm(3600), 3600);
      expect(verdict).toMatchObject({ decision: 'hold', reason: 'Experiment health: SRM check failed — holding step (p=0.0000)', unhealthy: true });
      expect(verdict.summary.traffic).toMatchObject({ totalUsers: 10000, srm: { status: 'failing' } });
      expect(verdict.summary.signals).toEqual(['srm']);
    });

    it('rolls back with srmAction rollback, and only reports it with warn', () => {
      expect(evaluate(started({ srmAction: 'rollback' }).schedule, srm(3600), 3600)).toMatchObject({
        decision: 'rollback',
        reason: 'Experiment health: SRM check failed (p=0.0000)',
      });
      expect(evaluate(started({ srmAction: 'warn' }).schedule, srm(3600), 3600)).toMatchObject({ decision: 'advance', unhealthy: true });
    });

    it('ignores the p-value below 8 users per arm, as GrowthBook does', () => {
      const { schedule } = started();
      expect(evaluate(schedule, snapshot(3600, { variationUnits: [10, 2], srm: 0.0001, metrics: [] }), 3600).decision).toBe('advance');
    });
  });

  it('acts on multiple exposures from 10 users and 1% of all users', () => {
    const { schedule } = started({ multipleExposureAction: 'rollback' });
    expect(evaluate(schedule, snapshot(3600, { multipleExposures: 150 }), 3600)).toMatchObject({
      decision: 'rollback',
      reason: 'Experiment health: multiple exposures detected (1.5% of users)',
    });
    expect(evaluate(schedule, snapshot(3600, { multipleExposures: 50 }), 3600).decision).toBe('advance');
    expect(evaluate(schedule, snapshot(3600, { multipleExposures: 9, variationUnits: [100, 100] }), 3600).decision).toBe('advance');
  });

  describe('no traffic', () => {
    const empty = (seconds: number) => snapshot(seconds, { variationUnits: [0, 0], srm: 1, metrics: [metric('errors', { users: [0, 0] })] });

    it('holds through the grace period, counted from the first monitored step', () => {
      const { schedule } = started({ noTrafficGracePeriodHours: 2, noTrafficAction: 'rollback' });
      const verdict = evaluate(schedule, empty(3600), 3600);
      expect(verdict).toMatchObject({ decision: 'hold', reason: 'No traffic yet — waiting for 2h monitoring grace period (~60 min remaining)' });
      expect(verdict.summary.signals).toEqual(['awaiting-data']);
    });

    it('applies noTrafficAction after the grace period (24 hours by default)', () => {
      const rollback = started({ noTrafficAction: 'rollback' }).schedule;
      expect(evaluate(rollback, empty(23 * 3600), 23 * 3600).decision).toBe('hold');
      const verdict = evaluate(rollback, empty(24 * 3600), 24 * 3600);
      expect(verdict).toMatchObject({ decision: 'rollback', reason: 'No traffic detected — rolling back (noTrafficAction=rollback)' });
      expect(verdict.summary.signals).toEqual(['no-traffic']);
      expect(evaluate(started().schedule, empty(24 * 3600), 24 * 3600)).toMatchObject({
        decision: 'hold',
        reason: 'No traffic detected — holding step (noTrafficAction=hold)',
      });
      expect(evaluate(started({ noTrafficAction: 'warn' }).schedule, empty(24 * 3600), 24 * 3600).decision).toBe('advance');
    });
  });
});

describe('applying verdicts', () => {
  it('rolls back in one transition: the rule goes back to its state at start, the reason is recorded', () => {
    const { schedule, feature } = started();
    const regressed = snapshot(600, { metrics: [metric('errors', { ci: [-Infinity, -0.01] })] });
    const verdict = evaluate(schedule, regressed, 600);
    const transition = applyVerdict(schedule, verdict, regressed, at(600), [feature]);
    expect(transition.schedule).toMatchObject({
      status: 'rolled-back',
      currentStepIndex: -1,
      lastRollbackAt: isoAt(600),
      lastRollbackReason: 'Guardrail metric errors is a significant loser (variation 1)',
      monitoringStartDate: null,
    });
    expect(transition.schedule.monitoring).toMatchObject({ snapshotId: null, nextSnapshotAt: null, verdict: { decision: 'rollback', snapshotId: 'snp_600' } });
    const rule = applied(transition, feature).feature.environments.production.rules[0];
    expect(rule).toMatchObject({ coverage: 0, enabled: false });
    expect(rule.rampBucketing).toBeUndefined();
  });

  it('advances to the next step now and plans its first snapshot', () => {
    const { schedule, feature } = started();
    const transition = applyVerdict(schedule, evaluate(schedule, snapshot(3600), 3660), snapshot(3600), at(3660), [feature]);
    expect(transition.schedule).toMatchObject({ status: 'running', currentStepIndex: 1, currentStepEnteredAt: isoAt(3660), monitoringStartDate: isoAt(0) });
    expect(transition.schedule.monitoring?.nextSnapshotAt).toBe(isoAt(3660 + 600));
    const rule = applied(transition, feature).feature.environments.production.rules[0];
    expect(rule).toMatchObject({ coverage: 0.3, rampBucketing: { key: 'ramp_rs_1', monitored: true } });
  });

  it('holds without touching the rules, planning the next snapshot one cadence later but never past the interval end', () => {
    const { schedule } = started();
    const early = applyVerdict(schedule, evaluate(schedule, snapshot(600), 600), snapshot(600), at(600), []);
    expect(early.writes).toEqual([]);
    expect(early.schedule.monitoring).toMatchObject({ nextSnapshotAt: isoAt(1200), lastSnapshotAt: isoAt(600) });
    const nearEnd = applyVerdict(schedule, evaluate(schedule, snapshot(3300), 3300), snapshot(3300), at(3300), []);
    expect(nearEnd.schedule.monitoring?.nextSnapshotAt).toBe(isoAt(3600));
  });

  it('never leaves a monitored step on time alone: the advancer leaves it to the monitor', () => {
    const { schedule, feature } = started();
    expect(advance(schedule, at(10 * 3600), [feature])).toBeUndefined();
  });

  it('keeps a step whose snapshot failed, records why, and retries after a backoff', () => {
    const { schedule } = started();
    const running = startedSnapshot(schedule, 'snp_x', at(600));
    expect(monitoringDueMs(running)).toBe(at(600).getTime());
    const failed = failedSnapshot(running, 'snp_x', 'Query q0 failed: boom', at(660));
    expect(failed).toMatchObject({ status: 'running', currentStepIndex: 0 });
    expect(failed.monitoring).toMatchObject({ snapshotId: null, failures: 1, lastError: 'Query q0 failed: boom', nextSnapshotAt: isoAt(720) });
    expect(failed.monitoring?.verdict).toMatchObject({ decision: 'hold', reason: 'Monitoring snapshot snp_x failed, retrying: Query q0 failed: boom' });
    expect(nextDueAt(failed)).toBe(isoAt(720));
  });

  it('plans the first snapshot one cadence after a monitored step is entered, in auto mode only', () => {
    expect(started().schedule.monitoring?.nextSnapshotAt).toBe(isoAt(600));
    expect(nextDueAt(started().schedule)).toBe(isoAt(600));
    expect(started({ monitoringMode: 'manual' }).schedule.monitoring?.nextSnapshotAt).toBeNull();
    expect(started({ autoUpdate: false }).schedule.monitoring?.nextSnapshotAt).toBeNull();
  });

  it('locks the data source, metrics and cadence once monitoring has started, not the health actions', () => {
    const { schedule } = started();
    const config = schedule.monitoringConfig!;
    expect(() => assertConfigChangeAllowed(schedule, { ...config, srmAction: 'rollback', noTrafficGracePeriodHours: 1 })).not.toThrow();
    expect(() => assertConfigChangeAllowed(schedule, { ...config, guardrailMetricIds: ['other'] })).toThrow(/after monitoring has started/);
    expect(() => assertConfigChangeAllowed(schedule, { ...config, updateScheduleMinutes: 30 })).toThrow(/after monitoring has started/);
  });
});

describe('monitored step definitions', () => {
  const refused = (body: Record<string, unknown>) => {
    try {
      createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', ...body }, baseFeature());
    } catch (error) {
      return toApiError(error) as ApiError;
    }
    throw new Error('accepted');
  };

  it('needs a monitoringConfig', () => {
    expect(refused({ steps: STEPS }).message).toMatch(/\[steps\.0\.monitored\] a monitored step needs the schedule's monitoringConfig/);
  });

  it('keeps monitored coverage above 0 and at most 0.5', () => {
    const steps = [{ trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.6 } }], monitored: true }];
    expect(refused({ steps, monitoringConfig: MONITORING }).message).toMatch(/coverage must be above 0 and at most 0.5 \(rule fr_1 would be at 0.6\)/);
    const zero = [{ trigger: { type: 'interval', seconds: 60 }, actions: [], monitored: true }];
    expect(refused({ steps: zero, monitoringConfig: MONITORING }).message).toMatch(/would be at 0\)/);
  });

  it('refuses an approval trigger on a monitored step', () => {
    const steps = [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.1 } }], monitored: true }];
    expect(refused({ steps, monitoringConfig: MONITORING }).status).toBe(400);
  });

  it('validates the config as GrowthBook does: a guardrail, a cadence of at least 10 minutes, known actions', () => {
    expect(monitoringConfigInput.safeParse({ ...MONITORING, guardrailMetricIds: [] }).success).toBe(false);
    expect(monitoringConfigInput.safeParse({ ...MONITORING, updateScheduleMinutes: 5 }).success).toBe(false);
    expect(monitoringConfigInput.safeParse({ ...MONITORING, srmAction: 'ignore' }).success).toBe(false);
    expect(monitoringConfigInput.safeParse({ ...MONITORING, noTrafficGracePeriodHours: 0 }).success).toBe(false);
    expect(monitoringConfigInput.safeParse({ ...MONITORING, updateScheduleMinutes: null, srmAction: 'warn', multipleExposureAction: 'rollback' }).success).toBe(true);
  });
});
