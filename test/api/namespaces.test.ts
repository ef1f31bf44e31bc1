import * as contract from '../../shared/contracts/namespaces';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

let counter = 0;
const request = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });
const create = (body: Record<string, unknown> = {}, key = org.keys.admin) =>
  request('POST', '/namespaces', { displayName: `Checkout ${++counter}`, hashAttribute: 'id', ...body }, key);

describe('POST /namespaces', () => {
  it('creates a multiRange namespace with a seed, active by default', async () => {
    const response = await create({ displayName: 'Checkout flow', description: 'Funnel tests' });

    expect(response.status).toBe(200);
    expectShape(contract.postNamespace, response.body);
    expect(response.body.namespace).toEqual({
      id: expect.stringMatching(/^ns-/),
      displayName: 'Checkout flow',
      description: 'Funnel tests',
      status: 'active',
      format: 'multiRange',
      hashAttribute: 'id',
      seed: expect.any(String),
    });
  });

  it('creates a legacy namespace, which has no hash attribute', async () => {
    const response = await create({ format: 'legacy', hashAttribute: undefined, status: 'inactive' });

    expect(response.status).toBe(200);
    expect(response.body.namespace).toMatchObject({ format: 'legacy', status: 'inactive' });
    expect(response.body.namespace).not.toHaveProperty('hashAttribute');
  });

  it.each([
    ['a multiRange namespace without hashAttribute', { hashAttribute: undefined }, /\[hashAttribute\] is required/],
    ['a legacy namespace with a hashAttribute', { format: 'legacy' }, /\[hashAttribute\] only applies/],
    ['no displayName', { displayName: undefined }, /\[displayName\]/],
    ['an unknown status', { status: 'paused' }, /\[status\]/],
    ['an unknown field', { seed: 'mine' }, /seed/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const before = (await request('GET', '/namespaces?limit=1')).body.total;

    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await request('GET', '/namespaces?limit=1')).body.total).toBe(before);
  });

  it('answers 409 for a display name another namespace has', async () => {
    await create({ displayName: 'Unique name' });

    const response = await create({ displayName: 'unique NAME' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('already_exists');
  });

  it('answers 403 without the manage permission', async () => {
    const response = await create({}, org.keys.experimenter);

    expect(response.status).toBe(403);
  });
});

describe('GET /namespaces and /namespaces/{id}', () => {
  it("lists the organization's namespaces, paginated, and gets one; never another organization's", async () => {
    const fresh = await createTestOrg('List org');
    const first = (await create({}, fresh.keys.admin)).body.namespace;
    await create({}, fresh.keys.admin);
    const theirs = (await create({}, other.keys.admin)).body.namespace;

    const page = await request('GET', '/namespaces?limit=1', undefined, fresh.keys.readonly);
    const one = await request('GET', `/namespaces/${first.id}`, undefined, fresh.keys.readonly);
    const foreign = await request('GET', `/namespaces/${theirs.id}`, undefined, fresh.keys.readonly);

    expect(page.status).toBe(200);
    expectShape(contract.listNamespaces, page.body);
    expect(page.body).toMatchObject({ namespaces: [first], total: 2, hasMore: true, nextOffset: 1 });
    expect(one.body).toEqual({ namespace: first });
    expect(foreign.status).toBe(404);
  });

  it('answers 400 for an unknown query parameter', async () => {
    const response = await request('GET', '/namespaces?limt=1');

    expect(response.status).toBe(400);
  });
});

describe('PUT /namespaces/{id}', () => {
  it('changes the given fields and keeps the others', async () => {
    const created = (await create()).body.namespace;

    const response = await request('PUT', `/namespaces/${created.id}`, { displayName: 'Renamed', status: 'inactive' });

    expect(response.status).toBe(200);
    expectShape(contract.putNamespace, response.body);
    expect(response.body.namespace).toEqual({ ...created, displayName: 'Renamed', status: 'inactive' });
  });

  it.each([
    ['a format change', { format: 'legacy' }, 400],
    ['an empty displayName', { displayName: '' }, 400],
  ])('answers %s with 400 and changes nothing', async (_case, body, status) => {
    const created = (await create()).body.namespace;

    const response = await request('PUT', `/namespaces/${created.id}`, body);

    expect(response.status).toBe(status);
    expect((await request('GET', `/namespaces/${created.id}`)).body.namespace).toEqual(created);
  });

  it("answers 404 for another organization's namespace and 403 without manage", async () => {
    const theirs = (await create({}, other.keys.admin)).body.namespace;
    const mine = (await create()).body.namespace;

    const foreign = await request('PUT', `/namespaces/${theirs.id}`, { description: 'x' });
    const forbidden = await request('PUT', `/namespaces/${mine.id}`, { description: 'x' }, org.keys.engineer);

    expect(foreign.status).toBe(404);
    expect(forbidden.status).toBe(403);
    expect((await request('GET', `/namespaces/${theirs.id}`, undefined, other.keys.admin)).body.namespace).toEqual(theirs);
  });
});

describe('DELETE /namespaces/{id}', () => {
  it('deletes a namespace no experiment uses', async () => {
    const created = (await create()).body.namespace;

    const response = await request('DELETE', `/namespaces/${created.id}`);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deletedId: created.id });
    expect((await request('GET', `/namespaces/${created.id}`)).status).toBe(404);
  });

  it("answers 409 while an experiment's phase uses it, and deletes it once no phase does", async () => {
    const created = (await create()).body.namespace;
    const phase = { name: 'Main', dateStarted: '2024-01-01T00:00:00Z', namespace: { namespaceId: created.id, enabled: true, range: [0, 0.5] } };
    const experiment = await request('POST', '/experiments', {
      trackingKey: `ns-user-${counter}`,
      name: 'Uses the namespace',
      variations: [
        { key: '0', name: 'A' },
        { key: '1', name: 'B' },
      ],
      phases: [phase],
    });
    expect(experiment.status).toBe(200);

    const refused = await request('DELETE', `/namespaces/${created.id}`);
    await request('POST', `/experiments/${experiment.body.experiment.id}`, { phases: [{ name: 'Main', dateStarted: '2024-01-01T00:00:00Z' }] });
    const accepted = await request('DELETE', `/namespaces/${created.id}`);

    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', message: expect.stringMatching(/used by 1 experiment/) });
    expect(accepted.status).toBe(200);
  });

  it("answers 404 for an unknown or another organization's namespace, which stays", async () => {
    const theirs = (await create({}, other.keys.admin)).body.namespace;

    const unknown = await request('DELETE', '/namespaces/ns-missing');
    const foreign = await request('DELETE', `/namespaces/${theirs.id}`);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect((await request('GET', `/namespaces/${theirs.id}`, undefined, other.keys.admin)).status).toBe(200);
  });

  it('answers 403 without the manage permission', async () => {
    const created = (await create()).body.namespace;

    const response = await request('DELETE', `/namespaces/${created.id}`, undefined, org.keys.experimenter);

    expect(response.status).toBe(403);
  });
});

describe('POST /namespaces/{id}/rotateSeed', () => {
  it('gives a multiRange namespace a new random seed and keeps everything else', async () => {
    const created = (await create()).body.namespace;

    const first = await request('POST', `/namespaces/${created.id}/rotateSeed`, {});
    const second = await request('POST', `/namespaces/${created.id}/rotateSeed`);

    expect(first.status).toBe(200);
    expectShape(contract.postNamespaceRotateSeed, first.body);
    expect(first.body.namespace).toEqual({ ...created, seed: expect.any(String) });
    expect(new Set([created.seed, first.body.namespace.seed, second.body.namespace.seed]).size).toBe(3);
    expect((await request('GET', `/namespaces/${created.id}`)).body.namespace).toEqual(second.body.namespace);
  });

  it('takes the seed given', async () => {
    const created = (await create()).body.namespace;

    const response = await request('POST', `/namespaces/${created.id}/rotateSeed`, { seed: 'spring-2025' });

    expect(response.status).toBe(200);
    expect(response.body.namespace.seed).toBe('spring-2025');
  });

  it.each([
    ['a legacy namespace, which has no seed', { format: 'legacy', hashAttribute: undefined }, {}, /legacy/],
    ['a seed that is not a string', {}, { seed: 42 }, /\[seed\]/],
    ['an unknown field', {}, { salt: 'x' }, /salt/],
  ])('answers 400 for %s and changes nothing', async (_case, namespace, body, message) => {
    const created = (await create(namespace)).body.namespace;

    const response = await request('POST', `/namespaces/${created.id}/rotateSeed`, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await request('GET', `/namespaces/${created.id}`)).body.namespace).toEqual(created);
  });

  it("answers 404 for an unknown or another organization's namespace, and 403 without manage", async () => {
    const theirs = (await create({}, other.keys.admin)).body.namespace;
    const mine = (await create()).body.namespace;

    const unknown = await request('POST', '/namespaces/ns-missing/rotateSeed', {});
    const foreign = await request('POST', `/namespaces/${theirs.id}/rotateSeed`, {});
    const forbidden = await request('POST', `/namespaces/${mine.id}/rotateSeed`, {}, org.keys.experimenter);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(forbidden.status).toBe(403);
    expect((await request('GET', `/namespaces/${theirs.id}`, undefined, other.keys.admin)).body.namespace).toEqual(theirs);
    expect((await request('GET', `/namespaces/${mine.id}`)).body.namespace).toEqual(mine);
  });
});

describe('GET /namespaces/{id}/memberships', () => {
  const experimentIn = async (trackingKey: string, namespace: Record<string, unknown> | undefined, earlier?: Record<string, unknown>) => {
    const phase = (ns: Record<string, unknown> | undefined) => ({ name: 'Main', dateStarted: '2024-01-01T00:00:00Z', ...(ns ? { namespace: ns } : {}) });
    const response = await request('POST', '/experiments', {
      trackingKey,
      name: `Experiment ${trackingKey}`,
      variations: [
        { key: '0', name: 'A' },
        { key: '1', name: 'B' },
      ],
      phases: earlier ? [phase(earlier), phase(namespace)] : [phase(namespace)],
    });
    if (response.status !== 200) throw new Error(`setup failed: ${JSON.stringify(response.body)}`);
    return response.body.experiment;
  };

  it("lists the experiments whose latest phase uses the namespace, with the ranges they claim, in creation order", async () => {
    const ns = (await create()).body.namespace;
    const elsewhere = (await create()).body.namespace;
    const single = await experimentIn(`mem-a-${counter}`, { namespaceId: ns.id, enabled: true, range: [0, 0.25] });
    const multi = await experimentIn(`mem-b-${counter}`, { namespaceId: ns.id, enabled: true, ranges: [[0.3, 0.4], [0.6, 0.7]] });
    await experimentIn(`mem-c-${counter}`, { namespaceId: ns.id, enabled: false, range: [0.5, 0.6] });
    await experimentIn(`mem-d-${counter}`, { namespaceId: elsewhere.id, enabled: true, range: [0, 1] }, { namespaceId: ns.id, enabled: true, range: [0, 1] });

    const response = await request('GET', `/namespaces/${ns.id}/memberships`, undefined, org.keys.readonly);
    const page = await request('GET', `/namespaces/${ns.id}/memberships?limit=1&offset=1`);

    expect(response.status).toBe(200);
    expectShape(contract.getNamespaceMemberships, response.body);
    expect(response.body).toEqual({
      experiments: [
        { id: single.id, name: single.name, trackingKey: single.trackingKey, status: 'draft', ranges: [[0, 0.25]] },
        { id: multi.id, name: multi.name, trackingKey: multi.trackingKey, status: 'draft', ranges: [[0.3, 0.4], [0.6, 0.7]] },
      ],
      limit: 10,
      offset: 0,
      count: 2,
      total: 2,
      hasMore: false,
      nextOffset: null,
    });
    expect(page.body).toMatchObject({ experiments: [{ id: multi.id }], total: 2, count: 1, hasMore: false });
  });

  it('lists none for a namespace no experiment uses', async () => {
    const ns = (await create()).body.namespace;

    const response = await request('GET', `/namespaces/${ns.id}/memberships`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ experiments: [], total: 0 });
  });

  it("answers 404 for an unknown or another organization's namespace, and 400 for an unknown query parameter", async () => {
    const theirs = (await create({}, other.keys.admin)).body.namespace;
    const mine = (await create()).body.namespace;

    expect((await request('GET', '/namespaces/ns-missing/memberships')).status).toBe(404);
    expect((await request('GET', `/namespaces/${theirs.id}/memberships`)).status).toBe(404);
    expect((await request('GET', `/namespaces/${mine.id}/memberships?limt=1`)).status).toBe(400);
  });
});
