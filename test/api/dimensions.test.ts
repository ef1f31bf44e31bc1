import * as contract from '../../shared/contracts/dimensions';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const body = { name: 'User Country', datasourceId: 'ds_123abc', identifierType: 'user', query: 'SELECT user_id, country FROM users' };
const request = (method: string, path: string, payload?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body: payload });
const create = (payload: Record<string, unknown> = {}, key = org.keys.admin) => request('POST', '/dimensions', { ...body, ...payload }, key);
const total = async () => (await request('GET', '/dimensions?limit=1')).body.total;

describe('POST /dimensions', () => {
  it("creates a dimension from GrowthBook's example request, owned by nobody for an organization key", async () => {
    const response = await create();

    expect(response.status).toBe(200);
    expectShape(contract.postDimension, response.body);
    expect(response.body.dimension).toEqual({ ...body, id: expect.stringMatching(/^dim_/), owner: '', dateCreated: expect.any(String), dateUpdated: expect.any(String) });
  });

  it("makes the token's member the owner, and resolves an owner given by e-mail", async () => {
    const byToken = await create({}, org.admin.token);
    const byEmail = await create({ owner: org.admin.email });

    expect(byToken.body.dimension.owner).toBe(org.admin.memberId);
    expect(byEmail.body.dimension.owner).toBe(org.admin.memberId);
  });

  it.each([
    ['no query', { query: undefined }, /\[query\]/],
    ['no datasourceId', { datasourceId: undefined }, /\[datasourceId\]/],
    ['managedBy config, which only GrowthBook itself sets', { managedBy: 'config' }, /\[managedBy\]/],
    ['an unknown field', { colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, payload, message) => {
    const before = await total();

    const response = await create(payload);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await total()).toBe(before);
  });

  it('answers 403 to a readonly key', async () => {
    expect((await create({}, org.keys.readonly)).status).toBe(403);
  });
});

describe('GET /dimensions', () => {
  it("pages through the organization's dimensions, filtered by datasource, never another organization's", async () => {
    const fresh = await createTestOrg('List org');
    const a = (await create({ datasourceId: 'ds_a' }, fresh.keys.admin)).body.dimension;
    await create({ datasourceId: 'ds_b' }, fresh.keys.admin);
    await create({ datasourceId: 'ds_a' }, other.keys.admin);

    const filtered = await request('GET', '/dimensions?datasourceId=ds_a', undefined, fresh.keys.readonly);
    const page = await request('GET', '/dimensions?limit=1', undefined, fresh.keys.readonly);

    expect(filtered.status).toBe(200);
    expectShape(contract.listDimensions, filtered.body);
    expect(filtered.body.dimensions).toEqual([a]);
    expect(page.body).toMatchObject({ count: 1, total: 2, hasMore: true, nextOffset: 1 });
  });

  it('answers 400 for an unknown query parameter', async () => {
    expect((await request('GET', '/dimensions?datasource=ds_a')).status).toBe(400);
  });
});

describe('GET, POST and DELETE /dimensions/{id}', () => {
  it('gets, partially updates and deletes a dimension', async () => {
    const created = (await create()).body.dimension;

    const got = await request('GET', `/dimensions/${created.id}`);
    const updated = await request('POST', `/dimensions/${created.id}`, { name: 'User Region' });
    const deleted = await request('DELETE', `/dimensions/${created.id}`);

    expect(got.body).toEqual({ dimension: created });
    expectShape(contract.updateDimension, updated.body);
    expect(updated.body.dimension).toEqual({ ...created, name: 'User Region', dateUpdated: expect.any(String) });
    expect(deleted.body).toEqual({ deletedId: created.id });
    expect((await request('GET', `/dimensions/${created.id}`)).status).toBe(404);
  });

  it('answers 400 for an empty name on update and keeps the dimension', async () => {
    const created = (await create()).body.dimension;

    const response = await request('POST', `/dimensions/${created.id}`, { name: '' });

    expect(response.status).toBe(400);
    expect((await request('GET', `/dimensions/${created.id}`)).body.dimension).toEqual(created);
  });

  it("answers 404 to every operation on another organization's dimension, which stays unchanged", async () => {
    const theirs = (await create({}, other.keys.admin)).body.dimension;

    const responses = await Promise.all([
      request('GET', `/dimensions/${theirs.id}`),
      request('POST', `/dimensions/${theirs.id}`, { name: 'Mine now' }),
      request('DELETE', `/dimensions/${theirs.id}`),
    ]);

    expect(responses.map((r) => r.status)).toEqual([404, 404, 404]);
    expect((await request('GET', `/dimensions/${theirs.id}`, undefined, other.keys.admin)).body.dimension).toEqual(theirs);
  });

  it('answers 403 to a readonly key for updates and deletes', async () => {
    const created = (await create()).body.dimension;

    const responses = await Promise.all([
      request('POST', `/dimensions/${created.id}`, { name: 'x' }, org.keys.readonly),
      request('DELETE', `/dimensions/${created.id}`, undefined, org.keys.readonly),
    ]);

    expect(responses.map((r) => r.status)).toEqual([403, 403]);
  });
});
