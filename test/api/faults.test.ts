import { Readable } from 'node:stream';
import { db } from '../../shared/store/client';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * DynamoDB faults, injected at the SDK's transport (the HTTP handler under the SDK's own retry
 * logic), so the real client, store and handlers all run: throttling and transient errors are
 * retried, and when retries run out the API answers 503 JSON with Retry-After — never a 500,
 * never a half-written change.
 */
type Handle = (request: { headers: Record<string, string> }, options?: unknown) => Promise<{ response: unknown }>;
interface Transport {
  handle: Handle;
}

const faults = {
  /** Which operations to fail (by X-Amz-Target, e.g. `TransactWriteItems`), or all. */
  only: undefined as string | undefined,
  /** How many matching requests still fail. */
  remaining: 0,
  kind: 'throttle' as 'throttle' | 'unavailable',
  seen: 0,
};

function failure(kind: typeof faults.kind) {
  const [status, type] =
    kind === 'throttle' ? [400, 'ProvisionedThroughputExceededException'] : [500, 'InternalServerError'];
  const body = JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: 'injected fault' });
  return {
    response: {
      statusCode: status,
      reason: type,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected' },
      body: Readable.from([Buffer.from(body)]),
    },
  };
}

let api: Api;
let org: TestOrg;
let real: Transport;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Faults');
  const config = db().config as unknown as { requestHandler: Transport };
  real = config.requestHandler;
  config.requestHandler = {
    ...real,
    handle: async (request, options) => {
      const target = request.headers['x-amz-target']?.split('.').pop();
      if (faults.remaining > 0 && (!faults.only || faults.only === target)) {
        faults.remaining -= 1;
        faults.seen += 1;
        return failure(faults.kind);
      }
      return real.handle(request, options);
    },
  } as Transport;
});

afterEach(() => {
  faults.remaining = 0;
  faults.only = undefined;
  faults.seen = 0;
});

afterAll(async () => {
  (db().config as unknown as { requestHandler: Transport }).requestHandler = real;
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
});
