import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * DynamoDB faults, injected by an HTTP proxy in front of DynamoDB Local, so the real client (with
 * its own retries), store and handlers all run: throttling and transient errors are retried, and
 * when retries run out the API answers 503 JSON with Retry-After — never a 500, never a
 * half-written change.
 */
let api: Api;
let org: TestOrg;
let proxy: FaultProxy;
let realEndpoint: string;
let faults: FaultProxy['faults'];

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Faults');
  realEndpoint = process.env.DYNAMODB_ENDPOINT!;
  proxy = await startFaultProxy(realEndpoint);
  faults = proxy.faults;
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
});

afterEach(() => proxy.reset());

afterAll(async () => {
  process.env.DYNAMODB_ENDPOINT = realEndpoint;
  await proxy.close();
  await api.close();
});

const get = (path: string) => api.request('GET', path, { key: org.keys.admin });

describe('DynamoDB faults', () => {
  it('retries a throttled read and answers normally', async () => {
    await get('/api/v1/saved-groups'); // the key is cached from here on
    Object.assign(faults, { kind: 'throttle', remaining: 2, only: 'Query' });

    const response = await get('/api/v1/saved-groups');

    expect(response.status).toBe(200);
    expect(faults.seen).toBe(2);
  });

  it('answers 503 JSON with Retry-After when throttling outlasts the retries', async () => {
    await get('/api/v1/saved-groups');
    Object.assign(faults, { kind: 'throttle', remaining: 1000 });

    const response = await get('/api/v1/saved-groups');

    expect(response.status).toBe(503);
    expect(response.body).toEqual({ message: expect.any(String), code: 'unavailable' });
    expect(response.headers.get('retry-after')).toBe('1');
  });

  it('answers 503, not 500, when DynamoDB keeps failing with a server error', async () => {
    await get('/api/v1/saved-groups');
    Object.assign(faults, { kind: 'unavailable', remaining: 1000 });

    const response = await get('/api/v1/saved-groups');

    expect(response.status).toBe(503);
    expect(response.body.code).toBe('unavailable');
  });

  it('leaves nothing behind when the transaction of a feature create keeps failing', async () => {
    const id = `faulty-${Date.now()}`;
    Object.assign(faults, { kind: 'unavailable', remaining: 1000, only: 'TransactWriteItems' });

    const response = await api.request('POST', '/api/v1/features', {
      key: org.keys.admin,
      body: { id, valueType: 'boolean', defaultValue: 'true' },
    });
    faults.remaining = 0;

    expect(response.status).toBe(503);
    expect((await get(`/api/v1/features/${id}`)).status).toBe(404);
    expect((await get('/api/v1/feature-keys')).body).not.toContain(id);
  });

  it('leaves a saved group as it was when its update keeps failing', async () => {
    const created = await api.request('POST', '/api/v1/saved-groups', {
      key: org.keys.admin,
      body: { name: 'Steady', attributeKey: 'id', values: ['a'] },
    });
    const id = created.body.savedGroup.id;
    // The update is one transaction with the payload references version it bumps.
    Object.assign(faults, { kind: 'throttle', remaining: 1000, only: 'TransactWriteItems' });

    const response = await api.request('POST', `/api/v1/saved-groups/${id}`, { key: org.keys.admin, body: { values: ['b'] } });
    faults.remaining = 0;

    expect(response.status).toBe(503);
    expect((await get(`/api/v1/saved-groups/${id}`)).body).toEqual(created.body);
  });

  it('completes a create once a transient failure clears', async () => {
    const id = `recovering-${Date.now()}`;
    Object.assign(faults, { kind: 'unavailable', remaining: 1, only: 'TransactWriteItems' });

    const response = await api.request('POST', '/api/v1/features', {
      key: org.keys.admin,
      body: { id, valueType: 'boolean', defaultValue: 'true' },
    });

    expect(response.status).toBe(200);
    expect(faults.seen).toBe(1);
    expect((await get(`/api/v1/features/${id}`)).body.feature.revision.version).toBe(1);
  });

  it.each([
    ['connections keep being dropped', 'reset'],
    ['DynamoDB keeps saying nothing (the socket timeout)', 'silence'],
  ] as const)('answers 503 with Retry-After, not 500, when %s', async (_, kind) => {
    await get('/api/v1/saved-groups');
    process.env.DYNAMODB_SOCKET_TIMEOUT_MS = '100';
    Object.assign(faults, { kind, remaining: 1000 });
    try {
      const response = await get('/api/v1/saved-groups');

      expect(response.status).toBe(503);
      expect(response.body).toEqual({ message: expect.any(String), code: 'unavailable' });
      expect(response.headers.get('retry-after')).toBe('1');
    } finally {
      delete process.env.DYNAMODB_SOCKET_TIMEOUT_MS;
    }
  });

  it('retries a transaction cancelled for throttling and answers normally', async () => {
    const created = await api.request('POST', '/api/v1/saved-groups', {
      key: org.keys.admin,
      body: { name: 'Throttled once', attributeKey: 'id', values: ['a'] },
    });
    Object.assign(faults, { kind: 'cancel-throttled', remaining: 1, only: 'TransactWriteItems' });

    const response = await api.request('POST', `/api/v1/saved-groups/${created.body.savedGroup.id}`, { key: org.keys.admin, body: { values: ['b'] } });

    expect(response.status).toBe(200);
    expect(faults.seen).toBe(1);
    expect((await get(`/api/v1/saved-groups/${created.body.savedGroup.id}`)).body.savedGroup.values).toEqual(['b']);
  });

  it('answers 503 and changes nothing when a transaction stays cancelled for throttling', async () => {
    const created = await api.request('POST', '/api/v1/saved-groups', {
      key: org.keys.admin,
      body: { name: 'Throttled always', attributeKey: 'id', values: ['a'] },
    });
    const id = created.body.savedGroup.id;
    Object.assign(faults, { kind: 'cancel-throttled', remaining: 1000, only: 'TransactWriteItems' });

    const response = await api.request('POST', `/api/v1/saved-groups/${id}`, { key: org.keys.admin, body: { values: ['b'] } });
    faults.remaining = 0;

    expect(response.status).toBe(503);
    expect(response.body.code).toBe('unavailable');
    expect(response.headers.get('retry-after')).toBe('1');
    expect((await get(`/api/v1/saved-groups/${id}`)).body).toEqual(created.body);
  });
});
