import * as contract from '../../shared/contracts/bulk-import';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { commandsDuring } from '../support/dynamo-commands';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['ds_main', 'ds_other'];

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
});
afterAll(() => api.close());

const importFacts = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/bulk-import/facts', { key, body });
const get = (path: string, key = org.keys.admin) => api.request('GET', `/api/v1${path}`, { key });
const totals = async (key = org.keys.admin) => ({
  tables: (await get('/fact-tables', key)).body.total,
  metrics: (await get('/fact-metrics', key)).body.total,
});

const tableData = (name = 'Orders') => ({ name, datasource: 'ds_main', userIdTypes: ['id'], sql: `SELECT * FROM ${name}` });
const filterData = (name = 'US') => ({ name, value: `country = '${name}'` });
const metricData = (factTableId: string, filters: string[] = []) => ({
  name: 'Buyers',
  metricType: 'proportion',
  numerator: { factTableId, column: '$$distinctUsers', filters },
});

/** A small import whose filters and metrics use tables and filters created by the same import. */
const sample = (prefix: string) => ({
  factTables: [
    { id: `${prefix}_orders`, data: tableData('Orders') },
    { id: `${prefix}_visits`, data: tableData('Visits') },
  ],
  factTableFilters: [
    { factTableId: `${prefix}_orders`, id: 'us', data: filterData('US') },
    { factTableId: `${prefix}_visits`, id: 'us', data: filterData('US') },
  ],
  factMetrics: [
    { id: `${prefix}_buyers`, data: metricData(`${prefix}_orders`, ['us']) },
    {
      id: `fact__${prefix}_per_visit`,
      data: {
        name: 'Orders per visit',
        metricType: 'ratio',
        numerator: { factTableId: `${prefix}_orders`, column: '$$count' },
        denominator: { factTableId: `${prefix}_visits`, column: '$$count', filters: ['us'] },
      },
    },
  ],
});

describe('POST /bulk-import/facts', () => {
  it('adds tables, filters and metrics that use what the same import creates', async () => {
    const response = await importFacts(sample('new'));

    expect(response.status).toBe(200);
    expectShape(contract.postBulkImportFacts, response.body);
    expect(response.body).toEqual({
      success: true,
      factTablesAdded: 2,
      factTablesUpdated: 0,
      factTableFiltersAdded: 2,
      factTableFiltersUpdated: 0,
      factMetricsAdded: 2,
      factMetricsUpdated: 0,
    });
    expect((await get('/fact-tables/new_orders')).body.factTable).toMatchObject({ name: 'Orders', managedBy: 'api' });
    expect((await get('/fact-tables/new_orders/filters/us')).body.factTableFilter).toMatchObject({ name: 'US', managedBy: 'api' });
    expect((await get('/fact-metrics/fact__new_buyers')).body.factMetric).toMatchObject({
      datasource: 'ds_main',
      managedBy: 'api',
      numerator: { factTableId: 'new_orders', filters: ['us'] },
    });
    expect((await get('/fact-metrics/fact__new_per_visit')).status).toBe(200);
  });

  it('counts everything as updated when the same import runs again, and adds nothing', async () => {
    await importFacts(sample('again'));
    const before = await totals();
    const created = (await get('/fact-tables/again_orders')).body.factTable;

    const response = await importFacts(sample('again'));

    expect(response.body).toMatchObject({
      factTablesAdded: 0,
      factTablesUpdated: 2,
      factTableFiltersAdded: 0,
      factTableFiltersUpdated: 2,
      factMetricsAdded: 0,
      factMetricsUpdated: 2,
    });
    expect(await totals()).toEqual(before);
    expect((await get('/fact-tables/again_orders')).body.factTable.dateCreated).toBe(created.dateCreated);
  });

  it('updates a stored item by the fields its data gives, keeping the others', async () => {
    await importFacts({ factTables: [{ id: 'upd_t', data: { ...tableData(), description: 'kept', tags: ['a'] } }] });
    await api.request('POST', '/api/v1/fact-tables/upd_t', {
      key: org.keys.admin,
      body: { columns: [{ column: 'amount', datatype: 'number' }] },
    });

    const response = await importFacts({ factTables: [{ id: 'upd_t', data: { ...tableData('Renamed'), managedBy: 'admin' } }] });

    expect(response.body).toMatchObject({ factTablesAdded: 0, factTablesUpdated: 1 });
    expect((await get('/fact-tables/upd_t')).body.factTable).toMatchObject({
      name: 'Renamed',
      description: 'kept',
      tags: ['a'],
      managedBy: 'admin',
      columns: [expect.objectContaining({ column: 'amount' })],
    });
  });

  it('adds filters and metrics to a fact table stored before the import', async () => {
    const table = (await api.request('POST', '/api/v1/fact-tables', { key: org.keys.admin, body: tableData() })).body.factTable;

    const response = await importFacts({
      factTableFilters: [{ factTableId: table.id, id: 'big', data: filterData('Big') }],
      factMetrics: [{ id: 'on_stored', data: metricData(table.id, ['big']) }],
    });

    expect(response.body).toMatchObject({ factTablesAdded: 0, factTablesUpdated: 0, factTableFiltersAdded: 1, factMetricsAdded: 1 });
    // A filter of a table that is not API-managed cannot be, so its default follows the table.
    expect((await get(`/fact-tables/${table.id}/filters/big`)).body.factTableFilter.managedBy).toBe('');
  });

  it('keeps filter ids scoped to their table: two tables may each have a filter "us"', async () => {
    await importFacts(sample('scoped'));

    const orders = await get('/fact-tables/scoped_orders/filters');
    const visits = await get('/fact-tables/scoped_visits/filters');

    expect(orders.body.factTableFilters.map((f: { id: string }) => f.id)).toEqual(['us']);
    expect(visits.body.factTableFilters.map((f: { id: string }) => f.id)).toEqual(['us']);
  });

  it('answers zeros for an empty import', async () => {
    const response = await importFacts({});

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, factTablesAdded: 0, factMetricsAdded: 0 });
  });

  it('answers 400 naming a malformed item and writes nothing, not even the valid items', async () => {
    const before = await totals();
    const body = sample('bad');
    body.factMetrics.push(
      { id: 'm2', data: metricData('bad_orders') },
      { id: 'm3', data: { ...metricData('bad_orders'), metricType: 'median' } },
    );

    const response = await importFacts(body);

    expect(response.status).toBe(400);
    expect(response.body.message).toContain('Request body: [factMetrics.3.data.metricType] Invalid option');
    expect(await totals()).toEqual(before);
    expect((await get('/fact-tables/bad_orders')).status).toBe(404);
  });

  it('reports each item that breaks a rule, each on its own line', async () => {
    const body = sample('rules');
    body.factTableFilters.push({ factTableId: 'nowhere', id: 'x', data: filterData() });
    body.factMetrics.push({ id: 'm2', data: metricData('rules_orders', ['missing_filter']) });

    const response = await importFacts(body);

    expect(response.status).toBe(400);
    expect(response.body.message.split('\n')).toEqual([
      'Request body: [factTableFilters.2.factTableId] no fact table nowhere',
      expect.stringMatching(/^Request body: \[factMetrics\.2\.data\.numerator\.filters\.0\] missing_filter is not a filter of fact table rules_orders/),
    ]);
    expect((await get('/fact-tables/rules_orders')).status).toBe(404);
  });

  it.each<[string, () => unknown, RegExp]>([
    ['a table without sql', () => ({ factTables: [{ id: 't', data: { ...tableData(), sql: undefined } }] }), /\[factTables\.0\.data\.sql\]/],
    ['an item without data', () => ({ factTables: [{ id: 't' }] }), /\[factTables\.0\.data\]/],
    ['a filter without value', () => ({ factTableFilters: [{ factTableId: 't', id: 'f', data: { name: 'x' } }] }), /\[factTableFilters\.0\.data\.value\]/],
    ['a metric on an unknown table', () => ({ factMetrics: [{ id: 'm', data: metricData('ftb_missing') }] }), /\[factMetrics\.0\.data\.numerator\.factTableId\] no fact table ftb_missing/],
    ['a denominator on a proportion metric', () => ({ factTables: [{ id: 'd', data: tableData() }], factMetrics: [{ id: 'm', data: { ...metricData('d'), denominator: { factTableId: 'd', column: 'x' } } }] }), /\[factMetrics\.0\.data\.denominator\] is only for ratio/],
    ['riskThresholdSuccess above riskThresholdDanger', () => ({ factTables: [{ id: 'r', data: tableData() }], factMetrics: [{ id: 'm', data: { ...metricData('r'), riskThresholdSuccess: 1, riskThresholdDanger: 0.5 } }] }), /\[factMetrics\.0\.data\.riskThresholdSuccess\]/],
    ['a table id given twice', () => ({ factTables: [{ id: 'twice', data: tableData() }, { id: 'twice', data: tableData() }] }), /\[factTables\.1\.id\] twice appears more than once/],
    ['metric ids that are the same once prefixed', () => ({ factTables: [{ id: 'p', data: tableData() }], factMetrics: [{ id: 'same', data: metricData('p') }, { id: 'fact__same', data: metricData('p') }] }), /\[factMetrics\.1\.id\]/],
    ['an unknown project', () => ({ factTables: [{ id: 't', data: { ...tableData(), projects: ['prj_missing'] } }] }), /\[factTables\.0\.data\.projects\] unknown project prj_missing/],
    ['an unknown owner', () => ({ factTables: [{ id: 't', data: { ...tableData(), owner: 'u_nobody' } }] }), /\[factTables\.0\.data\.owner\]/],
    ['an API-managed filter on a table that is not', () => ({ factTables: [{ id: 'plain', data: { ...tableData(), managedBy: '' } }], factTableFilters: [{ factTableId: 'plain', id: 'f', data: { ...filterData(), managedBy: 'api' } }] }), /\[factTableFilters\.0\.data\.managedBy\]/],
    ['an unknown top-level field', () => ({ segments: [] }), /segments/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const response = await importFacts(body());

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
  });

  it('refuses to move a stored fact table to another datasource', async () => {
    await importFacts({ factTables: [{ id: 'moving', data: tableData() }] });

    const response = await importFacts({ factTables: [{ id: 'moving', data: { ...tableData(), datasource: 'ds_other' } }] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[factTables\.0\.data\.datasource\]/);
  });

  it("never touches another organization's items with the same ids", async () => {
    await importFacts({ factTables: [{ id: 'shared_id', data: tableData('Mine') }] });

    const response = await importFacts({ factTables: [{ id: 'shared_id', data: tableData('Theirs') }] }, other.keys.admin);

    expect(response.body).toMatchObject({ factTablesAdded: 1, factTablesUpdated: 0 });
    expect((await get('/fact-tables/shared_id')).body.factTable.name).toBe('Mine');
    expect((await get('/fact-tables/shared_id', other.keys.admin)).body.factTable.name).toBe('Theirs');
  });

  it('answers 403 for a readonly key and writes nothing', async () => {
    const response = await importFacts(sample('readonly'), org.keys.readonly);

    expect(response.status).toBe(403);
    expect((await get('/fact-tables/readonly_orders')).status).toBe(404);
  });

  it('lets an engineer key import', async () => {
    const response = await importFacts(sample('engineer'), org.keys.engineer);

    expect(response.status).toBe(200);
  });
});

describe('POST /bulk-import/facts with hundreds of items', () => {
  /** 60 tables, 90 filters, 150 metrics: 300 items, written as 210 records in several transactions. */
  const large = (prefix: string) => {
    const tables = Array.from({ length: 60 }, (_, i) => ({ id: `${prefix}_t${i}`, data: tableData(`T${i}`) }));
    const filters = Array.from({ length: 90 }, (_, i) => ({ factTableId: `${prefix}_t${i % 60}`, id: `f${i}`, data: filterData(`F${i}`) }));
    const metrics = Array.from({ length: 150 }, (_, i) => ({
      id: `${prefix}_m${i}`,
      data: { ...metricData(`${prefix}_t${i % 60}`, i % 60 < 30 ? [`f${i % 60}`, `f${(i % 60) + 60}`] : [`f${i % 60}`]), name: `M${i}` },
    }));
    return { factTables: tables, factTableFilters: filters, factMetrics: metrics };
  };

  it('imports 300 items with exact counts, then updates all of them on a second run', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });

    const first = await importFacts(large('big'), fresh.keys.admin);
    const second = await importFacts(large('big'), fresh.keys.admin);

    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      factTablesAdded: 60,
      factTablesUpdated: 0,
      factTableFiltersAdded: 90,
      factTableFiltersUpdated: 0,
      factMetricsAdded: 150,
      factMetricsUpdated: 0,
    });
    expect(second.body).toMatchObject({ factTablesAdded: 0, factTablesUpdated: 60, factTableFiltersUpdated: 90, factMetricsUpdated: 150 });
    expect(await totals(fresh.keys.admin)).toEqual({ tables: 60, metrics: 150 });
    expect((await get('/fact-tables/big_t0/filters', fresh.keys.admin)).body.total).toBe(2);
    expect((await get('/fact-metrics/fact__big_m149', fresh.keys.admin)).body.factMetric.numerator).toMatchObject({
      factTableId: 'big_t29',
      filters: ['f29', 'f89'],
    });
  });

  it('reads the stored tables and metrics together, one BatchGet per hundred ids', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    await totals(fresh.keys.admin); // the key is resolved and cached, as in a warm container
    let status = 0;
    const sent = await commandsDuring(async () => {
      status = (await importFacts(large('counted'), fresh.keys.admin)).status;
    });

    expect(status).toBe(200);

    // 60 tables and 150 metrics: 210 ids, then the writes.
    expect(sent.filter((command) => command !== 'TransactWriteItemsCommand')).toEqual(Array(3).fill('BatchGetItemCommand'));
  });

  it('writes nothing when the last of 300 items is invalid', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const body = large('doomed');
    body.factMetrics[149].data.numerator.factTableId = 'ftb_missing';

    const response = await importFacts(body, fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[factMetrics\.149\.data\.numerator\.factTableId\]/);
    expect(await totals(fresh.keys.admin)).toEqual({ tables: 0, metrics: 0 });
  });
});
