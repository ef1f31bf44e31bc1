import * as contract from '../../shared/contracts/experiments';
import { createApiKey } from '../../shared/store/api-keys';
import { newId } from '../../shared/ids';
import { addMember } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['d', 'ds_2', 'ds_tmpl', 'ds_1', 'ds_filter', 'ds_other', 'ds_set', 'ds_x'];

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
});
afterAll(() => api.close());

let counter = 0;
const uniqueKey = () => `exp-key-${Date.now()}-${++counter}`;

const variations = [
  { key: '0', name: 'Control' },
  { key: '1', name: 'Treatment' },
];
const minimal = () => ({ trackingKey: uniqueKey(), name: 'Checkout button', variations });

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/experiments', { key, body });
const update = (id: string, body: unknown, key = org.keys.admin) => api.request('POST', `/api/v1/experiments/${id}`, { key, body });
const get = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/experiments/${id}`, { key });
/** A fact metric computed from `datasource`, made through the API. */
async function factMetric(testOrg: TestOrg, datasource: string): Promise<string> {
  const table = await api.request('POST', '/api/v1/fact-tables', {
    key: testOrg.keys.admin,
    body: { name: 'Orders', datasource, userIdTypes: ['user_id'], sql: 'SELECT * FROM orders' },
  });
  const metric = await api.request('POST', '/api/v1/fact-metrics', {
    key: testOrg.keys.admin,
    body: { name: 'Ordered', metricType: 'proportion', numerator: { factTableId: table.body.factTable.id, column: '$$distinctUsers' } },
  });
  return metric.body.factMetric.id;
}

let metricA: string;
let metricB: string;
let metricElsewhere: string;
beforeAll(async () => {
  [metricA, metricB, metricElsewhere] = await Promise.all([factMetric(org, 'ds_1'), factMetric(org, 'ds_1'), factMetric(org, 'ds_2')]);
  await api.request('POST', '/api/v1/features', { key: org.keys.admin, body: { id: 'some-flag', valueType: 'boolean', defaultValue: 'true' } });
});

const phase = (fields: Record<string, unknown>) => ({ name: 'P', dateStarted: '2024-01-01T00:00:00Z', ...fields });
const newProject = async (orgId: string) => (await projects.create(orgId, { id: newId('prj_'), name: 'Web' })).id;
const total = async (testOrg = org) => (await api.request('GET', '/api/v1/experiments?limit=1', { key: testOrg.keys.admin })).body.total;

describe('POST /experiments', () => {
  it("creates a draft with GrowthBook's defaults", async () => {
    const body = minimal();

    const response = await create(body);

    expect(response.status).toBe(200);
    expectShape(contract.postExperiment, response.body);
    const { experiment } = response.body;
    expect(experiment).toMatchObject({
      id: expect.stringMatching(/^exp_/),
      trackingKey: body.trackingKey,
      name: 'Checkout button',
      type: 'standard',
      project: '',
      hypothesis: '',
      description: '',
      tags: [],
      owner: '',
      archived: false,
      status: 'draft',
      autoRefresh: true,
      hashAttribute: 'id',
      hashVersion: 2,
      shareLevel: 'organization',
      hasVisualChangesets: false,
      settings: {
        datasourceId: '',
        experimentId: body.trackingKey,
        inProgressConversions: 'include',
        attributionModel: 'firstExposure',
        statsEngine: 'bayesian',
        goals: [],
        secondaryMetrics: [],
        guardrails: [],
      },
    });
    expect(experiment.variations).toEqual([
      { variationId: expect.stringMatching(/^var_/), key: '0', name: 'Control', description: '', screenshots: [] },
      { variationId: expect.stringMatching(/^var_/), key: '1', name: 'Treatment', description: '', screenshots: [] },
    ]);
    expect(experiment.phases).toHaveLength(1);
    expect(experiment.phases[0]).toMatchObject({
      name: 'Main',
      dateEnded: '',
      seed: body.trackingKey,
      coverage: 1,
      targetingCondition: '{}',
      trafficSplit: experiment.variations.map((v: { variationId: string }) => ({ variationId: v.variationId, weight: 0.5 })),
    });
  });

  it('builds phases, targeting and metrics as given', async () => {
    const body = {
      ...minimal(),
      datasourceId: 'ds_1',
      assignmentQueryId: 'user_id',
      metrics: [metricA],
      guardrailMetrics: [metricB],
      metricOverrides: [{ id: metricA, windowType: 'conversion', windowHours: 24 }],
      hypothesis: 'Green converts better',
      tags: ['checkout'],
      variations: [
        { id: 'v-control', key: 'c', name: 'Control', screenshots: [{ path: 'https://img/c.png' }] },
        { key: 't', name: 'Green' },
      ],
      phases: [
        {
          name: 'Ramp',
          dateStarted: '2024-01-01T00:00:00Z',
          dateEnded: '2024-01-08T00:00:00.000Z',
          reason: 'ramped up',
          coverage: 0.5,
          condition: '{"country":"US"}',
          variationWeights: [0.25, 0.75],
          namespace: { namespaceId: 'checkout', range: [0, 0.5] },
          prerequisites: [{ id: 'some-flag', condition: '{"value": true}' }],
        },
      ],
    };

    const response = await create(body);

    expect(response.status).toBe(200);
    const { experiment } = response.body;
    const [control, green] = experiment.variations;
    expect(control).toMatchObject({ variationId: 'v-control', screenshots: ['https://img/c.png'] });
    expect(experiment.phases[0]).toEqual({
      name: 'Ramp',
      dateStarted: '2024-01-01T00:00:00.000Z',
      dateEnded: '2024-01-08T00:00:00.000Z',
      reasonForStopping: 'ramped up',
      seed: body.trackingKey,
      coverage: 0.5,
      trafficSplit: [
        { variationId: 'v-control', weight: 0.25 },
        { variationId: green.variationId, weight: 0.75 },
      ],
      namespace: { namespaceId: 'checkout', range: [0, 0.5] },
      targetingCondition: '{"country":"US"}',
      prerequisites: [{ id: 'some-flag', condition: '{"value": true}' }],
      savedGroupTargeting: [],
    });
    expect(experiment.settings).toMatchObject({
      datasourceId: 'ds_1',
      assignmentQueryId: 'user_id',
      goals: [{ metricId: metricA, overrides: { window: 'conversion', windowHours: 24 } }],
      guardrails: [{ metricId: metricB, overrides: {} }],
    });
  });

  it('checks the saved groups of a phase and accepts existing ones', async () => {
    const group = await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body: { name: 'g', condition: '{"id":"1"}' } });
    const phase = { name: 'Main', dateStarted: '2024-01-01T00:00:00Z', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group.body.savedGroup.id] }] };

    const response = await create({ ...minimal(), phases: [phase] });

    expect(response.status).toBe(200);
    expect(response.body.experiment.phases[0].savedGroupTargeting).toEqual(phase.savedGroupTargeting);
  });

  it('makes the member behind a personal access token the owner', async () => {
    const response = await create(minimal(), org.admin.token);

    expect(response.status).toBe(200);
    expect(response.body.experiment).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it('resolves an owner e-mail to the member id', async () => {
    const response = await create({ ...minimal(), owner: org.admin.email });

    expect(response.body.experiment).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it('gives a multi-armed bandit its default schedule', async () => {
    const response = await create({ ...minimal(), type: 'multi-armed-bandit' });

    expect(response.body.experiment).toMatchObject({
      type: 'multi-armed-bandit',
      banditScheduleValue: 1,
      banditScheduleUnit: 'days',
      banditBurnInValue: 1,
      banditBurnInUnit: 'days',
    });
  });

  it("fills in a template's fields, letting the request's own fields win", async () => {
    const template = await api.request('POST', '/api/v1/experiment-templates', {
      key: org.keys.admin,
      body: {
        templateMetadata: { name: 'Checkout' },
        type: 'standard',
        datasource: 'ds_tmpl',
        exposureQueryId: 'anonymous_id',
        statsEngine: 'frequentist',
        hypothesis: 'from the template',
        description: 'template description',
        skipPartialData: true,
        targeting: { coverage: 0.4, condition: '{"beta":true}' },
      },
    });
    const templateId = template.body.experimentTemplate.id;

    const response = await create({ ...minimal(), templateId, hypothesis: 'my own' });

    expect(response.status).toBe(200);
    expect(response.body.experiment).toMatchObject({
      templateId,
      hypothesis: 'my own',
      description: 'template description',
      settings: { datasourceId: 'ds_tmpl', assignmentQueryId: 'anonymous_id', statsEngine: 'frequentist', inProgressConversions: 'exclude' },
    });
    expect(response.body.experiment.phases[0]).toMatchObject({ coverage: 0.4, targetingCondition: '{"beta":true}' });
  });

  it('answers 409 when the tracking key is taken, unless the duplicate is allowed', async () => {
    const body = minimal();
    await create(body);

    const refused = await create(body);
    const allowed = await create({ ...body, bypassDuplicateKeyCheck: true });

    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'already_exists', message: expect.stringMatching(/\[trackingKey\]/) });
    expect(allowed.status).toBe(200);
  });

  it.each([
    // undefined leaves the field out of the JSON body
    ['a missing trackingKey', { trackingKey: undefined }, /\[trackingKey\]/],
    ['a missing name', { name: undefined }, /\[name\]/],
    ['missing variations', { variations: undefined }, /\[variations\]/],
    ['a single variation', { variations: [variations[0]] }, /\[variations\]/],
    ['a variation without a key', { variations: [{ name: 'a' }, { key: 'b', name: 'b' }] }, /\[variations\.0\.key\]/],
    ['two variations with one key', { variations: [{ key: 'a', name: 'a' }, { key: 'a', name: 'b' }] }, /\[variations\.1\.key\]/],
    ['an unknown status', { status: 'paused' }, /\[status\]/],
    ['an unknown type', { type: 'holdout' }, /\[type\]/],
    ['hashVersion 3', { hashVersion: 3 }, /\[hashVersion\]/],
    ['an unknown field', { colour: 'red' }, /colour/],
    ['a phase without dateStarted', { phases: [{ name: 'P' }] }, /\[phases\.0\.dateStarted\]/],
    ['a dateStarted that is not a date-time', { phases: [phase({ dateStarted: 'yesterday' })] }, /\[phases\.0\.dateStarted\]/],
    ['a phase that ends before it starts', { phases: [phase({ dateEnded: '2023-01-01T00:00:00Z' })] }, /\[phases\.0\.dateEnded\]/],
    ['coverage above 1', { phases: [phase({ coverage: 1.5 })] }, /\[phases\.0\.coverage\]/],
    ['weights that do not add up to 1', { phases: [phase({ variationWeights: [0.5, 0.6] })] }, /\[phases\.0\.variationWeights\]/],
    ['one weight for two variations', { phases: [phase({ variationWeights: [1] })] }, /\[phases\.0\.variationWeights\]/],
    ['a condition that is not JSON', { phases: [phase({ condition: 'country = US' })] }, /\[phases\.0\.condition\]/],
    ['a reversed namespace range', { phases: [phase({ namespace: { namespaceId: 'n', range: [0.6, 0.2] } })] }, /\[phases\.0\.namespace\.range\]/],
    ['an unknown saved group', { phases: [phase({ savedGroupTargeting: [{ matchType: 'all', savedGroups: ['grp_missing'] }] })] }, /\[phases\.0\.savedGroupTargeting\.0\.savedGroups\.0\]/],
    ['an unknown matchType', { phases: [phase({ savedGroupTargeting: [{ matchType: 'some', savedGroups: [] }] })] }, /matchType/],
    ['an unknown project', { project: 'prj_missing' }, /\[project\]/],
    ['an unknown owner', { owner: 'u_nobody' }, /\[owner\]/],
    ['an unknown template', { templateId: 'tmplt__missing' }, /\[templateId\]/],
    ['an unknown default dashboard', { defaultDashboardId: 'dash_missing' }, /\[defaultDashboardId\]/],
    ['metrics without a datasource', { metrics: ['fact__any'] }, /\[datasourceId\]/],
    ['an unknown metric', { datasourceId: 'ds_1', secondaryMetrics: ['fact__missing'] }, /\[secondaryMetrics\.0\]/],
    ['a metric of another datasource', { datasourceId: 'ds_1', activationMetric: 'ELSEWHERE' }, /\[activationMetric\]/],
    ['an override of an unknown metric', { datasourceId: 'ds_1', metricOverrides: [{ id: 'fact__missing' }] }, /\[metricOverrides\.0\.id\]/],
    ['an unknown segment', { segmentId: 'seg_missing' }, /\[segmentId\]/],
    ['an unknown prerequisite feature', { phases: [phase({ prerequisites: [{ id: 'no-such-flag', condition: '{}' }] })] }, /\[phases\.0\.prerequisites\.0\.id\]/],
    ['lookbackOverride attribution without a lookback', { attributionModel: 'lookbackOverride' }, /\[lookbackOverride\]/],
    ['a lookback without its attribution model', { lookbackOverride: { type: 'window', value: 7, valueUnit: 'days' } }, /\[lookbackOverride\]/],
    ['a window lookback without a unit', { attributionModel: 'lookbackOverride', lookbackOverride: { type: 'window', value: 7 } }, /\[lookbackOverride\.valueUnit\]/],
    ['a released variation that is not one of its own', { releasedVariationId: 'var_other' }, /\[releasedVariationId\]/],
    ['a scheduled start in the past', { statusUpdateSchedule: { startAt: '2001-01-01T00:00:00Z' } }, /\[statusUpdateSchedule\.startAt\]/],
    ['a scheduled start for a running experiment', { status: 'running', statusUpdateSchedule: { startAt: '2999-01-01T00:00:00Z' } }, /\[statusUpdateSchedule\]/],
    ['a negative targetMDE', { decisionFrameworkSettings: { decisionFrameworkMetricOverrides: [{ id: 'm', targetMDE: 0 }] } }, /targetMDE/],
  ])('answers 400 for %s and stores nothing', async (_case, fields, message) => {
    const before = await total();
    const body = JSON.stringify({ ...minimal(), ...fields }).replace('ELSEWHERE', metricElsewhere);

    const response = await create(JSON.parse(body));

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    expect(await total()).toBe(before);
  });

  it("answers 400 for another organization's saved group", async () => {
    const group = await api.request('POST', '/api/v1/saved-groups', { key: other.keys.admin, body: { name: 'theirs', condition: '{"id":"1"}' } });
    const phases = [phase({ savedGroupTargeting: [{ matchType: 'any', savedGroups: [group.body.savedGroup.id] }] })];

    const response = await create({ ...minimal(), phases });

    expect(response.status).toBe(400);
  });

  it('answers 400 when a template is combined with a datasource of its own', async () => {
    const template = await api.request('POST', '/api/v1/experiment-templates', {
      key: org.keys.admin,
      body: { templateMetadata: { name: 't' }, type: 'standard', datasource: 'd', exposureQueryId: 'q', statsEngine: 'bayesian', targeting: { coverage: 1, condition: '{}' } },
    });

    const response = await create({ ...minimal(), templateId: template.body.experimentTemplate.id, datasourceId: 'ds_x' });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[datasourceId\]/);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create(minimal(), org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it('lets a member who may write in one project create there, and nowhere else', async () => {
    const project = await newProject(org.orgId);
    const member = await addMember(org.orgId, {
      name: 'Project engineer',
      email: `eng-${newId('')}@example.com`,
      role: 'readonly',
      projectRoles: [{ project, role: 'engineer', limitAccessByEnvironment: false, environments: [] }],
    });
    const { secret } = await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'token' });

    const inProject = await create({ ...minimal(), project }, secret);
    const elsewhere = await create(minimal(), secret);

    expect(inProject.status).toBe(200);
    expect(elsewhere.status).toBe(403);
  });

  it('lets an engineer key create', async () => {
    const response = await create(minimal(), org.keys.engineer);

    expect(response.status).toBe(200);
  });
});

describe('GET /experiments/{id}', () => {
  it('returns the experiment with its summary status', async () => {
    const { body: created } = await create(minimal());

    const response = await get(created.experiment.id, org.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.getExperiment, response.body);
    expect(response.body.experiment).toEqual({ ...created.experiment, enhancedStatus: { status: 'Draft' } });
  });

  it.each([
    ['Running', { status: 'running' }],
    ['Stopped', { status: 'stopped' }],
    ['Archived', { status: 'running', archived: true }],
    ['Scheduled', { statusUpdateSchedule: { startAt: '2999-01-01T00:00:00Z' } }],
  ])('summarises the status as %s', async (status, fields) => {
    const { body: created } = await create({ ...minimal(), ...fields });

    const response = await get(created.experiment.id);

    expect(response.body.experiment.enhancedStatus).toEqual({ status });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await get('exp_missing');

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('exp_missing') });
  });

  it('answers 404 when the experiment belongs to another organization', async () => {
    const { body: created } = await create(minimal());

    const response = await get(created.experiment.id, other.keys.admin);

    expect(response.status).toBe(404);
  });
});

describe('GET /experiments', () => {
  it('pages through experiments in creation order', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(minimal(), fresh.keys.admin)).body.experiment.id);

    const first = await api.request('GET', '/api/v1/experiments?limit=2', { key: fresh.keys.readonly });
    const last = await api.request('GET', '/api/v1/experiments?limit=2&offset=2', { key: fresh.keys.readonly });

    expectShape(contract.listExperiments, first.body);
    expect(first.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 3, hasMore: true, nextOffset: 2 });
    expect(first.body.experiments.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    expect(last.body).toMatchObject({ count: 1, total: 3, hasMore: false, nextOffset: null });
  });

  it('filters by project, datasource, tracking key (also as experimentId) and status', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const project = await newProject(fresh.orgId);
    const inProject = await create({ ...minimal(), project }, fresh.keys.admin);
    const withSource = await create({ ...minimal(), datasourceId: 'ds_filter', status: 'running' }, fresh.keys.admin);
    await create(minimal(), fresh.keys.admin);
    const list = async (query: string) =>
      (await api.request('GET', `/api/v1/experiments?${query}`, { key: fresh.keys.admin })).body.experiments.map((e: { id: string }) => e.id);

    expect(await list(`projectId=${project}`)).toEqual([inProject.body.experiment.id]);
    expect(await list('datasourceId=ds_filter')).toEqual([withSource.body.experiment.id]);
    expect(await list(`trackingKey=${withSource.body.experiment.trackingKey}`)).toEqual([withSource.body.experiment.id]);
    expect(await list(`experimentId=${withSource.body.experiment.trackingKey}`)).toEqual([withSource.body.experiment.id]);
    expect(await list('status=running')).toEqual([withSource.body.experiment.id]);
  });

  it('never shows another organization its experiments', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });

    const response = await api.request('GET', '/api/v1/experiments', { key: fresh.keys.admin });

    expect(response.body).toMatchObject({ experiments: [], total: 0 });
  });

  it.each(['limit=0', 'limit=101', 'offset=-1', 'status=paused', 'trackingKey=a&experimentId=a'])('answers 400 for %s', async (query) => {
    const response = await api.request('GET', `/api/v1/experiments?${query}`, { key: org.keys.admin });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Querystring: /);
  });
});

describe('POST /experiments/{id}', () => {
  it('changes only the given fields and bumps dateUpdated', async () => {
    const { body: created } = await create({ ...minimal(), description: 'kept', tags: ['a'] });
    await new Promise((resolve) => setTimeout(resolve, 5));

    const response = await update(created.experiment.id, { name: 'Renamed', tags: ['b', 'c'], status: 'running' });

    expect(response.status).toBe(200);
    expectShape(contract.updateExperiment, response.body);
    expect(response.body.experiment).toMatchObject({ name: 'Renamed', tags: ['b', 'c'], status: 'running', description: 'kept' });
    expect(response.body.experiment.variations).toEqual(created.experiment.variations);
    expect(response.body.experiment.dateCreated).toBe(created.experiment.dateCreated);
    expect(response.body.experiment.dateUpdated > created.experiment.dateUpdated).toBe(true);
  });

  it('keeps variation ids by key and carries the traffic split over to new variations', async () => {
    const { body: created } = await create({ ...minimal(), phases: [phase({ variationWeights: [0.2, 0.8] })] });
    const [control] = created.experiment.variations;

    const response = await update(created.experiment.id, {
      variations: [
        { key: '0', name: 'Control renamed' },
        { key: '2', name: 'New treatment' },
      ],
    });

    const [kept, added] = response.body.experiment.variations;
    expect(kept).toMatchObject({ variationId: control.variationId, name: 'Control renamed' });
    expect(added.variationId).not.toBe(created.experiment.variations[1].variationId);
    expect(response.body.experiment.phases[0].trafficSplit).toEqual([
      { variationId: control.variationId, weight: 0.2 },
      { variationId: added.variationId, weight: 0.8 },
    ]);
  });

  it('records results with the winner as a variation id', async () => {
    const { body: created } = await create({ ...minimal(), status: 'running' });

    const response = await update(created.experiment.id, { status: 'stopped', results: 'won', winner: 1, analysis: 'Green wins' });

    expect(response.body.experiment.resultSummary).toEqual({
      status: 'won',
      winner: created.experiment.variations[1].variationId,
      conclusions: 'Green wins',
      releasedVariationId: '',
      excludeFromPayload: false,
    });
  });

  it('clears a scheduled start with null', async () => {
    const { body: created } = await create({ ...minimal(), statusUpdateSchedule: { startAt: '2999-01-01T00:00:00Z' } });

    const response = await update(created.experiment.id, { statusUpdateSchedule: null });

    expect(response.status).toBe(200);
    expect(response.body.experiment.statusUpdateSchedule).toBeUndefined();
  });

  it.each([
    ['a winner that is not a variation index', { winner: 5 }, /\[winner\]/],
    ['a variation list of one', { variations: [variations[0]] }, /\[variations\]/],
    ['an empty name', { name: '' }, /\[name\]/],
    ['an unknown field', { templateId: 'tmplt__x' }, /templateId/],
    ['a namespace without a range', { phases: [phase({ namespace: { namespaceId: 'n' } })] }, /\[phases\.0\.namespace\.range\]/],
    ['an unknown saved group', { phases: [phase({ savedGroupTargeting: [{ matchType: 'all', savedGroups: ['grp_nope'] }] })] }, /savedGroups\.0\]/],
    ['a new datasource when one is set', { datasourceId: 'ds_other' }, /\[datasourceId\]/],
  ])('answers 400 for %s and leaves the experiment unchanged', async (_case, body, message) => {
    const { body: created } = await create({ ...minimal(), datasourceId: 'ds_set' });

    const response = await update(created.experiment.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    const after = await get(created.experiment.id);
    expect(after.body.experiment).toMatchObject(created.experiment);
  });

  it('loses no write when clients update different fields at once', async () => {
    const { body: created } = await create(minimal());
    const id = created.experiment.id;

    const responses = await Promise.all([
      update(id, { hypothesis: 'h' }),
      update(id, { description: 'd' }),
      update(id, { tags: ['t'] }),
      update(id, { status: 'running' }),
    ]);

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await get(id)).body.experiment).toMatchObject({ hypothesis: 'h', description: 'd', tags: ['t'], status: 'running' });
  });

  it('answers 409 when the new tracking key is taken', async () => {
    const { body: first } = await create(minimal());
    const { body: second } = await create(minimal());

    const response = await update(second.experiment.id, { trackingKey: first.experiment.trackingKey });

    expect(response.status).toBe(409);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await update('exp_missing', { name: 'x' });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's experiment and leaves it unchanged", async () => {
    const { body: created } = await create(minimal());

    const response = await update(created.experiment.id, { name: 'stolen' }, other.keys.admin);

    expect(response.status).toBe(404);
    expect((await get(created.experiment.id)).body.experiment.name).toBe(created.experiment.name);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(minimal());

    const response = await update(created.experiment.id, { name: 'x' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});
