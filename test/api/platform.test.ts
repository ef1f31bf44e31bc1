import { randomBytes } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { clearAuthCache } from '../../shared/api/auth';
import { dynamoMeter } from '../../shared/db/client';
import { createApiKey } from '../../shared/store/api-keys';
import { buildOpenApiDocument } from '../../shared/api/openapi';
import { routes } from '../../shared/contracts/registry';
import { startApi, createTestOrg, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
});
afterAll(() => api.close());

describe('the OpenAPI document', () => {
  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    const response = await api.request('GET', '/api/v1/openapi.json');

    expect(response.status).toBe(200);
    const result = await new Validator().validate(response.body);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(response.body.openapi).toBe('3.1.0');
  });

  it('lists every route of the registry but the reference page and its files', async () => {
    const { body } = await api.request('GET', '/api/v1/openapi.json');

    const documented = Object.entries(body.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
      ([, operations]) => Object.values(operations).map((operation) => operation.operationId),
    );
    const left = routes.filter((route) => route.spec.openApi === false).map((route) => route.spec.operationId);
    expect(left.sort()).toEqual(['getApiDocs', 'getApiDocsAsset']);
    expect(documented.sort()).toEqual(routes.map((route) => route.spec.operationId).filter((id) => !left.includes(id)).sort());
  });

  it('is the document a fresh generation from the registry gives', async () => {
    const { body } = await api.request('GET', '/api/v1/openapi.json');

    expect(body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(routes))));
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/api/v1/nothing-here'],
    ['DELETE', '/api/v1/openapi.json'],
    ['GET', '/'],
  ])('answers %s %s with 404 Unknown API endpoint', async (method, path) => {
    const response = await api.request(method, path, { key: org.keys.admin });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Unknown API endpoint' });
  });

  it("refuses a request line and headers over API Gateway's 10,240 bytes with a JSON 431, and changes nothing", async () => {
    const response = await api.request('GET', `/api/v1/archetypes/a?limit=${'x'.repeat(12_000)}`, { key: org.keys.admin });

    expect(response.status).toBe(431);
    expect(response.body).toMatchObject({ code: 'request_too_large', message: expect.stringMatching(/exceed 10240 bytes/) });
  });

  it('accepts a trailing slash on a known route', async () => {
    const response = await api.request('GET', '/api/v1/members/', { key: org.keys.admin });

    expect(response.status).toBe(200);
  });
});

describe('authentication', () => {
  it('accepts a Bearer key', async () => {
    const response = await api.request('GET', '/api/v1/members', { key: org.keys.admin });

    expect(response.status).toBe(200);
  });

  it('accepts HTTP Basic with the key as user name and an empty password', async () => {
    const basic = Buffer.from(`${org.keys.admin}:`).toString('base64');

    const response = await api.request('GET', '/api/v1/members', { headers: { authorization: `Basic ${basic}` } });

    expect(response.status).toBe(200);
  });

  it('accepts a personal access token with its member role', async () => {
    const response = await api.request('GET', '/api/v1/members', { key: org.admin.token });

    expect(response.status).toBe(200);
  });

  it.each([
    ['no Authorization header', {}],
    ['an unknown key', { authorization: 'Bearer secret_admin_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['a malformed key', { authorization: 'Bearer not-a-key' }],
    ['an unknown scheme', { authorization: 'Digest abc' }],
    ['an empty Basic user', { authorization: `Basic ${Buffer.from(':').toString('base64')}` }],
  ])('answers 401 with WWW-Authenticate for %s', async (_case, headers) => {
    const response = await api.request('GET', '/api/v1/members', { headers: headers as Record<string, string> });

    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'unauthorized', message: expect.any(String) });
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('remembers an unknown key for a moment: a second request with it reads nothing from the table', async () => {
    const unknown = `secret_admin_${randomBytes(16).toString('hex')}`;
    const first = await api.request('GET', '/api/v1/members', { key: unknown });
    dynamoMeter.reset();

    const second = await api.request('GET', '/api/v1/members', { key: unknown });

    expect([first.status, second.status]).toEqual([401, 401]);
    expect(dynamoMeter.snapshot().calls).toBe(0);
  });

  it('lets a key created after a request tried it work once the miss has expired', async () => {
    process.env.AUTH_MISS_CACHE_TTL_SECONDS = '0.2';
    clearAuthCache();
    const secret = `secret_admin_${randomBytes(16).toString('hex')}`;
    const before = await api.request('GET', '/api/v1/members', { key: secret });
    await createApiKey({ orgId: org.orgId, secret, role: 'admin', description: 'created after a miss' });
    const cached = await api.request('GET', '/api/v1/members', { key: secret });
    await new Promise((resolve) => setTimeout(resolve, 300));

    const after = await api.request('GET', '/api/v1/members', { key: secret });

    delete process.env.AUTH_MISS_CACHE_TTL_SECONDS;
    expect([before.status, cached.status, after.status]).toEqual([401, 401, 200]);
  });

  it('answers 403 when the role lacks the permission', async () => {
    const response = await api.request('GET', '/api/v1/members', { key: org.keys.readonly });

    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'forbidden' });
  });
});

describe('members', () => {
  it('lists the organization members with pagination fields and no storage attributes', async () => {
    const response = await api.request('GET', '/api/v1/members?limit=5', { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      members: [
        {
          id: org.admin.memberId,
          name: 'Admin',
          email: org.admin.email,
          globalRole: 'admin',
          projectRoles: [],
          teams: [],
          environments: [],
          limitAccessByEnvironment: false,
          managedbyIdp: false,
          dateCreated: expect.any(String),
          dateUpdated: expect.any(String),
        },
      ],
      limit: 5,
      offset: 0,
      count: 1,
      total: 1,
      hasMore: false,
      nextOffset: null,
    });
  });

  it('rejects a limit out of range with a Querystring message', async () => {
    const response = await api.request('GET', '/api/v1/members?limit=101', { key: org.keys.admin });

    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
    expect(response.body.message).toMatch(/^Querystring: \[limit\] /);
  });
});
