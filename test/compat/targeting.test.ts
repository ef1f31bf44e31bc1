import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { waitForSnapshot } from '../support/analysis-api';

// Conditions, dates and saved groups as GrowthBook scripts write them.

let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Test org', { dataSources: ['ds_main'] });
});
afterAll(() => api.close());

const post = (path: string, body: unknown) => api.request('POST', `/api/v1${path}`, { key: org.keys.admin, body });
let n = 0;
const variations = [{ key: '0', name: 'Control' }, { key: '1', name: 'Treatment' }];

describe('an experiment with date-only phases and an empty condition', () => {
  it('is created, with the dates as UTC midnight and the condition read back as "{}"', async () => {
    const response = await post('/experiments', {
      trackingKey: `compat-${++n}`,
      name: 'Checkout',
      variations,
      phases: [{ name: 'Main', dateStarted: '2024-05-01', dateEnded: '2024-05-15T12:00:00', condition: '', prerequisites: [] }],
    });

    expect(response.status).toBe(200);
    expect(response.body.experiment.phases[0]).toMatchObject({
      dateStarted: '2024-05-01T00:00:00.000Z',
      dateEnded: '2024-05-15T12:00:00.000Z',
      targetingCondition: '{}',
    });
  });

  it('reads back "{}" for a phase given no condition', async () => {
    const response = await post('/experiments', { trackingKey: `compat-${++n}`, name: 'No condition', variations, phases: [{ name: 'Main', dateStarted: '2024-05-01' }] });

    expect(response.body.experiment.phases[0].targetingCondition).toBe('{}');
  });

  it('takes an empty prerequisite condition as none', async () => {
    const flag = (await post('/features', { id: `compat-parent-${++n}`, valueType: 'boolean', defaultValue: 'true' })).body.feature.id;

    const response = await post('/experiments', {
      trackingKey: `compat-${++n}`,
      name: 'Gated',
      variations,
      phases: [{ name: 'Main', dateStarted: '2024-05-01T00:00:00Z', prerequisites: [{ id: flag, condition: '' }] }],
    });

    expect(response.status).toBe(200);
    expect(response.body.experiment.phases[0].prerequisites).toEqual([{ id: flag, condition: '{}' }]);
  });

  it('refuses a date that is not a date', async () => {
    const response = await post('/experiments', { trackingKey: `compat-${++n}`, name: 'Bad', variations, phases: [{ name: 'Main', dateStarted: '2024-13-45' }] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[phases\.0\.dateStarted\]/);
  });

  it('takes a date-only statusUpdateSchedule for a draft', async () => {
    const response = await post('/experiments', { trackingKey: `compat-${++n}`, name: 'Later', variations, statusUpdateSchedule: { startAt: '2999-01-01' } });

    expect(response.status).toBe(200);
    expect(response.body.experiment.statusUpdateSchedule).toEqual({ startAt: '2999-01-01T00:00:00.000Z' });
  });
});

describe('an experiment template with an empty targeting condition', () => {
  it('stores the condition, and an empty prerequisite condition, as "{}"', async () => {
    const flag = (await post('/features', { id: `compat-parent-${++n}`, valueType: 'boolean', defaultValue: 'true' })).body.feature.id;

    const response = await post('/experiment-templates', {
      templateMetadata: { name: `Template ${++n}` },
      type: 'standard',
      datasource: 'ds_main',
      exposureQueryId: 'user_id',
      statsEngine: 'bayesian',
      targeting: { coverage: 1, condition: '', prerequisites: [{ id: flag, condition: '' }] },
    });

    expect(response.status).toBe(200);
    expect(response.body.experimentTemplate.targeting).toMatchObject({ condition: '{}', prerequisites: [{ id: flag, condition: '{}' }] });
  });
});

describe('a ramp schedule with dates written without a time or an offset', () => {
  it('reads each as UTC', async () => {
    const response = await post('/ramp-schedules', {
      name: `Dated ${++n}`,
      startDate: '2999-01-01',
      steps: [{ trigger: { type: 'scheduled', at: '2999-01-02T09:30:00' } }],
      endCondition: { trigger: { type: 'scheduled', at: '2999-03-01' } },
    });

    expect(response.status).toBe(200);
    // Answered in GrowthBook 5's shape: the dated step as its seconds from the start date (33.5 hours).
    expect(response.body.rampSchedule).toMatchObject({
      startDate: '2999-01-01T00:00:00.000Z',
      steps: [{ interval: 33.5 * 3600 }],
      cutoffDate: '2999-03-01T00:00:00.000Z',
    });
  });
});

describe('saved groups', () => {
  it('refuses a condition group whose condition is empty, as GrowthBook does', async () => {
    for (const condition of ['{}', '']) {
      const response = await post('/saved-groups', { name: 'Everyone', condition });

      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/Condition cannot be empty/);
    }
  });

  it("accepts GrowthBook's sample list group with an empty owner, and more than 1,000 values", async () => {
    const values = Array.from({ length: 5000 }, (_, i) => `user-${i}`);

    const response = await post('/saved-groups', { name: 'Beta', type: 'list', attributeKey: 'id', values, owner: '' });

    expect(response.status).toBe(200);
    expect(response.body.savedGroup).toMatchObject({ owner: '', attributeKey: 'id' });
    expect(response.body.savedGroup.values).toHaveLength(5000);
  });

  it('refuses a list group on an attribute that cannot hold ids', async () => {
    await post('/attributes', { property: 'loggedIn', datatype: 'boolean' });

    const response = await post('/saved-groups', { name: 'Logged in', attributeKey: 'loggedIn', values: ['true'] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[attributeKey\]/);
  });

  it('refuses projects that do not exist', async () => {
    const response = await post('/saved-groups', { name: 'Beta', attributeKey: 'id', values: ['a'], projects: ['prj_missing'] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[projects\] unknown project prj_missing/);
  });
});

describe('an experiment snapshot', () => {
  it('takes dimension "" as the overall results', async () => {
    const table = (await post('/fact-tables', { name: 'Orders', datasource: 'ds_main', userIdTypes: ['user_id'], sql: 'SELECT 1' })).body.factTable.id;
    const metric = (await post('/fact-metrics', { name: 'Ordered', metricType: 'proportion', numerator: { factTableId: table } })).body.factMetric.id;
    const experiment = (
      await post('/experiments', {
        metrics: [metric],
        trackingKey: `compat-${++n}`,
        name: 'Running',
        status: 'running',
        datasourceId: 'ds_main',
        assignmentQueryId: 'user_id',
        variations,
        phases: [{ name: 'Main', dateStarted: '2024-05-01' }],
      })
    ).body.experiment;

    const response = await post(`/experiments/${experiment.id}/snapshot`, { dimension: '' });

    expect(response.status).toBe(200);
    expect(response.body.snapshot.dimension ?? null).toBeNull();
    // The run goes on in the background: let it end before the test environment is torn down.
    await waitForSnapshot(api, org, response.body.snapshot.id);
  });
});
