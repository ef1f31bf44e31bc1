import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

// GrowthBook resolves `owner` the same way on every resource: a `u_` id must be a member, a member's
// e-mail becomes the id, any other text (a display name, "" included) is kept, absent is the caller.

let api: Api;
let org: TestOrg;
let tableId: string;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Test org', { dataSources: ['ds_main'] });
  tableId = (await post('/fact-tables', { name: 'Orders', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1' })).body.factTable.id;
});
afterAll(() => api.close());

function post(path: string, body: unknown, key = org.keys.admin) {
  return api.request('POST', `/api/v1${path}`, { key, body });
}

let n = 0;
/** One create request per resource that has an owner, and where its answer keeps the resource. */
const resources = () => [
  { name: 'feature', path: '/features', key: 'feature', body: { id: `owned-${++n}`, valueType: 'boolean', defaultValue: 'false' } },
  { name: 'segment', path: '/segments', key: 'segment', body: { name: 'S', datasourceId: 'ds_main', identifierType: 'id', type: 'SQL', query: 'SELECT 1' } },
  { name: 'saved group', path: '/saved-groups', key: 'savedGroup', body: { name: 'G', attributeKey: 'id', values: ['a'] } },
  { name: 'fact table', path: '/fact-tables', key: 'factTable', body: { name: 'T', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1' } },
  {
    name: 'fact metric',
    path: '/fact-metrics',
    key: 'factMetric',
    body: { name: 'M', metricType: 'proportion', numerator: { factTableId: tableId } },
  },
  {
    name: 'experiment',
    path: '/experiments',
    key: 'experiment',
    body: { trackingKey: `owned-${++n}`, name: 'E', variations: [{ key: '0', name: 'A' }, { key: '1', name: 'B' }] },
  },
];

describe.each(resources().filter((r) => r.name !== 'experiment').map((r) => [r.name, r.path, r.key] as const))('the owner of a %s', (_name, path, key) => {
  const body = () => resources().find((r) => r.path === path)!.body;

  it('keeps a display name as given', async () => {
    const response = await post(path, { ...body(), owner: 'Jane Doe' });

    expect(response.status).toBe(200);
    expect(response.body[key].owner).toBe('Jane Doe');
    expect(response.body[key].ownerEmail).toBeUndefined();
  });

  it('keeps an empty owner as given', async () => {
    const response = await post(path, { ...body(), owner: '' });

    expect(response.status).toBe(200);
    expect(response.body[key].owner).toBe('');
  });

  it("resolves a member's e-mail to the member id", async () => {
    const response = await post(path, { ...body(), owner: org.admin.email });

    expect(response.status).toBe(200);
    expect(response.body[key]).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it('refuses a u_ id that names no member', async () => {
    const response = await post(path, { ...body(), owner: 'u_nobody' });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[owner\] no member has the id u_nobody/);
  });

  it("makes the personal access token's member the owner when none is given", async () => {
    const response = await post(path, body(), org.admin.token);

    expect(response.status).toBe(200);
    expect(response.body[key]).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });
});

describe('the owner of a new experiment, which GrowthBook requires to be a member', () => {
  const experiment = () => resources().find((r) => r.name === 'experiment')!.body;

  it.each([
    ['a display name', 'Jane Doe'],
    ['an e-mail no member has', 'nobody@example.com'],
    ['an unknown member id', 'u_nobody'],
  ])('is refused when it is %s', async (_case, owner) => {
    const response = await post('/experiments', { ...experiment(), owner });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[owner\] no member has/);
  });

  it("resolves a member's e-mail, and takes the caller for an empty owner", async () => {
    const byEmail = await post('/experiments', { ...experiment(), owner: org.admin.email });
    const empty = await post('/experiments', { ...experiment(), owner: '' }, org.admin.token);

    expect(byEmail.body.experiment).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
    expect(empty.body.experiment).toMatchObject({ owner: org.admin.memberId });
  });

  it('keeps a display name given on an update, as GrowthBook does', async () => {
    const created = (await post('/experiments', experiment())).body.experiment;

    const response = await post(`/experiments/${created.id}`, { owner: 'Growth team' });

    expect(response.status).toBe(200);
    expect(response.body.experiment.owner).toBe('Growth team');
  });
});

describe('changing an owner', () => {
  it('replaces a member owner by a display name and drops the old e-mail', async () => {
    const created = (await post('/saved-groups', { name: 'G', attributeKey: 'id', values: ['a'], owner: org.admin.email })).body.savedGroup;

    const response = await post(`/saved-groups/${created.id}`, { owner: 'Platform team' });

    expect(response.status).toBe(200);
    expect(response.body.savedGroup.owner).toBe('Platform team');
    expect(response.body.savedGroup.ownerEmail).toBeUndefined();
  });

  it('keeps an e-mail that no member has, as GrowthBook does, and answers it as the e-mail', async () => {
    const created = (await post('/features', { id: `owned-${++n}`, valueType: 'boolean', defaultValue: 'false' })).body.feature;

    const response = await post(`/features/${created.id}`, { owner: 'former.employee@example.com' });

    expect(response.status).toBe(200);
    expect(response.body.feature).toMatchObject({ owner: 'former.employee@example.com', ownerEmail: 'former.employee@example.com' });
  });
});
