import { routes } from '../../shared/contracts/registry';
import { fullPath } from '../../shared/contracts/spec';
import { addMember } from '../../shared/store/members';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

// GrowthBook's list queries are strict, and its project filter counts a resource with no projects
// in every project. A script that lists and then deletes relies on both.

let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Test org', { dataSources: ['ds_main'] });
});
afterAll(() => api.close());

const get = (path: string, key = org.keys.admin) => api.request('GET', `/api/v1${path}`, { key });
const post = (path: string, body: unknown, key = org.keys.admin) => api.request('POST', `/api/v1${path}`, { key, body });

/** Every list endpoint (a GET with a `limit`, or a GET without `{id}` answering an array of items). */
const lists = routes
  .map((route) => route.spec)
  .filter((spec) => spec.method === 'GET' && spec.permission !== 'public' && /^\/[a-z-]+$|\/(filters|visual-changesets)$/.test(spec.path))
  .filter((spec) => !['/feature-keys', '/openapi.json'].includes(spec.path));

describe('an unknown query parameter', () => {
  it.each(lists.map((spec) => [spec.operationId, spec] as const))('is refused with 400 by %s', async (_id, spec) => {
    const path = fullPath(spec).replace('{id}', 'exp_x').replace('{factTableId}', 'ftb_x');

    const response = await api.request('GET', `${path}?projectID=prj_typo`, { key: org.keys.admin });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Querystring: .*projectID/);
  });

  it('covers the lists a cleanup script walks', () => {
    expect(lists.map((spec) => spec.path)).toEqual(
      expect.arrayContaining(['/features', '/experiments', '/saved-groups', '/fact-tables', '/fact-metrics', '/sdk-connections', '/members', '/environments']),
    );
  });
});

describe('?projectId= on resources with a project list', () => {
  let projectId: string;
  let otherProjectId: string;
  beforeAll(async () => {
    projectId = (await post('/projects', { name: 'Checkout' })).body.project.id;
    otherProjectId = (await post('/projects', { name: 'Search' })).body.project.id;
  });

  it('lists a fact table with no projects under every project, and one of another project under none', async () => {
    const global = (await post('/fact-tables', { name: 'Global', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1' })).body.factTable.id;
    const mine = (await post('/fact-tables', { name: 'Mine', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1', projects: [projectId] })).body.factTable.id;
    const theirs = (await post('/fact-tables', { name: 'Theirs', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1', projects: [otherProjectId] }))
      .body.factTable.id;

    const response = await get(`/fact-tables?projectId=${projectId}&limit=100`);

    const ids = response.body.factTables.map((t: { id: string }) => t.id);
    expect(ids).toEqual(expect.arrayContaining([global, mine]));
    expect(ids).not.toContain(theirs);
  });

  it('lists a fact metric with no projects under every project', async () => {
    const table = (await post('/fact-tables', { name: 'T', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1' })).body.factTable.id;
    const global = (await post('/fact-metrics', { name: 'Global', metricType: 'proportion', numerator: { factTableId: table } })).body.factMetric.id;
    const theirs = (await post('/fact-metrics', { name: 'Theirs', metricType: 'proportion', numerator: { factTableId: table }, projects: [otherProjectId] }))
      .body.factMetric.id;

    const ids = (await get(`/fact-metrics?projectId=${projectId}&limit=100`)).body.factMetrics.map((m: { id: string }) => m.id);

    expect(ids).toContain(global);
    expect(ids).not.toContain(theirs);
  });

  it('lists an SDK connection with no projects under every project', async () => {
    const global = (await post('/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).body.sdkConnection.id;
    const theirs = (await post('/sdk-connections', { name: 'App', language: 'javascript', environment: 'production', projects: [otherProjectId] })).body
      .sdkConnection.id;

    const ids = (await get(`/sdk-connections?projectId=${projectId}&limit=100`)).body.connections.map((c: { id: string }) => c.id);

    expect(ids).toContain(global);
    expect(ids).not.toContain(theirs);
  });
});

describe('GET /members', () => {
  let colleague: { id: string; email: string };
  beforeAll(async () => {
    const email = `colleague-${org.orgId}@example.com`;
    colleague = await addMember(org.orgId, { name: 'Colleague', email, role: 'engineer', projectRoles: [] });
  });

  it('finds one member by e-mail, with GrowthBook fields', async () => {
    const response = await get(`/members?userEmail=${encodeURIComponent(colleague.email)}`);

    expect(response.status).toBe(200);
    expect(response.body.members).toEqual([
      expect.objectContaining({
        id: colleague.id,
        email: colleague.email,
        globalRole: 'engineer',
        environments: [],
        limitAccessByEnvironment: false,
        managedbyIdp: false,
      }),
    ]);
    expect(response.body.members[0].role).toBeUndefined();
    expect(response.body.total).toBe(1);
  });

  it('finds nobody for an e-mail no member has, rather than everyone', async () => {
    const response = await get('/members?userEmail=nobody%40example.com');

    expect(response.body).toMatchObject({ members: [], total: 0 });
  });

  it('filters by name and by global role', async () => {
    expect((await get('/members?userName=Colleague')).body.members.map((m: { id: string }) => m.id)).toEqual([colleague.id]);
    expect((await get('/members?globalRole=admin')).body.members.map((m: { id: string }) => m.id)).toEqual([org.admin.memberId]);
  });
});

describe('fact metric numerators, as GrowthBook sets them', () => {
  let table: string;
  beforeAll(async () => {
    table = (await post('/fact-tables', { name: 'Orders', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1' })).body.factTable.id;
  });
  const metric = async (metricType: string, numerator: object) =>
    (await post('/fact-metrics', { name: metricType, metricType, numerator: { factTableId: table, ...numerator }, ...(metricType === 'quantile' ? { quantileSettings: { type: 'unit', ignoreZeros: false, quantile: 0.5 } } : {}) }))
      .body.factMetric;

  it.each([
    ['proportion', '$$distinctUsers'],
    ['retention', '$$distinctUsers'],
    ['dailyParticipation', '$$distinctDates'],
  ])('forces the column of a %s metric to %s, whatever was given', async (type, column) => {
    const created = await metric(type, { column: 'amount', aggregation: 'sum' });

    expect(created.numerator.column).toBe(column);
    expect(created.numerator.aggregation).toBeUndefined();
  });

  it.each(['mean', 'quantile'])('defaults the column of a %s metric without one to $$distinctUsers', async (type) => {
    expect((await metric(type, {})).numerator.column).toBe('$$distinctUsers');
  });
});
