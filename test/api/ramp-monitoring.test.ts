import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import { runScheduler } from '../../functions/scheduler/advance-ramp-schedules';
import { ensureTable } from '../../infra/local/dynamodb';
import { localRunsSettled } from '../../shared/analysis/snapshot-run';
import { tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { queryAll } from '../../shared/db/repository';
import { snapshots } from '../../shared/store/snapshots';
import { seededRandom, sqlTime } from '../support/analysis-data';
import { createDuckDbDataSource } from '../support/analysis-api';
import { createTestOrg, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { expectReferenceRampSchedules } from '../support/reference';

/**
 * Monitored ramps end to end on DuckDB files: the real GrowthBook SDK assigns simulated visitors
 * from the served payload, its tracking callback writes the exposures (and the visitors' purchases
 * are written beside them), and the scheduler runs on its own, minute by minute of a simulated clock:
 * it starts each snapshot when due, the snapshot runs in this process on DuckDB, and the next run
 * judges it and applies the verdict. The test only moves the clock and sends traffic.
 */

// A table of its own: the scheduler serves every organization.
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-ramp-monitoring';

const dataDir = mkdtempSync(path.join(tmpdir(), 'ramp-monitoring-'));
let api: Api;
let org: TestOrg;
let clientKey: string;
let dataSourceId: string;
let metricId: string;

const MINUTE = 60_000;
const USERS = 3000;
const exposures: string[] = [];
const events: string[] = [];

function writeData() {
  writeFileSync(path.join(dataDir, 'exposures.csv'), ['user_id,timestamp,experiment_id,variation_id', ...exposures].join('\n') + '\n');
  writeFileSync(path.join(dataDir, 'events', 'events.csv'), ['user_id,timestamp,event_type,amount', ...events].join('\n') + '\n');
}

beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  mkdirSync(path.join(dataDir, 'events'));
  // A row nobody is exposed to, so every file has its columns typed from the start.
  events.push(`nobody,${sqlTime(Date.parse('2020-01-01T00:00:00Z'))},pageview,0`);
  writeData();
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  org = await createTestOrg('Ramp monitoring');
  const ok = (method: string, route: string, body?: unknown) => requestOk(api, org.keys.admin, method, route, body);
  dataSourceId = (await createDuckDbDataSource(api, org, "SELECT user_id, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')")).id;
  const { factTable } = await ok('POST', '/fact-tables', { name: 'Events', datasource: dataSourceId, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events/*.csv')" });
  metricId = (
    await ok('POST', '/fact-metrics', {
      name: 'Purchased',
      metricType: 'proportion',
      numerator: { factTableId: factTable.id, column: '$$distinctUsers', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] },
    })
  ).factMetric.id;
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
  process.env.TABLE_NAME = sharedTable;
});

/** Every ramp-schedule answer is checked against GrowthBook 5.0.1's `RampSchedule` as it is answered. */
async function ok(method: string, route: string, body?: unknown) {
  const answer = await requestOk(api, org.keys.admin, method, route, body);
  if (route.startsWith('/ramp-schedules')) expectReferenceRampSchedules(answer);
  return answer;
}

async function payload(key = clientKey): Promise<FeatureApiResponse> {
  return (await api.request('GET', `/api/features/${key}`)).body as FeatureApiResponse;
}

/** A boolean feature with a 0% rollout rule, and a monitored ramp on it: 10% and 20% monitored (20 minutes each), then 100%. */
async function monitoredRamp(feature: string, monitoring: Record<string, unknown> = {}) {
  await ok('POST', '/features', {
    id: feature,
    valueType: 'boolean',
    defaultValue: 'false',
    environments: { production: { enabled: true, rules: [{ type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' }] } },
  });
  const ruleId = (await ok('GET', `/features/${feature}`)).feature.environments.production.rules[0].id;
  const { rampSchedule } = await ok('POST', '/ramp-schedules', {
    name: `Guarded ${feature}`,
    featureId: feature,
    ruleId,
    steps: [
      { trigger: { type: 'interval', seconds: 1200 }, actions: [{ patch: { coverage: 0.1 } }], monitored: true },
      { trigger: { type: 'interval', seconds: 1200 }, actions: [{ patch: { coverage: 0.2 } }], monitored: true },
      { trigger: { type: 'interval', seconds: 600 }, actions: [{ patch: { coverage: 1 } }] },
    ],
    monitoringConfig: { datasourceId: dataSourceId, exposureQueryId: 'user_exposures', guardrailMetricIds: [metricId], updateScheduleMinutes: 10, ...monitoring },
  });
  const started = (await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/start`)).rampSchedule;
  return { id: rampSchedule.id as string, startedAt: Date.parse(started.startedAt), ruleId };
}

interface Traffic {
  feature: string;
  visitsPerMinute: number;
  /** The chance that a visitor of each arm purchases. */
  purchase: { control: number; treatment: number };
  /** Extra control exposures of users the SDK never assigned (a broken assignment pipeline). */
  injectControl?: boolean;
}

/**
 * Runs the simulated clock from `from` one minute at a time for up to `minutes`: each minute the SDK
 * serves `traffic`, then the scheduler runs (twice at once with `schedulers: 2`) and any snapshot it
 * started finishes. Stops early when `until` holds. Returns the minutes run.
 */
async function simulate(options: { from: number; minutes: number; traffic?: Traffic; schedulers?: number; until?: () => Promise<boolean>; seed: number }) {
  const random = seededRandom(options.seed);
  for (let minute = 1; minute <= options.minutes; minute++) {
    const now = options.from + minute * MINUTE;
    if (options.traffic) {
      const { feature, visitsPerMinute, purchase, injectControl } = options.traffic;
      const served = await payload();
      for (let i = 0; i < visitsPerMinute; i++) {
        const id = `u${Math.floor(random() * USERS)}`;
        const at = now - MINUTE + Math.floor(random() * MINUTE);
        let arm: string | undefined;
        const gb = new GrowthBook({
          attributes: { id },
          trackingCallback: (experiment, result) => {
            arm = result.key;
            exposures.push(`${id},${sqlTime(at)},${experiment.key},${result.key}`);
            if (injectControl && result.key === '0') exposures.push(`ghost-${feature}-${exposures.length},${sqlTime(at)},${experiment.key},0`);
          },
        }).initSync({ payload: served });
        gb.isOn(feature);
        const chance = arm === '1' ? purchase.treatment : arm === '0' ? purchase.control : 0;
        if (random() < chance) events.push(`${id},${sqlTime(at + 1000)},purchase,10`);
      }
      writeData();
    }
    await Promise.all(Array.from({ length: options.schedulers ?? 1 }, () => runScheduler({ now: new Date(now) })));
    await localRunsSettled();
    if (options.until && (await options.until())) return minute;
  }
  return options.minutes;
}

const schedule = async (id: string) => (await ok('GET', `/ramp-schedules/${id}`)).rampSchedule;
const status = async (id: string) => ok('GET', `/ramp-schedules/${id}/status`);

/** Every event of the organization about a schedule, by name. */
async function eventsOf(scheduleId: string): Promise<string[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :events)',
    ExpressionAttributeValues: { ':pk': keys.organization(org.orgId).PK, ':events': 'EVENT#' },
  });
  return items.filter((item) => item.data?.object?.rampScheduleId === scheduleId).map((item) => item.event);
}

it('rolls a guardrail regression in treatment back within one monitoring interval, and the SDK serves the pre-ramp state', async () => {
  const ramp = await monitoredRamp('regressing-checkout', { srmAction: 'warn' });
  const rule = (await payload()).features?.['regressing-checkout']?.rules?.[0] as Record<string, unknown>;
  expect(rule).toMatchObject({ key: `ramp_${ramp.id}`, ranges: [[0.5, 0.6], [0, 0.1]], meta: [{ key: '0', passthrough: true }, { key: '1' }] });

  await simulate({
    from: ramp.startedAt,
    minutes: 30,
    seed: 1,
    traffic: { feature: 'regressing-checkout', visitsPerMinute: 300, purchase: { control: 0.5, treatment: 0.05 } },
    until: async () => (await schedule(ramp.id)).status === 'rolled-back',
  });

  const after = await schedule(ramp.id);
  expect(after.status).toBe('rolled-back');
  expect(after.lastRollbackReason).toBe(`Guardrail metric ${metricId} is a significant loser (variation 1)`);
  expect(Date.parse(after.lastRollbackAt) - ramp.startedAt).toBeLessThanOrEqual(10 * MINUTE + MINUTE);
  const summary = (await status(ramp.id)).healthSummary;
  expect(summary).toMatchObject({ decision: 'rollback', safeToAdvance: false, signals: expect.arrayContaining(['guardrail-failing']) });
  expect(summary.metrics[metricId]).toMatchObject({ status: 'failing', role: 'guardrail' });
  expect(summary.metrics[metricId].absoluteLift).toBeLessThan(0);

  // The pre-ramp state: the rule back at 0% as it was, so the SDK serves the default to everyone.
  const { feature } = await ok('GET', '/features/regressing-checkout');
  expect(feature.environments.production.rules[0]).toMatchObject({ coverage: 0, enabled: true });
  expect(feature.environments.production.rules[0].rampBucketing).toBeUndefined();
  const served = await payload();
  const on = Array.from({ length: 2000 }, (_, i) => new GrowthBook({ attributes: { id: `u${i}` } }).initSync({ payload: served }).isOn('regressing-checkout'));
  expect(on.filter(Boolean)).toHaveLength(0);
  expect(await eventsOf(ramp.id)).toEqual(expect.arrayContaining(['feature.saferollout.rollback', 'feature.rampSchedule.actions.rolledBack']));
}, 300_000);

it('advances healthy steps on their verdicts, each action applied once with two schedulers on one table', async () => {
  const ramp = await monitoredRamp('healthy-checkout');
  const minutes = await simulate({
    from: ramp.startedAt,
    minutes: 70,
    seed: 2,
    schedulers: 2,
    traffic: { feature: 'healthy-checkout', visitsPerMinute: 200, purchase: { control: 0.3, treatment: 0.3 } },
    until: async () => (await schedule(ramp.id)).status === 'completed',
  });
  const after = await schedule(ramp.id);
  expect(after.status).toBe('completed');
  // 20 minutes per monitored step, each left on the snapshot asked for as its hold ended; then 10 minutes at 100%.
  expect(minutes).toBeLessThanOrEqual(52);
  const names = await eventsOf(ramp.id);
  expect(names.filter((name) => name === 'feature.rampSchedule.actions.step.advanced')).toHaveLength(2);
  expect(names).not.toContain('feature.saferollout.rollback');
  // One snapshot per planned time: two per monitored step, whichever scheduler started it.
  const taken = await snapshots.allTagged(org.orgId, [`experiment:${ramp.id}`]);
  expect(taken.map((s) => s.status)).toEqual(['success', 'success', 'success', 'success']);
  const { feature } = await ok('GET', '/features/healthy-checkout');
  expect(feature.environments.production.rules[0]).toMatchObject({ coverage: 1, enabled: true });
}, 300_000);

it('holds a step whose traffic shows a sample-ratio mismatch, past the end of its interval', async () => {
  const ramp = await monitoredRamp('mismatched-checkout');
  await simulate({
    from: ramp.startedAt,
    minutes: 31,
    seed: 3,
    traffic: { feature: 'mismatched-checkout', visitsPerMinute: 200, purchase: { control: 0.3, treatment: 0.3 }, injectControl: true },
  });
  const after = await schedule(ramp.id);
  expect(after).toMatchObject({ status: 'running', currentStepIndex: 0 });
  const { healthSummary, monitoring } = await status(ramp.id);
  expect(healthSummary).toMatchObject({ decision: 'hold', signals: expect.arrayContaining(['srm']) });
  expect(healthSummary.decisionReason).toMatch(/^Experiment health: SRM check failed — holding step \(p=/);
  expect(healthSummary.traffic.srm.status).toBe('failing');
  expect(monitoring).toMatchObject({ enabled: true, monitoringMode: 'auto', effectiveAutoUpdate: true, currentStepMonitored: true });
  expect(await eventsOf(ramp.id)).toContain('feature.saferollout.unhealthy');
}, 300_000);

it('applies noTrafficAction once the grace period has passed without traffic', async () => {
  const ramp = await monitoredRamp('silent-checkout', { noTrafficGracePeriodHours: 0.5, noTrafficAction: 'rollback' });
  await simulate({ from: ramp.startedAt, minutes: 45, seed: 4, until: async () => (await schedule(ramp.id)).status === 'rolled-back' });
  const after = await schedule(ramp.id);
  expect(after.status).toBe('rolled-back');
  expect(after.lastRollbackReason).toBe('No traffic detected — rolling back (noTrafficAction=rollback)');
  expect(Date.parse(after.lastRollbackAt) - ramp.startedAt).toBeGreaterThanOrEqual(30 * MINUTE);
}, 300_000);

/** The data of the events of the organization about a schedule named `name`, oldest first. */
async function eventData(scheduleId: string, name: string) {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :events)',
    ExpressionAttributeValues: { ':pk': keys.organization(org.orgId).PK, ':events': 'EVENT#' },
  });
  return items.filter((item) => item.data?.object?.rampScheduleId === scheduleId && item.event === name).map((item) => item.data.object);
}

it('holds the step with noTrafficAction hold once the grace period has passed without traffic, past the end of its interval', async () => {
  const ramp = await monitoredRamp('silent-hold-checkout', { noTrafficGracePeriodHours: 0.5, noTrafficAction: 'hold' });
  await simulate({ from: ramp.startedAt, minutes: 45, seed: 5 });

  const after = await schedule(ramp.id);
  expect(after).toMatchObject({ status: 'running', awaitingApproval: false, currentStepIndex: 0 });
  const { healthSummary } = await status(ramp.id);
  expect(healthSummary).toMatchObject({
    decision: 'hold',
    decisionReason: 'No traffic detected — holding step (noTrafficAction=hold)',
    safeToAdvance: false,
    signals: ['no-traffic'],
  });
  const { feature } = await ok('GET', '/features/silent-hold-checkout');
  expect(feature.environments.production.rules[0]).toMatchObject({ coverage: 0.1, enabled: true });
  const names = await eventsOf(ramp.id);
  expect(names).toContain('feature.saferollout.unhealthy');
  expect(names).not.toContain('feature.rampSchedule.actions.step.advanced');
  expect(names).not.toContain('feature.saferollout.rollback');
  const unhealthy = await eventData(ramp.id, 'feature.saferollout.unhealthy');
  expect(unhealthy.length).toBeGreaterThan(0);
  expect(unhealthy.every((data) => data.decision === 'hold' && data.reason === 'No traffic detected — holding step (noTrafficAction=hold)')).toBe(true);
}, 300_000);

it('lets the ramp go on with noTrafficAction warn once the grace period has passed without traffic, reporting the warning', async () => {
  const ramp = await monitoredRamp('silent-warn-checkout', { noTrafficGracePeriodHours: 0.5, noTrafficAction: 'warn' });
  const minutes = await simulate({ from: ramp.startedAt, minutes: 45, seed: 6, until: async () => (await schedule(ramp.id)).currentStepIndex >= 1 });

  const after = await schedule(ramp.id);
  expect(after).toMatchObject({ status: 'running', currentStepIndex: 1 });
  // Not before the grace period ends (the step's own 20 minutes are over by then): until then no traffic holds.
  expect(minutes).toBeGreaterThanOrEqual(30);
  expect(Date.parse(after.currentStepEnteredAt) - ramp.startedAt).toBeGreaterThanOrEqual(30 * MINUTE);
  const { feature } = await ok('GET', '/features/silent-warn-checkout');
  expect(feature.environments.production.rules[0]).toMatchObject({ coverage: 0.2, enabled: true });
  const names = await eventsOf(ramp.id);
  expect(names).toEqual(expect.arrayContaining(['feature.saferollout.unhealthy', 'feature.rampSchedule.actions.step.advanced']));
  expect(names).not.toContain('feature.saferollout.rollback');
  const [warning] = await eventData(ramp.id, 'feature.saferollout.unhealthy');
  expect(warning).toMatchObject({ decision: 'advance', previousStepIndex: 0, currentStepIndex: 1, signals: ['no-traffic'] });
}, 300_000);
