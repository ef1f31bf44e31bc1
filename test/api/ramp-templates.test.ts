import * as contract from '../../shared/contracts/ramp-schedule-templates';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { createDuckDbDataSource } from '../support/analysis-api';
import { expectReferenceRampSchedules, referenceSchemaValidator } from '../support/reference';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Ramp templates'), createTestOrg('Other org')]);
});
afterAll(() => api.close());

/** Every ramp-schedule answer is checked against GrowthBook 5.0.1's `RampSchedule` as it is answered. */
async function call(method: string, path: string, body?: unknown, key = org.keys.admin) {
  const response = await api.request(method, `/api/v1${path}`, { key, body });
  if (path.startsWith('/ramp-schedules')) expectReferenceRampSchedules(response.body);
  return response;
}
async function ok(method: string, path: string, body?: unknown, key = org.keys.admin) {
  const response = await call(method, path, body, key);
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

const validTemplate = referenceSchemaValidator('RampScheduleTemplate', 'growthbook-5.0.1-openapi.yaml');
/** The template as GrowthBook 5.0.1's document describes `RampScheduleTemplate`. */
function expectReferenceTemplate(template: unknown) {
  if (!validTemplate(template)) throw new Error(JSON.stringify(validTemplate.errors, null, 2));
}

/** GrowthBook 5's template steps: an hour at 10%, an approval before 50%, then a day at 100%. */
const steps = [
  { interval: 3600, actions: [{ targetType: 'feature-rule', targetId: 't1', patch: { ruleId: 'r', coverage: 0.1 } }] },
  {
    interval: null,
    holdConditions: { requiresApproval: true },
    approvalNotes: 'Check the error rate',
    actions: [{ targetType: 'feature-rule', targetId: 't1', patch: { ruleId: 'r', coverage: 0.5 } }],
  },
  { interval: 86400, actions: [{ targetType: 'feature-rule', targetId: 't1', patch: { ruleId: 'r', coverage: 1 } }] },
];
const full = {
  name: 'Careful rollout',
  steps,
  endPatch: { coverage: 1, condition: '' },
  official: true,
  lockdownConfig: { mode: 'locked' },
  monitoringConfig: { datasourceId: 'ds_1', exposureQueryId: 'user_id', guardrailMetricIds: ['met_errors'], updateScheduleMinutes: 30, srmAction: 'hold' },
};

let counter = 0;
async function feature() {
  const id = `tmpl-flag-${++counter}`;
  await ok('POST', '/features', {
    id,
    valueType: 'boolean',
    defaultValue: 'false',
    environments: { production: { enabled: true, rules: [{ id: 'fr_roll', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id', enabled: false }] } },
  });
  return id;
}

const listIds = async (key = org.keys.admin) =>
  ((await ok('GET', '/ramp-schedule-templates', undefined, key)).rampScheduleTemplates as Array<{ id: string }>).map((template) => template.id);

describe('ramp schedule templates', () => {
  it('creates a template in GrowthBook 5.0.1 shape, last in the order', async () => {
    const first = await ok('POST', '/ramp-schedule-templates', { name: 'First', steps: [] });

    const response = await call('POST', '/ramp-schedule-templates', full);

    expect(response.status).toBe(200);
    expectShape(contract.createRampScheduleTemplate, response.body);
    expectReferenceTemplate(response.body.rampScheduleTemplate);
    expect(response.body.rampScheduleTemplate).toMatchObject({ ...full, id: expect.stringMatching(/^rst_/), order: first.rampScheduleTemplate.order + 1 });
    expect(await ok('GET', `/ramp-schedule-templates/${response.body.rampScheduleTemplate.id}`)).toEqual(response.body);
  });

  it('lists templates by order, then by creation, each in 5.0.1 shape', async () => {
    const fresh = await createTestOrg('Ordered templates');
    const make = async (body: Record<string, unknown>) => (await ok('POST', '/ramp-schedule-templates', { steps: [], ...body }, fresh.keys.admin)).rampScheduleTemplate.id;
    const a = await make({ name: 'A' });
    const b = await make({ name: 'B', order: -5 });
    const c = await make({ name: 'C' });

    const response = await call('GET', '/ramp-schedule-templates', undefined, fresh.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.listRampScheduleTemplates, response.body);
    response.body.rampScheduleTemplates.forEach(expectReferenceTemplate);
    expect(response.body.rampScheduleTemplates.map((template: { id: string }) => template.id)).toEqual([b, a, c]);
  });

  it('updates only the fields given, and a new order moves the template', async () => {
    const { rampScheduleTemplate: created } = await ok('POST', '/ramp-schedule-templates', full);

    const response = await call('PUT', `/ramp-schedule-templates/${created.id}`, { name: 'Renamed', order: -100, monitoringConfig: null });

    expect(response.status).toBe(200);
    expectShape(contract.updateRampScheduleTemplate, response.body);
    expectReferenceTemplate(response.body.rampScheduleTemplate);
    expect(response.body.rampScheduleTemplate).toMatchObject({ name: 'Renamed', order: -100, steps, endPatch: full.endPatch, monitoringConfig: null });
    expect(response.body.rampScheduleTemplate.dateUpdated >= created.dateUpdated).toBe(true);
    expect((await listIds())[0]).toBe(created.id);
  });

  it('deletes a template', async () => {
    const { rampScheduleTemplate: created } = await ok('POST', '/ramp-schedule-templates', { name: 'Short-lived', steps: [] });

    const response = await call('DELETE', `/ramp-schedule-templates/${created.id}`);

    expect(response.status).toBe(200);
    expectShape(contract.deleteRampScheduleTemplate, response.body);
    expect(response.body).toEqual({ deletedId: created.id });
    expect((await call('GET', `/ramp-schedule-templates/${created.id}`)).status).toBe(404);
    expect(await listIds()).not.toContain(created.id);
  });

  it.each([
    ['GET', ''],
    ['PUT', { name: 'x' }],
    ['DELETE', ''],
  ])('answers 404 to %s of a template that does not exist, or is another organization\'s', async (method, body) => {
    const { rampScheduleTemplate: theirs } = await ok('POST', '/ramp-schedule-templates', { name: 'Theirs', steps: [] }, other.keys.admin);

    const missing = await call(method, '/ramp-schedule-templates/rst_missing', body || undefined);
    const foreign = await call(method, `/ramp-schedule-templates/${theirs.id}`, body || undefined);

    expect(missing.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect((await ok('GET', `/ramp-schedule-templates/${theirs.id}`, undefined, other.keys.admin)).rampScheduleTemplate.name).toBe('Theirs');
  });

  it.each([
    ['no name', { steps: [] }, /\[name\]/],
    ['no steps', { name: 'x' }, /\[steps\]/],
    ['a step without interval', { name: 'x', steps: [{ actions: [] }] }, /\[steps\.0\.interval\]/],
    ['an interval of 0', { name: 'x', steps: [{ interval: 0, actions: [] }] }, /\[steps\.0\.interval\]/],
    ['a coverage over 1', { name: 'x', steps: [{ interval: 60, actions: [{ targetType: 'feature-rule', targetId: 't', patch: { ruleId: 'r', coverage: 2 } }] }] }, /coverage/],
    ['a forced value (not portable)', { name: 'x', steps: [{ interval: 60, actions: [{ targetType: 'feature-rule', targetId: 't', patch: { ruleId: 'r', force: true } }] }] }, /force/],
    ['a condition that is not JSON', { name: 'x', steps: [], endPatch: { condition: '{nope' } }, /\[endPatch\.condition\]/],
    ['no guardrail metric', { name: 'x', steps: [], monitoringConfig: { datasourceId: 'd', exposureQueryId: 'e', guardrailMetricIds: [] } }, /\[monitoringConfig\.guardrailMetricIds\]/],
    ['updates more often than every 10 minutes', { name: 'x', steps: [], monitoringConfig: { datasourceId: 'd', exposureQueryId: 'e', guardrailMetricIds: ['m'], updateScheduleMinutes: 5 } }, /\[monitoringConfig\.updateScheduleMinutes\]/],
    ['an unknown lockdown mode', { name: 'x', steps: [], lockdownConfig: { mode: 'sealed' } }, /\[lockdownConfig\.mode\]/],
    ['an unknown field', { name: 'x', steps: [], owner: 'me' }, /owner/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const before = await listIds();

    const response = await call('POST', '/ramp-schedule-templates', body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await listIds()).toEqual(before);
  });

  it('answers 400 to an update that breaks the template, and keeps it as it was', async () => {
    const { rampScheduleTemplate: created } = await ok('POST', '/ramp-schedule-templates', full);

    const response = await call('PUT', `/ramp-schedule-templates/${created.id}`, { steps: [{ interval: -1, actions: [] }] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[steps\.0\.interval\]/);
    expect((await ok('GET', `/ramp-schedule-templates/${created.id}`)).rampScheduleTemplate).toEqual(created);
  });

  it('lets a reader read but not write, and an engineer write', async () => {
    const { rampScheduleTemplate: created } = await ok('POST', '/ramp-schedule-templates', { name: 'Team', steps: [] }, org.keys.engineer);

    const read = await call('GET', `/ramp-schedule-templates/${created.id}`, undefined, org.keys.readonly);
    const write = await call('PUT', `/ramp-schedule-templates/${created.id}`, { name: 'No' }, org.keys.readonly);
    const remove = await call('DELETE', `/ramp-schedule-templates/${created.id}`, undefined, org.keys.readonly);
    const none = await call('GET', '/ramp-schedule-templates', undefined, org.keys.noaccess);

    expect(read.status).toBe(200);
    expect(write.status).toBe(403);
    expect(remove.status).toBe(403);
    expect(none.status).toBe(403);
    expect((await ok('GET', `/ramp-schedule-templates/${created.id}`)).rampScheduleTemplate.name).toBe('Team');
  });
});

describe('a ramp made from a template', () => {
  /** Monitoring settings naming a data source and metric of the organization: a schedule's are checked against them. */
  let monitoring: { datasourceId: string; exposureQueryId: string; guardrailMetricIds: string[]; updateScheduleMinutes: number; srmAction: string };
  /** `full` with `monitoring`. */
  const withMonitoring = () => ({ ...full, monitoringConfig: monitoring });

  beforeAll(async () => {
    const dataSourceId = (await createDuckDbDataSource(api, org)).id;
    const { factTable } = await ok('POST', '/fact-tables', { name: 'Events', datasource: dataSourceId, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events/*.csv')" });
    const metricId = (await ok('POST', '/fact-metrics', { name: 'Errors', metricType: 'proportion', numerator: { factTableId: factTable.id, column: '$$distinctUsers' } })).factMetric.id;
    monitoring = { datasourceId: dataSourceId, exposureQueryId: 'user_exposures', guardrailMetricIds: [metricId], updateScheduleMinutes: 30, srmAction: 'hold' };
  });

  it('takes its steps, end state, lockdown and monitoring settings, bound to the rule it ramps', async () => {
    const featureId = await feature();
    const { rampScheduleTemplate: template } = await ok('POST', '/ramp-schedule-templates', withMonitoring());

    const response = await call('POST', '/ramp-schedules', { name: 'From template', featureId, ruleId: 'fr_roll', templateId: template.id });

    expect(response.status).toBe(200);
    const { rampSchedule } = response.body;
    const target = rampSchedule.targets[0].id;
    const action = (coverage: number) => ({ targetType: 'feature-rule', targetId: target, patch: { ruleId: 'fr_roll', coverage } });
    expect(rampSchedule.steps).toEqual([
      { interval: 3600, actions: [action(0.1)], monitored: false },
      { interval: null, holdConditions: { requiresApproval: true }, actions: [action(0.5)], approvalNotes: 'Check the error rate', monitored: false },
      { interval: 86400, actions: [action(1)], monitored: false },
    ]);
    expect(rampSchedule.endActions).toEqual([{ targetType: 'feature-rule', targetId: target, patch: { ruleId: 'fr_roll', coverage: 1, condition: '' } }]);
    expect(rampSchedule.lockdownConfig).toEqual({ mode: 'locked' });
    expect(rampSchedule.monitoringConfig).toEqual({ ...monitoring, monitoringMode: 'auto', autoUpdate: true });
    expect(rampSchedule.monitoringStatus).toMatchObject({ monitoringMode: 'auto', currentStepMonitored: false });

    const started = await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/start`);
    const rule = (await ok('GET', `/features/${featureId}`)).feature.environments.production.rules[0];
    expect(started.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 0 });
    expect(rule).toMatchObject({ coverage: 0.1, enabled: true });
  });

  it("keeps the body's own steps, lockdown and monitoring settings over the template's", async () => {
    const featureId = await feature();
    const { rampScheduleTemplate: template } = await ok('POST', '/ramp-schedule-templates', withMonitoring());

    const { rampSchedule } = await ok('POST', '/ramp-schedules', {
      name: 'Own steps',
      featureId,
      ruleId: 'fr_roll',
      templateId: template.id,
      steps: [{ trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.3 } }] }],
      lockdownConfig: { mode: 'none' },
      monitoringConfig: { ...monitoring, updateScheduleMinutes: 60, srmAction: 'warn' },
    });

    expect(rampSchedule.steps).toHaveLength(1);
    expect(rampSchedule.steps[0].actions[0].patch.coverage).toBe(0.3);
    expect(rampSchedule.lockdownConfig).toEqual({ mode: 'none' });
    expect(rampSchedule.monitoringConfig).toEqual({ ...monitoring, updateScheduleMinutes: 60, srmAction: 'warn', monitoringMode: 'auto', autoUpdate: true });
    expect(rampSchedule.endActions[0].patch).toEqual({ ruleId: 'fr_roll', coverage: 1, condition: '' });
  });

  it('takes no steps without a rule to ramp, as GrowthBook, but its lockdown and monitoring settings', async () => {
    const { rampScheduleTemplate: template } = await ok('POST', '/ramp-schedule-templates', withMonitoring());

    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'No target yet', templateId: template.id });

    expect(rampSchedule).toMatchObject({ status: 'pending', steps: [], endActions: [], lockdownConfig: { mode: 'locked' }, monitoringConfig: monitoring });
  });

  it("monitors the template's monitored steps with the monitoring settings it took", async () => {
    const featureId = await feature();
    const monitoredSteps = [{ interval: 3600, monitored: true, actions: [{ targetType: 'feature-rule', targetId: 't1', patch: { ruleId: 'r', coverage: 0.1 } }] }];
    const { rampScheduleTemplate: template } = await ok('POST', '/ramp-schedule-templates', { name: 'Guarded', steps: monitoredSteps, monitoringConfig: monitoring });

    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Guarded', featureId, ruleId: 'fr_roll', templateId: template.id });
    const started = await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/start`);

    expect(rampSchedule.steps.map((step: { monitored: boolean }) => step.monitored)).toEqual([true]);
    expect(rampSchedule.monitoringConfig).toEqual({ ...monitoring, monitoringMode: 'auto', autoUpdate: true });
    expect(started.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 0, monitoringStatus: { currentStepMonitored: true, effectiveAutoUpdate: true } });
    expect(started.rampSchedule.monitoringStartDate).toBe(started.rampSchedule.startedAt);
  });

  it("answers 400 naming the template's monitoring settings when they name a data source the organization lacks, and stores nothing", async () => {
    const featureId = await feature();
    const { rampScheduleTemplate: template } = await ok('POST', '/ramp-schedule-templates', full);
    const before = (await ok('GET', '/ramp-schedules?limit=1')).total;

    const response = await call('POST', '/ramp-schedules', { name: 'x', featureId, ruleId: 'fr_roll', templateId: template.id });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[monitoringConfig\.datasourceId\] data source ds_1 not found/);
    expect((await ok('GET', '/ramp-schedules?limit=1')).total).toBe(before);
  });

  it('keeps what it took when the template changes or goes', async () => {
    const featureId = await feature();
    const { rampScheduleTemplate: template } = await ok('POST', '/ramp-schedule-templates', withMonitoring());
    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Kept', featureId, ruleId: 'fr_roll', templateId: template.id });

    await ok('PUT', `/ramp-schedule-templates/${template.id}`, { steps: [] });
    await ok('DELETE', `/ramp-schedule-templates/${template.id}`);

    expect((await ok('GET', `/ramp-schedules/${rampSchedule.id}`)).rampSchedule.steps).toEqual(rampSchedule.steps);
  });

  it.each([
    [
      'a sample-size gate',
      [{ interval: 60, holdConditions: { minSampleSize: 100 }, actions: [] }],
      /\[templateId\] template rst_[\w-]+: \[steps\.0\.holdConditions\.minSampleSize\]/,
    ],
    // The ramp made from it has no monitoringConfig, which a monitored step needs.
    ['a monitored step, for a ramp without monitoring', [{ interval: 60, monitored: true, actions: [] }], /\[steps\.0\.monitored\] a monitored step needs the schedule's monitoringConfig/],
    [
      'a patch of environments',
      [{ interval: 60, actions: [{ targetType: 'feature-rule', targetId: 't', patch: { ruleId: 'r', environments: ['dev'] } }] }],
      /\[templateId\] template rst_[\w-]+: \[steps\.0\.actions\.0\.patch\] the template patches a rule's environments/,
    ],
  ])('answers 400 for a template with %s, naming it, and stores nothing', async (_case, templateSteps, message) => {
    const featureId = await feature();
    const { rampScheduleTemplate: template } = await ok('POST', '/ramp-schedule-templates', { name: 'Odd', steps: templateSteps });
    const before = (await ok('GET', '/ramp-schedules?limit=1')).total;

    const response = await call('POST', '/ramp-schedules', { name: 'x', featureId, ruleId: 'fr_roll', templateId: template.id });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await ok('GET', '/ramp-schedules?limit=1')).total).toBe(before);
  });

  it("answers 400 for another organization's template", async () => {
    const featureId = await feature();
    const { rampScheduleTemplate: theirs } = await ok('POST', '/ramp-schedule-templates', full, other.keys.admin);

    const response = await call('POST', '/ramp-schedules', { name: 'x', featureId, ruleId: 'fr_roll', templateId: theirs.id });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(`Request body: [templateId] ramp template ${theirs.id} not found`);
  });
});
