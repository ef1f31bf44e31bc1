import * as contract from '../../shared/contracts/segments';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['ds_main', 'ds_other'];

let api: Api;
let org: TestOrg;
let other: TestOrg;
let tableId: string;
let filterId: string;
let otherTableId: string;
let otherTableFilterId: string;

const sqlSegment = { name: 'Annual', datasourceId: 'ds_main', identifierType: 'user_id', type: 'SQL', query: 'SELECT user_id FROM subs' };

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
  const table = (body: unknown) => api.request('POST', '/api/v1/fact-tables', { key: org.keys.admin, body });
  const filter = (id: string) => api.request('POST', `/api/v1/fact-tables/${id}/filters`, { key: org.keys.admin, body: { name: 'US', value: "c = 'US'" } });
  tableId = (await table({ name: 'Orders', datasource: 'ds_main', userIdTypes: ['user_id'], sql: 'SELECT 1' })).body.factTable.id;
  filterId = (await filter(tableId)).body.factTableFilter.id;
  otherTableId = (await table({ name: 'Visits', datasource: 'ds_main', userIdTypes: ['user_id'], sql: 'SELECT 2' })).body.factTable.id;
  otherTableFilterId = (await filter(otherTableId)).body.factTableFilter.id;
});
afterAll(() => api.close());

const factSegment = () => ({ name: 'Buyers', datasourceId: 'ds_main', identifierType: 'user_id', type: 'FACT', factTableId: tableId, filters: [filterId] });
const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/segments', { key, body });
const total = async () => (await api.request('GET', '/api/v1/segments', { key: org.keys.admin })).body.total;

describe('POST /segments', () => {
  it('creates a SQL segment with a seg_ id and plain-string dates', async () => {
    const response = await create(sqlSegment);

    expect(response.status).toBe(200);
    expectShape(contract.postSegment, response.body);
    expect(response.body.segment).toMatchObject({
      id: expect.stringMatching(/^seg_/),
      ...sqlSegment,
      description: '',
      projects: [],
      managedBy: '',
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
    });
    // Fields the type does not use are empty, as GrowthBook answers them.
    expect(response.body.segment).toMatchObject({ factTableId: '', filters: [] });
  });

  it('creates a FACT segment on a fact table and its filters', async () => {
    const response = await create({ ...factSegment(), owner: org.admin.email });

    expect(response.status).toBe(200);
    expectShape(contract.postSegment, response.body);
    expect(response.body.segment).toMatchObject({ type: 'FACT', factTableId: tableId, filters: [filterId], owner: org.admin.memberId });
    expect(response.body.segment.query).toBe('');
  });

  it.each([
    ['a SQL segment without query', { ...sqlSegment, query: undefined }, /\[query\] is required for a SQL segment/],
    ['a SQL segment with a fact table', { ...sqlSegment, factTableId: 'x' }, /\[factTableId\] is only for FACT segments/],
    ['a FACT segment without factTableId', { ...sqlSegment, type: 'FACT', query: undefined }, /\[factTableId\] is required/],
    ['a FACT segment with a query', () => ({ ...factSegment(), query: 'SELECT 1' }), /\[query\] is only for SQL segments/],
    ['a FACT segment on an unknown fact table', () => ({ ...factSegment(), factTableId: 'ftb_missing', filters: [] }), /\[factTableId\] no fact table ftb_missing/],
    ['a filter of another fact table', () => ({ ...factSegment(), filters: [otherTableFilterId] }), /\[filters\.0\] .* is not a filter of fact table/],
    ['a datasource other than the fact table', () => ({ ...factSegment(), datasourceId: 'ds_other' }), /\[datasourceId\]/],
    ['an unknown type', { ...sqlSegment, type: 'JSON' }, /\[type\]/],
    ['a missing identifierType', { ...sqlSegment, identifierType: undefined }, /\[identifierType\]/],
    ['a missing datasourceId', { ...sqlSegment, datasourceId: undefined }, /\[datasourceId\]/],
    ['managedBy config, which only GrowthBook itself sets', { ...sqlSegment, managedBy: 'config' }, /\[managedBy\]/],
    ['an unknown project', { ...sqlSegment, projects: ['prj_missing'] }, /\[projects\]/],
    ['an unknown owner', { ...sqlSegment, owner: 'u_missing' }, /\[owner\]/],
    ['an unknown field', { ...sqlSegment, colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, input, message) => {
    const before = await total();

    const response = await create(typeof input === 'function' ? input() : input);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await total()).toBe(before);
  });

  it("answers 400 for another organization's fact table", async () => {
    const response = await create(factSegment(), other.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[factTableId\]/);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create(sqlSegment, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('GET /segments/{id}', () => {
  it('returns the segment', async () => {
    const { body: created } = await create(sqlSegment);

    const response = await api.request('GET', `/api/v1/segments/${created.segment.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getSegment, response.body);
    expect(response.body).toEqual(created);
  });

  it("answers 404 for an unknown id or another organization's segment", async () => {
    const { body: created } = await create(sqlSegment);

    const unknown = await api.request('GET', '/api/v1/segments/seg_missing', { key: org.keys.admin });
    const foreign = await api.request('GET', `/api/v1/segments/${created.segment.id}`, { key: other.keys.admin });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });
});

describe('GET /segments', () => {
  it('pages in creation order and filters by datasourceId', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const ids: string[] = [];
    for (const datasourceId of ['ds_a', 'ds_b', 'ds_a']) ids.push((await create({ ...sqlSegment, datasourceId }, fresh.keys.admin)).body.segment.id);

    const page = await api.request('GET', '/api/v1/segments?limit=2', { key: fresh.keys.readonly });
    const filtered = await api.request('GET', '/api/v1/segments?datasourceId=ds_a', { key: fresh.keys.readonly });

    expectShape(contract.listSegments, page.body);
    expect(page.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 3, hasMore: true, nextOffset: 2 });
    expect(page.body.segments.map((s: { id: string }) => s.id)).toEqual(ids.slice(0, 2));
    expect(filtered.body.segments.map((s: { id: string }) => s.id)).toEqual([ids[0], ids[2]]);
  });
});

describe.each(['/api/v1/segments', '/api/v1/segment'])('POST %s/{id}', (base) => {
  const update = (id: string, body: unknown, key = org.keys.admin) => api.request('POST', `${base}/${id}`, { key, body });

  it('changes only the given fields', async () => {
    const { body: created } = await create({ ...sqlSegment, description: 'kept' });

    const response = await update(created.segment.id, { name: 'Renamed', query: 'SELECT 2' });

    expect(response.status).toBe(200);
    expectShape(contract.updateSegment, response.body);
    expect(response.body.segment).toMatchObject({ name: 'Renamed', query: 'SELECT 2', description: 'kept', type: 'SQL' });
  });

  it('refuses to turn a SQL segment into a FACT segment, as GrowthBook does', async () => {
    const { body: created } = await create(sqlSegment);

    const response = await update(created.segment.id, { type: 'FACT', factTableId: tableId, filters: [filterId] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[type\] cannot change/);
  });

  it("takes back a segment as GET answers it, with the other type's fields empty", async () => {
    const { body: created } = await create(factSegment());
    const { id: _id, dateCreated: _c, dateUpdated: _u, owner: _o, ownerEmail: _e, ...read } = created.segment;

    const response = await update(created.segment.id, read);

    expect(response.status).toBe(200);
    expect(response.body.segment).toMatchObject({ type: 'FACT', query: '', factTableId: tableId, filters: [filterId] });
  });

  it('drops the old filters when the fact table changes without new ones', async () => {
    const { body: created } = await create(factSegment());

    const response = await update(created.segment.id, { factTableId: otherTableId });

    expect(response.status).toBe(200);
    expect(response.body.segment).toMatchObject({ factTableId: otherTableId, filters: [] });
  });

  it.each([
    ['a switch to SQL', { type: 'SQL', query: 'SELECT 1' }, /\[type\] cannot change/],
    ['a query on a FACT segment', { query: 'SELECT 1' }, /\[query\]/],
    ['a filter of another fact table', { filters: ['flt_elsewhere'] }, /\[filters\.0\]/],
    ['an unknown fact table', { factTableId: 'ftb_missing' }, /\[factTableId\]/],
    ['an unknown field', { colour: 'red' }, /colour/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const { body: created } = await create(factSegment());

    const response = await update(created.segment.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await api.request('GET', `/api/v1/segments/${created.segment.id}`, { key: org.keys.admin })).body).toEqual(created);
  });

  it("answers 404 for an unknown id or another organization's segment", async () => {
    const { body: created } = await create(sqlSegment);

    const unknown = await update('seg_missing', { name: 'x' });
    const foreign = await update(created.segment.id, { name: 'x' }, other.keys.admin);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(sqlSegment);

    const response = await update(created.segment.id, { name: 'x' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('DELETE /segments/{id}', () => {
  it('deletes the segment', async () => {
    const { body: created } = await create(sqlSegment);

    const response = await api.request('DELETE', `/api/v1/segments/${created.segment.id}`, { key: org.keys.admin });

    expect(response.body).toEqual({ deletedId: created.segment.id });
    expect((await api.request('GET', `/api/v1/segments/${created.segment.id}`, { key: org.keys.admin })).status).toBe(404);
  });

  it("answers 404 for another organization's segment and keeps it", async () => {
    const { body: created } = await create(sqlSegment);

    const response = await api.request('DELETE', `/api/v1/segments/${created.segment.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect((await api.request('GET', `/api/v1/segments/${created.segment.id}`, { key: org.keys.admin })).status).toBe(200);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(sqlSegment);

    const response = await api.request('DELETE', `/api/v1/segments/${created.segment.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(403);
  });
});
