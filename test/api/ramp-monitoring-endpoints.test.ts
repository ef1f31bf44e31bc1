import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import Ajv from 'ajv';
import { createDuckDbDataSource } from '../support/analysis-api';
import { createTestOrg, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { expectReferenceRampSchedules, referenceDocument } from '../support/reference';

/**
 * The monitoring operations of ramp schedules over HTTP, in GrowthBook 5.0.1's shapes; the bucketing of
 * monitored steps as the real SDK reads it (no user changes arm across step-ups); and what SDKs
 * without explicit hash ranges are served.
 */

let api: Api;
let org: TestOrg;
let dataSourceId: string;
let metricId: string;
let counter = 0;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Ramp monitoring endpoints');
  dataSourceId = (await createDuckDbDataSource(api, org)).id;
  const { factTable } = await ok('POST', '/fact-tables', { name: 'Events', datasource: dataSourceId, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events/*.csv')" });
  metricId = (await ok('POST', '/fact-metrics', { name: 'Purchased', metricType: 'proportion', numerator: { factTableId: factTable.id, column: '$$distinctUsers' } })).factMetric.id;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

/** Every ramp-schedule answer is checked against GrowthBook 5.0.1's `RampSchedule` as it is answered. */
async function ok(method: string, route: string, body?: unknown) {
  const answer = await requestOk(api, org.keys.admin, method, route, body);
  if (route.startsWith('/ramp-schedules')) expectReferenceRampSchedules(answer);
  return answer;
}
async function call(method: string, route: string, body?: unknown, key = org.keys.admin) {
  const response = await api.request(method, `/api/v1${route}`, { key, body });
  if (route.startsWith('/ramp-schedules')) expectReferenceRampSchedules(response.body);
  return response;
}

const config = () => ({ datasourceId: dataSourceId, exposureQueryId: 'user_exposures', guardrailMetricIds: [metricId], updateScheduleMinutes: 10 });

/** A feature with a 0% rollout rule; its id and the rule's. */
async function rolloutFeature() {
  const id = `guarded-${++counter}`;
  await ok('POST', '/features', {
    id,
    valueType: 'boolean',
    defaultValue: 'false',
    environments: { production: { enabled: true, rules: [{ type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' }] } },
  });
  return { id, ruleId: (await ok('GET', `/features/${id}`)).feature.environments.production.rules[0].id as string };
}

const monitoredStep = (coverage: number) => ({ trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage } }], monitored: true });

async function createMonitored(extra: Record<string, unknown> = {}) {
  const feature = await rolloutFeature();
  const { rampSchedule } = await ok('POST', '/ramp-schedules', {
    name: 'Guarded',
    featureId: feature.id,
    ruleId: feature.ruleId,
    steps: [monitoredStep(0.1), monitoredStep(0.3)],
    monitoringConfig: config(),
    ...extra,
  });
  return { feature, schedule: rampSchedule };
}

let reference: any;
const document501 = () => (reference ??= referenceDocument('growthbook-5.0.1-openapi.yaml'));

/** A validator of one property of the RampSchedule GrowthBook 5.0.1 answers from set-monitoring-mode. */
function rampScheduleProperty(name: string) {
  const document = document501();
  const schema = document.paths['/v1/ramp-schedules/{id}/actions/set-monitoring-mode'].post.responses['200'].content['application/json'].schema;
  return new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile({ ...schema.properties[name], components: document.components });
}

function componentSchema(name: string) {
  const document = document501();
  return new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile({ $ref: `#/components/schemas/${name}`, components: document.components });
}

describe('monitoringConfig on create and update', () => {
  it.each([
    ['an unknown data source', { datasourceId: 'ds_missing' }, /\[monitoringConfig\.datasourceId\] data source ds_missing not found/],
    ['an unknown exposure query', { exposureQueryId: 'nope' }, /\[monitoringConfig\.exposureQueryId\] data source .* has no exposure query nope/],
    ['an unknown guardrail metric', { guardrailMetricIds: ['fact__missing'] }, /\[monitoringConfig\.guardrailMetricIds\] metric fact__missing not found/],
    ['no guardrail metric', { guardrailMetricIds: [] }, /guardrailMetricIds/],
    ['a cadence under 10 minutes', { updateScheduleMinutes: 5 }, /updateScheduleMinutes/],
    ['an unknown health action', { srmAction: 'explode' }, /srmAction/],
    ['a grace period of 0', { noTrafficGracePeriodHours: 0 }, /noTrafficGracePeriodHours/],
  ])('refuses %s with a 400 naming it, storing nothing', async (_case, change, message) => {
    const feature = await rolloutFeature();
    const before = (await ok('GET', `/ramp-schedules?featureId=${feature.id}`)).total;
    const response = await call('POST', '/ramp-schedules', {
      name: 'Guarded',
      featureId: feature.id,
      ruleId: feature.ruleId,
      steps: [monitoredStep(0.1)],
      monitoringConfig: { ...config(), ...change },
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await ok('GET', `/ramp-schedules?featureId=${feature.id}`)).total).toBe(before);
  });

  it('refuses a monitored step above 50% coverage or without a monitoringConfig', async () => {
    const feature = await rolloutFeature();
    const base = { name: 'Guarded', featureId: feature.id, ruleId: feature.ruleId };
    const over = await call('POST', '/ramp-schedules', { ...base, steps: [monitoredStep(0.6)], monitoringConfig: config() });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/\[steps\.0\.actions\] a monitored step's coverage must be above 0 and at most 0.5/);
    const bare = await call('POST', '/ramp-schedules', { ...base, steps: [monitoredStep(0.1)] });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toMatch(/needs the schedule's monitoringConfig/);
  });

  it("answers the config and GrowthBook's monitoringStatus, in 5.0.1's shapes", async () => {
    const { schedule } = await createMonitored();
    expect(schedule.monitoringConfig).toEqual({ ...config(), monitoringMode: 'auto', autoUpdate: true });
    expect(schedule.monitoringStatus).toEqual({
      safeRolloutId: null,
      monitoringMode: 'auto',
      autoUpdate: true,
      effectiveAutoUpdate: false,
      blockedReason: 'Ramp is ready',
      nextSnapshotAt: null,
      currentStepMonitored: false,
    });
    expect(schedule.steps[0].monitored).toBe(true);
    for (const property of ['monitoringConfig', 'monitoringStatus']) {
      const validate = rampScheduleProperty(property);
      expect([property, validate(schedule[property]) ? 'valid' : validate.errors]).toEqual([property, 'valid']);
    }
  });

  it('takes a monitoringConfig in PUT /ramp-schedules/{id} too, and null removes it', async () => {
    const feature = await rolloutFeature();
    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Plain', featureId: feature.id, ruleId: feature.ruleId, steps: [] });
    const put = await ok('PUT', `/ramp-schedules/${rampSchedule.id}`, { monitoringConfig: { ...config(), monitoringMode: 'manual' } });
    expect(put.rampSchedule.monitoringConfig).toMatchObject({ monitoringMode: 'manual', autoUpdate: false });
    const cleared = await ok('PUT', `/ramp-schedules/${rampSchedule.id}`, { monitoringConfig: null });
    expect(cleared.rampSchedule.monitoringConfig).toBeNull();
    expect(cleared.rampSchedule.monitoringStatus).toBeUndefined();
  });
});

describe('the monitoring operations', () => {
  it('PUT /monitoring replaces the config and answers the schedule itself', async () => {
    const { schedule } = await createMonitored();
    const body = await ok('PUT', `/ramp-schedules/${schedule.id}/monitoring`, { ...config(), srmAction: 'rollback', noTrafficGracePeriodHours: 2 });
    expect(body.id).toBe(schedule.id);
    expect(body.monitoringConfig).toMatchObject({ srmAction: 'rollback', noTrafficGracePeriodHours: 2 });
    const refused = await call('PUT', `/ramp-schedules/${schedule.id}/monitoring`, { ...config(), datasourceId: 'ds_gone' });
    expect(refused.status).toBe(400);
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule.monitoringConfig.datasourceId).toBe(dataSourceId);
  });

  it('locks what a started monitoring window measures, not its health actions', async () => {
    const { schedule } = await createMonitored();
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
    const metrics = await call('PUT', `/ramp-schedules/${schedule.id}/monitoring`, { ...config(), updateScheduleMinutes: 30 });
    expect(metrics.status).toBe(409);
    expect(metrics.body.message).toMatch(/after monitoring has started/);
    expect((await ok('PUT', `/ramp-schedules/${schedule.id}/monitoring`, { ...config(), multipleExposureAction: 'rollback' })).monitoringConfig.multipleExposureAction).toBe('rollback');
  });

  it('set-monitoring-mode and set-auto-update switch between auto and manual', async () => {
    const { schedule } = await createMonitored();
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
    const manual = await ok('POST', `/ramp-schedules/${schedule.id}/actions/set-monitoring-mode`, { monitoringMode: 'manual' });
    expect(manual.monitoringStatus).toMatchObject({ monitoringMode: 'manual', autoUpdate: false, effectiveAutoUpdate: false, blockedReason: 'Manual mode enabled', nextSnapshotAt: null });
    const auto = await ok('POST', `/ramp-schedules/${schedule.id}/actions/set-auto-update`, { enabled: true });
    expect(auto.monitoringStatus).toMatchObject({ monitoringMode: 'auto', autoUpdate: true, effectiveAutoUpdate: true, blockedReason: null, currentStepMonitored: true });
    expect(Date.parse(auto.monitoringStatus.nextSnapshotAt)).toBeGreaterThan(Date.now());
    expect((await call('POST', `/ramp-schedules/${schedule.id}/actions/set-monitoring-mode`, { monitoringMode: 'sometimes' })).status).toBe(400);
  });

  it('refuses the mode actions on a schedule without monitoring (409)', async () => {
    const feature = await rolloutFeature();
    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Plain', featureId: feature.id, ruleId: feature.ruleId, steps: [] });
    const response = await call('POST', `/ramp-schedules/${rampSchedule.id}/actions/set-monitoring-mode`, { monitoringMode: 'manual' });
    expect(response.status).toBe(409);
    expect(response.body.message).toMatch(/has no monitoringConfig/);
  });

  it('refresh-monitoring starts a snapshot on a monitored step only, one at a time', async () => {
    const { schedule } = await createMonitored();
    const early = await call('POST', `/ramp-schedules/${schedule.id}/actions/refresh-monitoring`);
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/Monitoring has not started yet/);
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
    const refreshed = await ok('POST', `/ramp-schedules/${schedule.id}/actions/refresh-monitoring`);
    expect(refreshed.rampSchedule.id).toBe(schedule.id);
    const status = await ok('GET', `/ramp-schedules/${schedule.id}/status`);
    expect(status.healthSummary).toMatchObject({ decision: 'hold', safeToAdvance: false, signals: ['awaiting-data'] });
    expect(status.healthSummary.decisionReason).toMatch(/^(Waiting for snapshot|Snapshot) snp_/);
    const again = await call('POST', `/ramp-schedules/${schedule.id}/actions/refresh-monitoring`);
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already running/);
    expect((await call('POST', `/ramp-schedules/${schedule.id}/actions/refresh-monitoring`, undefined, org.keys.readonly)).status).toBe(403);
  });

  it("GET /status answers GrowthBook's status summary, and 404 for an unknown schedule", async () => {
    const { schedule } = await createMonitored();
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
    const status = await ok('GET', `/ramp-schedules/${schedule.id}/status`);
    expect(status).toMatchObject({ id: schedule.id, status: 'running', currentStepIndex: 0, totalSteps: 2, lastRollbackAt: null, lastRollbackReason: null });
    const monitoring = componentSchema('monitoring');
    const health = componentSchema('healthSummary');
    expect(monitoring(status.monitoring) ? 'valid' : monitoring.errors).toBe('valid');
    expect(health(status.healthSummary) ? 'valid' : health.errors).toBe('valid');
    expect((await call('GET', '/ramp-schedules/rs_missing/status')).status).toBe(404);
  });

  it('records a manual rollback as GrowthBook does', async () => {
    const { schedule } = await createMonitored();
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
    const { rampSchedule } = await ok('POST', `/ramp-schedules/${schedule.id}/actions/rollback`);
    expect(rampSchedule).toMatchObject({ status: 'rolled-back', lastRollbackReason: 'Manual', monitoringStartDate: null });
    expect((await ok('GET', `/ramp-schedules/${schedule.id}/status`)).lastRollbackAt).toBe(rampSchedule.lastRollbackAt);
  });
});

describe('bucketing of a monitored ramp, as the real SDK reads it', () => {
  const IDS = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
  type Arm = 'treatment' | 'control' | 'none';

  /** Each id's arm under a payload: treatment (served the value), control (tracked in the passthrough arm), or neither. */
  function arms(payload: FeatureApiResponse, feature: string): Arm[] {
    return IDS.map((id) => {
      let tracked: string | undefined;
      const gb = new GrowthBook({ attributes: { id }, trackingCallback: (_experiment, result) => { tracked = result.key; } }).initSync({ payload });
      if (gb.isOn(feature)) return 'treatment';
      return tracked === '0' ? 'control' : 'none';
    });
  }

  it('moves no user between arms across 5 step-ups (10,000 ids), through an unmonitored step too', async () => {
    const feature = await rolloutFeature();
    const coverages = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5];
    const steps = coverages.map((coverage, i) => (i === 2 ? { ...monitoredStep(coverage), monitored: false } : monitoredStep(coverage)));
    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Steps', featureId: feature.id, ruleId: feature.ruleId, steps, monitoringConfig: config() });
    await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/start`);
    const clientKey = (await ok('POST', '/sdk-connections', { name: `Web ${feature.id}`, language: 'javascript', environment: 'production' })).sdkConnection.key;
    const history: Arm[][] = [];
    for (let step = 0; step < coverages.length; step++) {
      // Jump is the same transition machinery as a verdict's advance; it leaves the schedule paused at that step.
      if (step > 0) await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/jump`, { targetStepIndex: step });
      const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
      const current = arms(payload, feature.id);
      const share = (arm: Arm) => current.filter((a) => a === arm).length / IDS.length;
      expect(Math.abs(share('treatment') - coverages[step]!)).toBeLessThan(0.02);
      if (step !== 2) expect(Math.abs(share('control') - coverages[step]!)).toBeLessThan(0.02);
      else expect(share('control')).toBe(0);
      history.push(current);
    }
    // Once treated, always treated; once in control, in control at every later monitored step (the
    // unmonitored step serves control users nothing, as before the ramp) and never treated.
    let moved = 0;
    for (let i = 0; i < IDS.length; i++) {
      let treated = false;
      let control = false;
      history.forEach((armsAtStep, step) => {
        const arm = armsAtStep[i];
        if ((treated && arm !== 'treatment') || (control && arm === 'treatment') || (control && step !== 2 && arm !== 'control')) moved += 1;
        treated ||= arm === 'treatment';
        control ||= arm === 'control';
      });
    }
    expect(moved).toBe(0);
  }, 120_000);

  it('serves SDKs without explicit hash ranges the rollout instead of the experiment', async () => {
    const feature = await rolloutFeature();
    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Old SDKs', featureId: feature.id, ruleId: feature.ruleId, steps: [monitoredStep(0.2)], monitoringConfig: config() });
    await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/start`);
    const modern = (await ok('POST', '/sdk-connections', { name: `New ${feature.id}`, language: 'javascript', environment: 'production' })).sdkConnection.key;
    const old = (await ok('POST', '/sdk-connections', { name: `Old ${feature.id}`, language: 'javascript', sdkVersion: '0.21.0', environment: 'production' })).sdkConnection.key;
    const rule = async (key: string) => ((await api.request('GET', `/api/features/${key}`)).body as FeatureApiResponse).features?.[feature.id]?.rules?.[0];
    expect(await rule(modern)).toMatchObject({ key: `ramp_${rampSchedule.id}`, ranges: [[0.5, 0.7], [0, 0.2]], variations: [false, true] });
    const fallback = await rule(old);
    expect(fallback).toMatchObject({ force: true, coverage: 0.2, hashAttribute: 'id' });
    expect(fallback).not.toHaveProperty('ranges');
    expect(fallback).not.toHaveProperty('variations');
  });
});
