import * as contract from '../../shared/contracts/sdk-connections';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  await projects.create(org.orgId, { id: 'prj_web', name: 'Web' });
  await projects.create(org.orgId, { id: 'prj_app', name: 'App' });
});
afterAll(() => api.close());

const create = (body: Record<string, unknown>, key = org.keys.admin) =>
  api.request('POST', '/api/v1/sdk-connections', { key, body: { name: 'Web', language: 'javascript', environment: 'production', ...body } });

async function connection(body: Record<string, unknown> = {}, key = org.keys.admin) {
  const response = await create(body, key);
  if (response.status !== 200) throw new Error(`setup failed: ${JSON.stringify(response.body)}`);
  return response.body.sdkConnection;
}

describe('POST /sdk-connections', () => {
  it('creates a connection with a client key and every switch off', async () => {
    const response = await create({ name: 'Storefront', projects: ['prj_web', 'prj_app'], sdkVersion: '1.8.0' });

    expect(response.status).toBe(200);
    expectShape(contract.postSdkConnection, response.body);
    expect(response.body.sdkConnection).toMatchObject({
      id: expect.stringMatching(/^sdk_/),
      key: expect.stringMatching(/^sdk-[A-Za-z0-9_-]{16}$/),
      name: 'Storefront',
      organization: org.orgId,
      languages: ['javascript'],
      sdkVersion: '1.8.0',
      environment: 'production',
      project: 'prj_web',
      projects: ['prj_web', 'prj_app'],
      encryptPayload: false,
      encryptionKey: expect.any(String),
      proxyEnabled: false,
      proxyHost: '',
      proxySigningKey: expect.any(String),
      remoteEvalEnabled: false,
    });
  });

  it('gives every connection its own key', async () => {
    const [a, b] = await Promise.all([connection(), connection()]);

    expect(a.key).not.toBe(b.key);
  });

  it.each([
    ['a missing name', { name: undefined }, /\[name\]/],
    ['a missing language', { language: undefined }, /\[language\]/],
    ['a missing environment', { environment: undefined }, /\[environment\]/],
    ['an unknown environment', { environment: 'staging' }, /\[environment\] environment staging does not exist/],
    ['an unknown project', { projects: ['prj_web', 'prj_missing'] }, /\[projects\.1\] project prj_missing does not exist/],
    ['a projects value that is not a list', { projects: 'prj_web' }, /\[projects\]/],
    ['an unknown field', { colour: 'red' }, /colour/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const before = (await api.request('GET', '/api/v1/sdk-connections?limit=100', { key: org.keys.admin })).body.total;

    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((await api.request('GET', '/api/v1/sdk-connections?limit=100', { key: org.keys.admin })).body.total).toBe(before);
  });

  it('answers 403 for an engineer key: connections are managed by admins', async () => {
    const response = await create({}, org.keys.engineer);

    expect(response.status).toBe(403);
  });
});

describe('GET /sdk-connections/{id}', () => {
  it('returns the connection', async () => {
    const created = await connection();

    const response = await api.request('GET', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getSdkConnection, response.body);
    expect(response.body.sdkConnection).toEqual(created);
  });

  it('answers 404 for an unknown id and for another organization', async () => {
    const created = await connection();

    expect((await api.request('GET', '/api/v1/sdk-connections/sdk_missing', { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/sdk-connections/${created.id}`, { key: other.keys.admin })).status).toBe(404);
  });
});

describe('GET /sdk-connections/lookup/{key}', () => {
  it('finds the connection by its client key', async () => {
    const created = await connection();

    const response = await api.request('GET', `/api/v1/sdk-connections/lookup/${created.key}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.lookupSdkConnectionByKey, response.body);
    expect(response.body.sdkConnection).toEqual(created);
  });

  it("answers 404 for an unknown key and for another organization's key", async () => {
    const foreign = await connection({}, other.keys.admin);

    expect((await api.request('GET', '/api/v1/sdk-connections/lookup/sdk-missing', { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/sdk-connections/lookup/${foreign.key}`, { key: org.keys.admin })).status).toBe(404);
  });
});

describe('GET /sdk-connections', () => {
  it('pages through connections in creation order and filters by project', async () => {
    const fresh = await createTestOrg();
    await projects.create(fresh.orgId, { id: 'prj_x', name: 'X' });
    const ids: string[] = [];
    for (const projectIds of [[], ['prj_x'], [], ['prj_x']]) ids.push((await connection({ projects: projectIds }, fresh.keys.admin)).id);

    const first = await api.request('GET', '/api/v1/sdk-connections?limit=3', { key: fresh.keys.readonly });
    const last = await api.request('GET', '/api/v1/sdk-connections?limit=3&offset=3', { key: fresh.keys.readonly });
    const inProject = await api.request('GET', '/api/v1/sdk-connections?projectId=prj_x', { key: fresh.keys.readonly });

    expectShape(contract.listSdkConnections, first.body);
    expect(first.body).toMatchObject({ limit: 3, offset: 0, count: 3, total: 4, hasMore: true, nextOffset: 3 });
    expect(first.body.connections.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 3));
    expect(last.body).toMatchObject({ count: 1, hasMore: false, nextOffset: null });
    // A connection with no projects serves every project, so it is listed under each (as in GrowthBook).
    expect(inProject.body.connections.map((c: { id: string }) => c.id)).toEqual(ids);
  });

  it('lists only connections with a proxy when withProxy is set', async () => {
    const fresh = await createTestOrg();
    await connection({}, fresh.keys.admin);
    const proxied = await connection({ proxyEnabled: true, proxyHost: 'https://proxy.example.com' }, fresh.keys.admin);

    const response = await api.request('GET', '/api/v1/sdk-connections?withProxy=true', { key: fresh.keys.readonly });

    expect(response.body.connections.map((c: { id: string }) => c.id)).toEqual([proxied.id]);
  });

  it.each(['limit=0', 'limit=101', 'offset=-1'])('answers 400 for %s', async (query) => {
    const response = await api.request('GET', `/api/v1/sdk-connections?${query}`, { key: org.keys.admin });

    expect(response.status).toBe(400);
  });
});

describe('PUT /sdk-connections/{id}', () => {
  it('changes only the given settings and keeps the key', async () => {
    const created = await connection({ name: 'Before', projects: ['prj_web'] });

    const response = await api.request('PUT', `/api/v1/sdk-connections/${created.id}`, {
      key: org.keys.admin,
      body: { name: 'After', environment: 'dev', projects: ['prj_app'], language: 'nodejs' },
    });

    expect(response.status).toBe(200);
    expectShape(contract.putSdkConnection, response.body);
    expect(response.body.sdkConnection).toMatchObject({
      name: 'After',
      environment: 'dev',
      projects: ['prj_app'],
      project: 'prj_app',
      languages: ['nodejs'],
      key: created.key,
      encryptionKey: created.encryptionKey,
    });
  });

  it('moves the client key to the new environment', async () => {
    const created = await connection({ environment: 'production' });
    await api.request('PUT', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.admin, body: { environment: 'dev' } });

    const lookedUp = await api.request('GET', `/api/v1/sdk-connections/lookup/${created.key}`, { key: org.keys.admin });

    expect(lookedUp.body.sdkConnection.environment).toBe('dev');
  });

  it.each([
    ['an unknown environment', { environment: 'staging' }, /\[environment\]/],
    ['an unknown project', { projects: ['prj_missing'] }, /\[projects\.0\]/],
    ['an empty name', { name: '' }, /\[name\]/],
    ['a name under 3 characters, as GrowthBook refuses', { name: 'ab' }, /\[name\] Name length must be at least 3/],
    ['an unknown field', { key: 'sdk-mine' }, /key/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const created = await connection();

    const response = await api.request('PUT', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.admin, body });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('answers 404 for an unknown id or another organization and 403 for an engineer', async () => {
    const created = await connection();

    expect((await api.request('PUT', '/api/v1/sdk-connections/sdk_missing', { key: org.keys.admin, body: { name: 'xyz' } })).status).toBe(404);
    expect((await api.request('PUT', `/api/v1/sdk-connections/${created.id}`, { key: other.keys.admin, body: { name: 'xyz' } })).status).toBe(404);
    expect((await api.request('PUT', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.engineer, body: { name: 'xyz' } })).status).toBe(403);
  });
});

describe('proxyHost', () => {
  it.each([
    ['plain http', 'http://proxy.example.com'],
    ['loopback with a query that would swallow the path', 'http://127.0.0.1:8080/?ignored='],
    ['a query', 'https://proxy.example.com/?a=b'],
    ['an empty query', 'https://proxy.example.com/?'],
    ['a fragment', 'https://proxy.example.com/#top'],
    ['credentials', 'https://user:pass@proxy.example.com'],
    ['the instance metadata address', 'https://169.254.169.254/latest'],
    ['a loopback address', 'https://127.0.0.1:8443'],
    ['IPv6 loopback', 'https://[::1]'],
    ['an IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]'],
    ['a private address', 'https://10.1.2.3'],
    ['a CGNAT address', 'https://100.64.0.1'],
    ['a unique-local IPv6 address', 'https://[fd00::1]'],
    ['0.0.0.0', 'https://0.0.0.0'],
    ['a multicast address', 'https://224.0.0.1'],
    ['localhost', 'https://localhost:3300'],
    ['localhost with a trailing dot', 'https://localhost.:3300'],
    ['a file URL', 'file:///etc/passwd'],
    ['a data URL', 'data:text/plain,hello'],
    ['no URL at all', 'proxy.example.com'],
  ])('answers 400 naming proxyHost for %s, on create and on update, and stores nothing', async (_case, proxyHost) => {
    const created = await connection({ name: 'Guarded' });

    const onCreate = await create({ name: 'Refused', proxyEnabled: true, proxyHost });
    const onUpdate = await api.request('PUT', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.admin, body: { proxyEnabled: true, proxyHost } });

    expect([onCreate.status, onUpdate.status]).toEqual([400, 400]);
    expect(onCreate.body.message).toMatch(/\[proxyHost\]/);
    expect(onUpdate.body.message).toMatch(/\[proxyHost\]/);
    const stored = await api.request('GET', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.admin });
    expect(stored.body.sdkConnection).toEqual(created);
  });

  it.each([['a public https host', 'https://proxy.example.com/base/'], ['a public address', 'https://203.0.114.10:8443'], ['none', '']])(
    'takes %s',
    async (_case, proxyHost) => {
      const response = await create({ proxyEnabled: true, proxyHost });

      expect(response.status).toBe(200);
      expect(response.body.sdkConnection.proxyHost).toBe(proxyHost);
    },
  );
});

describe('DELETE /sdk-connections/{id}', () => {
  it('deletes the connection, and its key stops serving payloads', async () => {
    const created = await connection();

    const response = await api.request('DELETE', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.deleteSdkConnection, response.body);
    expect(response.body).toEqual({ deletedId: created.id });
    expect((await api.request('GET', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/sdk-connections/lookup/${created.key}`, { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('GET', `/api/features/${created.key}`)).status).toBe(404);
  });

  it('answers 404 for an unknown id or another organization and 403 for an engineer', async () => {
    const created = await connection();

    expect((await api.request('DELETE', '/api/v1/sdk-connections/sdk_missing', { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/sdk-connections/${created.id}`, { key: other.keys.admin })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.engineer })).status).toBe(403);
  });
});
