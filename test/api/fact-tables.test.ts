import * as contract from '../../shared/contracts/fact-tables';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['ds_a', 'ds_b', 'ds_main', 'ds_other'];

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
});
afterAll(() => api.close());

const orders = { name: 'Orders', datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT * FROM orders' };
const createTable = (body: unknown = orders, key = org.keys.admin) => api.request('POST', '/api/v1/fact-tables', { key, body });
const createFilter = (tableId: string, body: unknown, key = org.keys.admin) =>
  api.request('POST', `/api/v1/fact-tables/${tableId}/filters`, { key, body });
const tableIds = async (query = '', key = org.keys.admin) =>
  (await api.request('GET', `/api/v1/fact-tables?limit=100${query}`, { key })).body.factTables.map((t: { id: string }) => t.id);

describe('POST /fact-tables', () => {
  it('creates a fact table with an ftb_ id and the reference defaults', async () => {
    const response = await createTable();

    expect(response.status).toBe(200);
    expectShape(contract.postFactTable, response.body);
    expect(response.body.factTable).toMatchObject({
      id: expect.stringMatching(/^ftb_/),
      ...orders,
      description: '',
      projects: [],
      tags: [],
      eventName: '',
      columns: [],
      columnsError: null,
      archived: false,
      managedBy: '',
    });
  });

  it('resolves an owner e-mail and keeps projects, tags and managedBy', async () => {
    const project = (await api.request('POST', '/api/v1/projects', { key: org.keys.admin, body: { name: 'Facts' } })).body.project;

    const response = await createTable({ ...orders, owner: org.admin.email, projects: [project.id], tags: ['core'], managedBy: 'admin' });

    expect(response.status).toBe(200);
    expect(response.body.factTable).toMatchObject({
      owner: org.admin.memberId,
      ownerEmail: org.admin.email,
      projects: [project.id],
      tags: ['core'],
      managedBy: 'admin',
    });
  });

  it.each([
    ['a missing name', { ...orders, name: undefined }, /\[name\]/],
    ['a missing datasource', { ...orders, datasource: undefined }, /\[datasource\]/],
    ['missing userIdTypes', { ...orders, userIdTypes: undefined }, /\[userIdTypes\]/],
    ['empty userIdTypes', { ...orders, userIdTypes: [] }, /\[userIdTypes\]/],
    ['a missing sql', { ...orders, sql: undefined }, /\[sql\]/],
    ['sql with a second statement after its own', { ...orders, sql: "SELECT * FROM orders) f) SELECT 1; COPY (SELECT 1) TO 'exposures.csv'; SELECT (1" }, /\[sql\] must be one SQL statement/],
    ['an unknown managedBy', { ...orders, managedBy: 'ui' }, /\[managedBy\]/],
    ['an unknown project', { ...orders, projects: ['prj_missing'] }, /\[projects\] unknown project prj_missing/],
    ['an unknown owner', { ...orders, owner: 'u_nobody' }, /\[owner\]/],
    ['columns, which only an update sets', { ...orders, columns: [] }, /columns/],
    ['an unknown field', { ...orders, colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const before = (await tableIds()).length;

    const response = await createTable(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((await tableIds()).length).toBe(before);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await createTable(orders, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('GET /fact-tables/{id}', () => {
  it('returns the table without its filters', async () => {
    const { body: created } = await createTable();
    await createFilter(created.factTable.id, { name: 'US', value: "country = 'US'" });

    const response = await api.request('GET', `/api/v1/fact-tables/${created.factTable.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getFactTable, response.body);
    expect(response.body.factTable).not.toHaveProperty('filters');
  });

  it("answers 404 for an unknown id or another organization's table", async () => {
    const { body: created } = await createTable();

    const unknown = await api.request('GET', '/api/v1/fact-tables/ftb_missing', { key: org.keys.admin });
    const foreign = await api.request('GET', `/api/v1/fact-tables/${created.factTable.id}`, { key: other.keys.admin });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });
});

describe('GET /fact-tables', () => {
  it('pages in creation order and filters by datasourceId and projectId', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const project = (await api.request('POST', '/api/v1/projects', { key: fresh.keys.admin, body: { name: 'P' } })).body.project;
    const a = (await createTable({ ...orders, datasource: 'ds_a' }, fresh.keys.admin)).body.factTable.id;
    const b = (await createTable({ ...orders, datasource: 'ds_b', projects: [project.id] }, fresh.keys.admin)).body.factTable.id;
    const c = (await createTable({ ...orders, datasource: 'ds_a', projects: [project.id] }, fresh.keys.admin)).body.factTable.id;

    const page = await api.request('GET', '/api/v1/fact-tables?limit=2', { key: fresh.keys.readonly });

    expectShape(contract.listFactTables, page.body);
    expect(page.body).toMatchObject({ count: 2, total: 3, hasMore: true, nextOffset: 2 });
    expect(page.body.factTables.map((t: { id: string }) => t.id)).toEqual([a, b]);
    expect(await tableIds('&datasourceId=ds_a', fresh.keys.admin)).toEqual([a, c]);
    // A table with no projects belongs to every project, as in GrowthBook.
    expect(await tableIds(`&projectId=${project.id}`, fresh.keys.admin)).toEqual([a, b, c]);
    expect(await tableIds(`&projectId=${project.id}&datasourceId=ds_b`, fresh.keys.admin)).toEqual([b]);
    expect(await tableIds('&projectId=prj_elsewhere', fresh.keys.admin)).toEqual([a]);
  });
});

describe('POST /fact-tables/{id}', () => {
  it('changes only the given fields and can archive the table', async () => {
    const { body: created } = await createTable({ ...orders, description: 'kept' });

    const response = await api.request('POST', `/api/v1/fact-tables/${created.factTable.id}`, {
      key: org.keys.admin,
      body: { name: 'Purchases', archived: true, columnsError: 'cannot parse' },
    });

    expect(response.status).toBe(200);
    expectShape(contract.updateFactTable, response.body);
    expect(response.body.factTable).toMatchObject({ name: 'Purchases', description: 'kept', archived: true, columnsError: 'cannot parse', sql: orders.sql });
  });

  it('adds named columns with their defaults and updates existing ones in place', async () => {
    const { body: created } = await createTable();
    const url = `/api/v1/fact-tables/${created.factTable.id}`;
    await api.request('POST', url, { key: org.keys.admin, body: { columns: [{ column: 'amount', datatype: 'number' }, { column: 'country', datatype: 'string' }] } });

    const response = await api.request('POST', url, {
      key: org.keys.admin,
      body: { columns: [{ column: 'amount', datatype: 'number', numberFormat: 'currency', dateCreated: 'ignored' }] },
    });

    expect(response.status).toBe(200);
    expectShape(contract.updateFactTable, response.body);
    const [amount, country] = response.body.factTable.columns;
    expect(amount).toMatchObject({ column: 'amount', datatype: 'number', numberFormat: 'currency', name: 'amount', deleted: false });
    expect(amount.dateCreated).not.toBe('ignored');
    expect(country).toEqual({
      column: 'country',
      datatype: 'string',
      numberFormat: '',
      jsonFields: {},
      name: 'country',
      description: '',
      alwaysInlineFilter: false,
      deleted: false,
      isAutoSliceColumn: false,
      autoSlices: [],
      lockedAutoSlices: [],
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
    });
  });

  it.each([
    ['a datasource, which cannot change', { datasource: 'ds_other' }, /datasource/],
    ['a column without datatype', { columns: [{ column: 'x' }] }, /\[columns\.0\.datatype\]/],
    ['an unknown column datatype', { columns: [{ column: 'x', datatype: 'float' }] }, /\[columns\.0\.datatype\]/],
    ['a column named twice', { columns: [{ column: 'x', datatype: 'number' }, { column: 'x', datatype: 'string' }] }, /\[columns\.1\.column\]/],
    ['an unknown project', { projects: ['prj_missing'] }, /\[projects\]/],
    ['sql with a second statement', { sql: "SELECT * FROM orders; ATTACH 'owned.duckdb' AS owned" }, /\[sql\] must be one SQL statement/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const { body: created } = await createTable();

    const response = await api.request('POST', `/api/v1/fact-tables/${created.factTable.id}`, { key: org.keys.admin, body });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    const after = await api.request('GET', `/api/v1/fact-tables/${created.factTable.id}`, { key: org.keys.admin });
    expect(after.body).toEqual(created);
  });

  it("answers 404 for another organization's table", async () => {
    const { body: created } = await createTable();

    const response = await api.request('POST', `/api/v1/fact-tables/${created.factTable.id}`, { key: other.keys.admin, body: { name: 'x' } });

    expect(response.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await createTable();

    const response = await api.request('POST', `/api/v1/fact-tables/${created.factTable.id}`, { key: org.keys.readonly, body: { name: 'x' } });

    expect(response.status).toBe(403);
  });
});

describe('DELETE /fact-tables/{id}', () => {
  it('deletes the table together with its filters', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;
    const filter = (await createFilter(id, { name: 'US', value: "country = 'US'" })).body.factTableFilter;

    const response = await api.request('DELETE', `/api/v1/fact-tables/${id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deletedId: id });
    expect((await api.request('GET', `/api/v1/fact-tables/${id}`, { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/fact-tables/${id}/filters/${filter.id}`, { key: org.keys.admin })).status).toBe(404);
  });

  it('answers 409 while a fact metric uses the table, and keeps it', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;
    const metric = await api.request('POST', '/api/v1/fact-metrics', {
      key: org.keys.admin,
      body: { name: 'Buyers', metricType: 'proportion', numerator: { factTableId: id } },
    });

    const response = await api.request('DELETE', `/api/v1/fact-tables/${id}`, { key: org.keys.admin });

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'invalid_status', message: expect.stringContaining(metric.body.factMetric.id) });
    expect((await api.request('GET', `/api/v1/fact-tables/${id}`, { key: org.keys.admin })).status).toBe(200);
  });

  it('answers 409 while a segment uses the table', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;
    const segment = await api.request('POST', '/api/v1/segments', {
      key: org.keys.admin,
      body: { name: 'Buyers', datasourceId: 'ds_main', identifierType: 'id', type: 'FACT', factTableId: id },
    });

    const response = await api.request('DELETE', `/api/v1/fact-tables/${id}`, { key: org.keys.admin });

    expect(response.status).toBe(409);
    expect(response.body.message).toContain(segment.body.segment.id);
  });

  it("answers 404 for another organization's table", async () => {
    const { body: created } = await createTable();

    const response = await api.request('DELETE', `/api/v1/fact-tables/${created.factTable.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await createTable();

    const response = await api.request('DELETE', `/api/v1/fact-tables/${created.factTable.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(403);
  });
});

describe('fact table filters', () => {
  it('creates a filter with an flt_ id and lists the filters of its table page by page', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;

    const first = await createFilter(id, { name: 'US', value: "country = 'US'", description: 'Americans' });
    await createFilter(id, { name: 'Big', value: 'amount > 100' });
    await createFilter(id, { name: 'Small', value: 'amount < 10' });
    const page = await api.request('GET', `/api/v1/fact-tables/${id}/filters?limit=2&offset=1`, { key: org.keys.readonly });

    expect(first.status).toBe(200);
    expectShape(contract.postFactTableFilter, first.body);
    expect(first.body.factTableFilter).toMatchObject({
      id: expect.stringMatching(/^flt_/),
      name: 'US',
      value: "country = 'US'",
      description: 'Americans',
      managedBy: '',
    });
    expectShape(contract.listFactTableFilters, page.body);
    expect(page.body).toMatchObject({ limit: 2, offset: 1, count: 2, total: 3, hasMore: false, nextOffset: null });
    expect(page.body.factTableFilters.map((f: { name: string }) => f.name)).toEqual(['Big', 'Small']);
  });

  it('gets and updates one filter', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;
    const filter = (await createFilter(id, { name: 'US', value: "country = 'US'" })).body.factTableFilter;
    const url = `/api/v1/fact-tables/${id}/filters/${filter.id}`;

    const updated = await api.request('POST', url, { key: org.keys.admin, body: { value: "country = 'CA'" } });
    const read = await api.request('GET', url, { key: org.keys.readonly });

    expect(updated.status).toBe(200);
    expectShape(contract.updateFactTableFilter, updated.body);
    expect(updated.body.factTableFilter).toMatchObject({ id: filter.id, name: 'US', value: "country = 'CA'" });
    expectShape(contract.getFactTableFilter, read.body);
    expect(read.body).toEqual(updated.body);
  });

  it('lets a filter be API-managed only when its table is', async () => {
    const plain = (await createTable()).body.factTable.id;
    const managed = (await createTable({ ...orders, managedBy: 'api' })).body.factTable.id;

    const refused = await createFilter(plain, { name: 'x', value: 'y', managedBy: 'api' });
    const accepted = await createFilter(managed, { name: 'x', value: 'y', managedBy: 'api' });

    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/\[managedBy\]/);
    expect(accepted.status).toBe(200);
  });

  it.each([
    ['a missing value', { name: 'x' }, /\[value\]/],
    ['a missing name', { value: 'x' }, /\[name\]/],
    ['managedBy admin, which filters do not take', { name: 'x', value: 'y', managedBy: 'admin' }, /\[managedBy\]/],
    ['an unknown field', { name: 'x', value: 'y', column: 'z' }, /column/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const { body: created } = await createTable();

    const response = await createFilter(created.factTable.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('deletes a filter no metric uses, and refuses one a metric uses', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;
    const unused = (await createFilter(id, { name: 'A', value: 'a' })).body.factTableFilter;
    const used = (await createFilter(id, { name: 'B', value: 'b' })).body.factTableFilter;
    await api.request('POST', '/api/v1/fact-metrics', {
      key: org.keys.admin,
      body: { name: 'Filtered', metricType: 'proportion', numerator: { factTableId: id, filters: [used.id] } },
    });

    const deleted = await api.request('DELETE', `/api/v1/fact-tables/${id}/filters/${unused.id}`, { key: org.keys.admin });
    const refused = await api.request('DELETE', `/api/v1/fact-tables/${id}/filters/${used.id}`, { key: org.keys.admin });

    expect(deleted.body).toEqual({ deletedId: unused.id });
    expect(refused.status).toBe(409);
    const left = await api.request('GET', `/api/v1/fact-tables/${id}/filters`, { key: org.keys.admin });
    expect(left.body.factTableFilters.map((f: { id: string }) => f.id)).toEqual([used.id]);
  });

  it("answers 404 for an unknown filter, an unknown table, and another organization's table", async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;
    const filter = (await createFilter(id, { name: 'A', value: 'a' })).body.factTableFilter;

    const responses = await Promise.all([
      api.request('GET', `/api/v1/fact-tables/${id}/filters/flt_missing`, { key: org.keys.admin }),
      api.request('POST', `/api/v1/fact-tables/${id}/filters/flt_missing`, { key: org.keys.admin, body: { name: 'x' } }),
      api.request('DELETE', `/api/v1/fact-tables/${id}/filters/flt_missing`, { key: org.keys.admin }),
      api.request('GET', '/api/v1/fact-tables/ftb_missing/filters', { key: org.keys.admin }),
      api.request('POST', '/api/v1/fact-tables/ftb_missing/filters', { key: org.keys.admin, body: { name: 'x', value: 'y' } }),
      api.request('GET', `/api/v1/fact-tables/${id}/filters/${filter.id}`, { key: other.keys.admin }),
      api.request('DELETE', `/api/v1/fact-tables/${id}/filters/${filter.id}`, { key: other.keys.admin }),
    ]);

    expect(responses.map((r) => r.status)).toEqual(Array(7).fill(404));
  });

  it('answers 403 to a readonly key for every filter write', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;
    const filter = (await createFilter(id, { name: 'A', value: 'a' })).body.factTableFilter;

    const responses = await Promise.all([
      createFilter(id, { name: 'x', value: 'y' }, org.keys.readonly),
      api.request('POST', `/api/v1/fact-tables/${id}/filters/${filter.id}`, { key: org.keys.readonly, body: { name: 'x' } }),
      api.request('DELETE', `/api/v1/fact-tables/${id}/filters/${filter.id}`, { key: org.keys.readonly }),
    ]);

    expect(responses.map((r) => r.status)).toEqual([403, 403, 403]);
  });

  it('loses no filter when many are created at once', async () => {
    const { body: created } = await createTable();
    const id = created.factTable.id;

    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => createFilter(id, { name: `f${i}`, value: `v = ${i}` })));

    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
    const list = await api.request('GET', `/api/v1/fact-tables/${id}/filters`, { key: org.keys.admin });
    expect(list.body.total).toBe(6);
  });
});
