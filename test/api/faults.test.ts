import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { db, dynamoMeter, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';

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

  describe('a single write applied whose answer was lost, then sent again by the client', () => {
    const stored = async (id: string) =>
      (await db.get({ TableName: tableName(), Key: keys.entity(org.orgId, 'ARCHETYPE', id), ConsistentRead: true })).Item;
    const create = (name: string) => api.request('POST', '/api/v1/archetypes', { key: org.keys.admin, body: { name, isPublic: true } });

    it('is a create that answers 200 with the archetype, not 409 "already exists"', async () => {
      await get('/api/v1/archetypes'); // the key is cached from here on
      Object.assign(faults, { kind: 'lost-answer', remaining: 1, only: 'PutItem' });

      const response = await create('Lost answer');

      expect(faults.seen).toBe(1);
      expect(response.status).toBe(200);
      expect(await stored(response.body.archetype.id)).toMatchObject({ name: 'Lost answer', version: 1 });
      expect((await get(`/api/v1/archetypes/${response.body.archetype.id}`)).body).toEqual(response.body);
    });

    it('is an update applied once, not twice', async () => {
      const { id } = (await create('Before')).body.archetype;
      Object.assign(faults, { kind: 'lost-answer', remaining: 1, only: 'PutItem' });

      const response = await api.request('PUT', `/api/v1/archetypes/${id}`, { key: org.keys.admin, body: { name: 'After' } });

      expect(faults.seen).toBe(1);
      expect(response.status).toBe(200);
      expect(await stored(id)).toMatchObject({ name: 'After', version: 2, dateUpdated: response.body.archetype.dateUpdated });
    });

    it('is a delete that answers 200, not 404', async () => {
      const { id } = (await create('Doomed')).body.archetype;
      Object.assign(faults, { kind: 'lost-answer', remaining: 1, only: 'DeleteItem' });

      const response = await api.request('DELETE', `/api/v1/archetypes/${id}`, { key: org.keys.admin });

      expect(faults.seen).toBe(1);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ deletedId: id });
      expect(await stored(id)).toBeUndefined();
    });

    it('costs no more write units when nothing is lost', async () => {
      await create('Warm-up');
      dynamoMeter.reset();
      const { id } = (await create('Metered')).body.archetype;
      const created = dynamoMeter.snapshot();
      dynamoMeter.reset();
      await api.request('PUT', `/api/v1/archetypes/${id}`, { key: org.keys.admin, body: { name: 'Metered again' } });
      const updated = dynamoMeter.snapshot();
      dynamoMeter.reset();
      await api.request('DELETE', `/api/v1/archetypes/${id}`, { key: org.keys.admin });
      const deleted = dynamoMeter.snapshot();

      // As before the change: an item under 1 KB and its list-index entry (the update leaves the index keys as they were).
      expect([created.writeUnits, updated.writeUnits, deleted.writeUnits]).toEqual([2, 1, 2]);
    });

    it('would cost twice as much as a one-item transaction (the alternative not taken)', async () => {
      const item = (id: string) => ({ ...keys.entity(org.orgId, 'ARCHETYPE', id), name: 'Alternative', version: 1 });
      dynamoMeter.reset();
      await db.put({ TableName: tableName(), Item: item('plain'), ConditionExpression: 'attribute_not_exists(PK)' });
      const plain = dynamoMeter.snapshot().writeUnits;
      dynamoMeter.reset();
      await db.transactWrite({ TransactItems: [{ Put: { TableName: tableName(), Item: item('transacted'), ConditionExpression: 'attribute_not_exists(PK)' } }] });

      expect(dynamoMeter.snapshot().writeUnits).toBe(2 * plain);
    });
  });
});
