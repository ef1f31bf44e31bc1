import * as contract from '../../shared/contracts/dashboards';
import { createApiKey } from '../../shared/store/api-keys';
import { newId } from '../../shared/ids';
import { addMember } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['ds_1'];

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
});
afterAll(() => api.close());

interface Experiment {
  id: string;
  variations: { variationId: string }[];
}

let counter = 0;
/** A fact metric on `ds_1`, so an experiment can be snapshotted (a snapshot needs metrics to analyse). */
const metricOn = async (testOrg: TestOrg) => {
  const post = (path: string, body: unknown) => api.request('POST', `/api/v1${path}`, { key: testOrg.keys.admin, body });
  const table = await post('/fact-tables', { name: 'Events', datasource: 'ds_1', userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events.csv')" });
  const metric = await post('/fact-metrics', { name: 'Bought', metricType: 'proportion', numerator: { factTableId: table.body.factTable.id, column: '$$distinctUsers' } });
  return metric.body.factMetric.id as string;
};
const experiment = async (testOrg = org, fields: Record<string, unknown> = {}): Promise<Experiment> => {
  const response = await api.request('POST', '/api/v1/experiments', {
    key: testOrg.keys.admin,
    body: {
      trackingKey: `dash-${Date.now()}-${++counter}`,
      name: 'Reported',
      status: 'running',
      datasourceId: 'ds_1',
      variations: [
        { key: '0', name: 'A' },
        { key: '1', name: 'B' },
      ],
      ...fields,
    },
  });
  return response.body.experiment;
};

const markdown = { type: 'markdown', title: 'Notes', description: '', content: '# Findings' };
const metadata = (experimentId: string) => ({
  type: 'experiment-metadata',
  title: 'About',
  description: '',
  experimentId,
  showDescription: true,
  showHypothesis: true,
  showVariationImages: false,
});
const metricBlock = (experimentId: string, fields: Record<string, unknown> = {}) => ({
  type: 'experiment-metric',
  title: 'Results',
  description: '',
  snapshotId: '',
  experimentId,
  metricIds: [],
  variationIds: [],
  baselineRow: 0,
  differenceType: 'relative',
  columnsFilter: ['Lift'],
  sliceTagsFilter: [],
  metricTagFilter: [],
  sortBy: null,
  sortDirection: null,
  layout: { x: 0, y: 0, w: 12, h: 4 },
  ...fields,
});
const general = (fields: Record<string, unknown> = {}) => ({
  title: 'Weekly KPIs',
  editLevel: 'published',
  shareLevel: 'published',
  enableAutoUpdates: false,
  blocks: [markdown],
  ...fields,
});

/** A fact metric, made through the API. */
async function factMetric(): Promise<string> {
  const table = await api.request('POST', '/api/v1/fact-tables', {
    key: org.keys.admin,
    body: { name: 'Orders', datasource: 'ds_1', userIdTypes: ['user_id'], sql: 'SELECT * FROM orders' },
  });
  const metric = await api.request('POST', '/api/v1/fact-metrics', {
    key: org.keys.admin,
    body: { name: 'Revenue', metricType: 'mean', numerator: { factTableId: table.body.factTable.id, column: 'amount' } },
  });
  return metric.body.factMetric.id;
}

const newProject = async (orgId: string) => (await projects.create(orgId, { id: newId('prj_'), name: 'Area' })).id;
const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/dashboards', { key, body });
const get = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/dashboards/${id}`, { key });
const update = (id: string, body: unknown, key = org.keys.admin) => api.request('PUT', `/api/v1/dashboards/${id}`, { key, body });

describe('POST /dashboards', () => {
  it('creates a general dashboard and gives its blocks their identity', async () => {
    const response = await create(general({ updateSchedule: { type: 'stale', hours: 6 }, enableAutoUpdates: true }));

    expect(response.status).toBe(200);
    expectShape(contract.createDashboard, response.body);
    expect(response.body.dashboard).toEqual({
      id: expect.stringMatching(/^dash_/),
      uid: expect.stringMatching(/^[0-9a-f]{32}$/),
      organization: org.orgId,
      isDefault: false,
      isDeleted: false,
      userId: '',
      title: 'Weekly KPIs',
      editLevel: 'published',
      shareLevel: 'published',
      enableAutoUpdates: true,
      updateSchedule: { type: 'stale', hours: 6 },
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
      blocks: [{ ...markdown, organization: org.orgId, id: expect.stringMatching(/^dshblk_/), uid: expect.stringMatching(/^[0-9a-f]{32}$/) }],
    });
  });

  it("creates an experiment dashboard whose blocks name that experiment's variations and snapshots", async () => {
    const exp = await experiment(org, { metrics: [await metricOn(org)] });
    const snapshot = await api.request('POST', `/api/v1/experiments/${exp.id}/snapshot`, { key: org.keys.admin, body: {} });
    const blocks = [metadata(exp.id), metricBlock(exp.id, { snapshotId: snapshot.body.snapshot.id, variationIds: [exp.variations[1].variationId] })];

    const response = await create(general({ experimentId: exp.id, blocks }), org.admin.token);

    expect(response.status).toBe(200);
    expect(response.body.dashboard).toMatchObject({ experimentId: exp.id, userId: org.admin.memberId, blocks });
  });

  it('accepts every block type a client can create', async () => {
    const exp = await experiment();
    const blocks = [
      markdown,
      metadata(exp.id),
      metricBlock(exp.id),
      {
        type: 'experiment-dimension', title: 'By country', description: '', snapshotId: '', experimentId: exp.id, dimensionId: 'country',
        dimensionValues: ['US'], metricIds: [], variationIds: [], baselineRow: 0, differenceType: 'absolute', columnsFilter: [],
        metricTagFilter: [], sortBy: 'significance', sortDirection: 'desc',
      },
      {
        type: 'experiment-time-series', title: 'Over time', description: '', snapshotId: '', experimentId: exp.id, metricIds: [],
        variationIds: [], differenceType: 'scaled', sliceTagsFilter: [], metricTagFilter: [], sortBy: null, sortDirection: null,
      },
      { type: 'experiment-traffic', title: 'Traffic', description: '', experimentId: exp.id, showTable: true, showTimeseries: false },
      { type: 'sql-explorer', title: 'Query', description: '', savedQueryId: 'sq_1', blockConfig: ['chart'], dataVizConfigIndex: 0 },
      {
        type: 'metric-explorer', title: 'Explorer', description: '', factMetricId: await factMetric(), visualizationType: 'timeseries',
        valueType: 'sum', metricAnalysisId: 'ma_1',
        analysisSettings: { userIdType: 'user_id', lookbackDays: 30, populationType: 'factTable', populationId: null, startDate: '2024-01-01', endDate: '2024-02-01' },
      },
    ];

    const response = await create(general({ experimentId: exp.id, blocks }));

    expect(response.status).toBe(200);
    expectShape(contract.createDashboard, response.body);
    expect(response.body.dashboard.blocks.map((b: { type: string }) => b.type)).toEqual(blocks.map((b) => b.type));
  });

  it.each([
    ['a missing title', { title: undefined }, /\[title\]/],
    ['an unknown editLevel', { editLevel: 'organization' }, /\[editLevel\]/],
    ['missing blocks', { blocks: undefined }, /\[blocks\]/],
    ['an unknown block type', { blocks: [{ ...markdown, type: 'poem' }] }, /\[blocks\.0\.type\]/],
    ['a markdown block without content', { blocks: [{ type: 'markdown', title: '', description: '' }] }, /\[blocks\.0\.content\]/],
    ['a block with a field of another type', { blocks: [{ ...markdown, experimentId: 'exp_1' }] }, /experimentId/],
    ['an exploration block, which only an exploration makes', { blocks: [{ type: 'metric-exploration', title: '', description: '', explorerAnalysisId: 'x', config: {} }] }, /\[blocks\.0\.type\]/],
    ['a block past the right edge of the grid', { blocks: [{ ...markdown, layout: { x: 20, y: 0, w: 8, h: 2 } }] }, /\[blocks\.0\.layout\.w\]/],
    ['a stale schedule without hours', { updateSchedule: { type: 'stale' } }, /\[updateSchedule\.hours\]/],
    ['auto-updates without a schedule', { enableAutoUpdates: true }, /\[updateSchedule\]/],
    ['an unknown experiment', { experimentId: 'exp_missing', blocks: [] }, /\[experimentId\]/],
    ['an unknown project', { projects: ['prj_missing'] }, /\[projects\.0\]/],
    ['a block naming an unknown experiment', { blocks: [metadata('exp_missing')] }, /\[blocks\.0\.experimentId\]/],
    ['an unknown field', { isDefault: true }, /isDefault/],
  ])('answers 400 for %s and stores nothing', async (_case, fields, message) => {
    const fresh = await createTestOrg('Test org', { dataSources });

    const response = await create(general(fields), fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((await api.request('GET', '/api/v1/dashboards', { key: fresh.keys.admin })).body.dashboards).toEqual([]);
  });

  it.each([
    ['a schedule of its own', (exp: Experiment) => general({ experimentId: exp.id, updateSchedule: { type: 'cron', cron: '0 * * * *' } }), /\[updateSchedule\]/],
    ['projects of its own', (exp: Experiment) => general({ experimentId: exp.id, projects: ['prj_x'] }), /\[projects\]/],
    ['a variation of another experiment', (exp: Experiment) => general({ blocks: [metricBlock(exp.id, { variationIds: ['var_elsewhere'] })] }), /\[blocks\.0\.variationIds\.0\]/],
    ['an unknown metric', (exp: Experiment) => general({ blocks: [markdown, metricBlock(exp.id, { metricIds: ['fact__missing'] })] }), /\[blocks\.1\.metricIds\.0\]/],
    ['an unknown snapshot', (exp: Experiment) => general({ blocks: [metricBlock(exp.id, { snapshotId: 'snp_missing' })] }), /\[blocks\.0\.snapshotId\]/],
  ])('answers 400 for an experiment dashboard or block with %s', async (_case, body, message) => {
    const exp = await experiment();

    const response = await create(body(exp));

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it("answers 400 for a snapshot of another experiment, and for another organization's experiment", async () => {
    const [exp, elsewhere, foreign] = [await experiment(), await experiment(org, { metrics: [await metricOn(org)] }), await experiment(other)];
    const snapshot = await api.request('POST', `/api/v1/experiments/${elsewhere.id}/snapshot`, { key: org.keys.admin, body: {} });

    const wrongSnapshot = await create(general({ blocks: [metricBlock(exp.id, { snapshotId: snapshot.body.snapshot.id })] }));
    const foreignExperiment = await create(general({ experimentId: foreign.id, blocks: [] }));

    expect(wrongSnapshot.status).toBe(400);
    expect(wrongSnapshot.body.message).toMatch(/\[blocks\.0\.snapshotId\]/);
    expect(foreignExperiment.status).toBe(400);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create(general(), org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it("lets a member write dashboards only in the projects where the member may write", async () => {
    const [open, locked] = [await newProject(org.orgId), await newProject(org.orgId)];
    const member = await addMember(org.orgId, {
      name: 'Project engineer',
      email: `dash-${newId('')}@example.com`,
      role: 'readonly',
      projectRoles: [{ project: open, role: 'engineer', limitAccessByEnvironment: false, environments: [] }],
    });
    const { secret } = await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'token' });

    const allowed = await create(general({ projects: [open] }), secret);
    const refused = await create(general({ projects: [locked] }), secret);

    expect(allowed.status).toBe(200);
    expect(refused.status).toBe(403);
  });
});

describe('GET /dashboards and /dashboards/{id}', () => {
  it('lists every dashboard of the organization and gets one', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const first = await create(general(), fresh.keys.admin);
    const second = await create(general({ title: 'Second' }), fresh.keys.admin);

    const all = await api.request('GET', '/api/v1/dashboards', { key: fresh.keys.readonly });
    const one = await get(second.body.dashboard.id, fresh.keys.readonly);

    expectShape(contract.listDashboards, all.body);
    expect(all.body.dashboards).toEqual([first.body.dashboard, second.body.dashboard]);
    expectShape(contract.getDashboard, one.body);
    expect(one.body).toEqual(second.body);
  });

  it('answers 404 for an unknown id and for another organization', async () => {
    const { body: created } = await create(general());

    expect((await get('dash_missing')).status).toBe(404);
    expect((await get(created.dashboard.id, other.keys.admin)).status).toBe(404);
  });
});

describe('GET /dashboards/by-experiment/{experimentId}', () => {
  it("lists that experiment's dashboards only", async () => {
    const [exp, unrelated] = [await experiment(), await experiment()];
    const mine = await create(general({ experimentId: exp.id, blocks: [metadata(exp.id)] }));
    await create(general({ experimentId: unrelated.id, blocks: [] }));
    await create(general());

    const response = await api.request('GET', `/api/v1/dashboards/by-experiment/${exp.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getDashboardsForExperiment, response.body);
    expect(response.body.dashboards).toEqual([mine.body.dashboard]);
  });

  it('answers 404 for an unknown experiment and for another organization', async () => {
    const exp = await experiment();

    const unknown = await api.request('GET', '/api/v1/dashboards/by-experiment/exp_missing', { key: org.keys.admin });
    const foreign = await api.request('GET', `/api/v1/dashboards/by-experiment/${exp.id}`, { key: other.keys.admin });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });
});

describe('PUT /dashboards/{id}', () => {
  it('keeps blocks sent back with their identity, adds new ones, and drops the rest', async () => {
    const { body: created } = await create(general({ blocks: [markdown, { ...markdown, title: 'Dropped' }] }));
    const [kept] = created.dashboard.blocks;

    const response = await update(created.dashboard.id, {
      title: 'Renamed',
      blocks: [{ ...kept, content: 'edited' }, { ...markdown, title: 'Added' }],
    });

    expect(response.status).toBe(200);
    expectShape(contract.updateDashboard, response.body);
    const { dashboard } = response.body;
    expect(dashboard).toMatchObject({ title: 'Renamed', editLevel: 'published', dateCreated: created.dashboard.dateCreated });
    expect(dashboard.blocks).toEqual([
      { ...kept, content: 'edited' },
      { ...markdown, title: 'Added', organization: org.orgId, id: expect.stringMatching(/^dshblk_/), uid: expect.any(String) },
    ]);
  });

  it.each([
    ['a block id this dashboard does not have', (b: { id: string; uid: string }) => [{ ...markdown, id: 'dshblk_other', uid: b.uid, organization: org.orgId }], /\[blocks\.0\.id\]/],
    ['a uid that does not match the block', (b: { id: string; uid: string }) => [{ ...markdown, id: b.id, uid: 'wrong', organization: org.orgId }], /\[blocks\.0\.uid\]/],
    ['an identity without an id', (b: { id: string; uid: string }) => [{ ...markdown, uid: b.uid }], /\[blocks\.0\.id\]/],
    ['a block missing a field of its type', () => [{ type: 'experiment-traffic', title: '', description: '', experimentId: 'exp_x', showTable: true }], /\[blocks\.0\.showTimeseries\]/],
    ['a block naming an unknown experiment', () => [metadata('exp_missing')], /\[blocks\.0\.experimentId\]/],
  ])('answers 400 for %s and leaves the dashboard unchanged', async (_case, blocks, message) => {
    const { body: created } = await create(general());

    const response = await update(created.dashboard.id, { blocks: blocks(created.dashboard.blocks[0]) });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(created.dashboard.id)).body).toEqual(created);
  });

  it('answers 400 for turning on auto-updates without a schedule', async () => {
    const { body: created } = await create(general());

    const response = await update(created.dashboard.id, { enableAutoUpdates: true });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[updateSchedule\]/);
  });

  it('answers 400 for an unknown field', async () => {
    const { body: created } = await create(general());

    const response = await update(created.dashboard.id, { experimentId: 'exp_x' });

    expect(response.status).toBe(400);
  });

  it("answers 404 for an unknown id and for another organization's dashboard", async () => {
    const { body: created } = await create(general());

    expect((await update('dash_missing', { title: 'x' })).status).toBe(404);
    expect((await update(created.dashboard.id, { title: 'x' }, other.keys.admin)).status).toBe(404);
    expect((await get(created.dashboard.id)).body).toEqual(created);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(general());

    expect((await update(created.dashboard.id, { title: 'x' }, org.keys.readonly)).status).toBe(403);
  });
});

describe('DELETE /dashboards/{id}', () => {
  it('deletes the dashboard and answers with its id', async () => {
    const { body: created } = await create(general());

    const response = await api.request('DELETE', `/api/v1/dashboards/${created.dashboard.id}`, { key: org.keys.engineer });

    expect(response.status).toBe(200);
    expectShape(contract.deleteDashboard, response.body);
    expect(response.body).toEqual({ deletedId: created.dashboard.id });
    expect((await get(created.dashboard.id)).status).toBe(404);
  });

  it("answers 404 for an unknown id and for another organization's dashboard, keeping it", async () => {
    const { body: created } = await create(general());

    expect((await api.request('DELETE', '/api/v1/dashboards/dash_missing', { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/dashboards/${created.dashboard.id}`, { key: other.keys.admin })).status).toBe(404);
    expect((await get(created.dashboard.id)).status).toBe(200);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(general());

    expect((await api.request('DELETE', `/api/v1/dashboards/${created.dashboard.id}`, { key: org.keys.readonly })).status).toBe(403);
  });
});
