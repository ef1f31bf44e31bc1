import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/fact-table-virtual-columns';
import { syntheticExperiment, writeSyntheticFiles } from '../support/analysis-data';
import { createDuckDbDataSource, waitForSnapshot } from '../support/analysis-api';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

const START = Date.parse('2024-03-01T00:00:00Z');
const END = Date.parse('2024-03-15T00:00:00Z');
const TRACKING_KEY = 'virtual-columns';

let api: Api;
let org: TestOrg;
let other: TestOrg;
let datasourceId: string;
const dataDir = mkdtempSync(path.join(tmpdir(), 'virtual-columns-'));

beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'events'));
  writeSyntheticFiles(dataDir, syntheticExperiment({ seed: 3, units: 2_000, trackingKey: TRACKING_KEY, start: START, end: END }));
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Virtual org'), createTestOrg('Other org')]);
  datasourceId = (await createDuckDbDataSource(api, org)).id;
});
afterAll(() => api.close());

const validColumn = referenceSchemaValidator('FactTableColumn', 'growthbook-5.0.1-openapi.yaml');
const post = (route: string, body: unknown) => requestOk(api, org.keys.admin, 'POST', route, body);
const request = (method: string, route: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${route}`, { key, body });
const newTable = async () =>
  (await post('/fact-tables', { name: 'Events', datasource: datasourceId, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events/*.csv')" })).factTable as { id: string };
const columnsOf = async (id: string) => (await requestOk(api, org.keys.admin, 'GET', `/fact-tables/${id}`)).factTable.columns;

describe('fact table virtual columns', () => {
  it('are added, changed and removed, and GET /fact-tables shows them', async () => {
    const table = await newTable();

    const created = await request('POST', `/fact-tables/${table.id}/virtual-columns`, { column: 'revenue_vc', datatype: 'number', sql: 'amount * 2', numberFormat: 'currency' });
    const changed = await request('POST', `/fact-tables/${table.id}/virtual-columns/revenue_vc`, { name: 'Revenue x2', description: 'doubled' });
    const listed = await columnsOf(table.id);
    const deleted = await request('DELETE', `/fact-tables/${table.id}/virtual-columns/revenue_vc`);

    expect(created.status).toBe(200);
    expectShape(contract.postFactTableVirtualColumn, created.body);
    expect(validColumn(created.body.factTableColumn) ? [] : validColumn.errors).toEqual([]);
    expect(created.body.factTableColumn).toMatchObject({ column: 'revenue_vc', name: 'revenue_vc', datatype: 'number', numberFormat: 'currency', isVirtual: true, sql: 'amount * 2', deleted: false });
    expect(changed.status).toBe(200);
    expect(validColumn(changed.body.factTableColumn) ? [] : validColumn.errors).toEqual([]);
    expect(changed.body.factTableColumn).toMatchObject({ name: 'Revenue x2', description: 'doubled', sql: 'amount * 2' });
    expect(listed).toContainEqual(changed.body.factTableColumn);
    expect(deleted.body).toEqual({ deletedId: 'revenue_vc' });
    expect(await columnsOf(table.id)).toEqual([]);
  });

  it('compute in snapshots: a metric summing amount * 2 is twice the one summing amount', async () => {
    const table = await newTable();
    await post(`/fact-tables/${table.id}/virtual-columns`, { column: 'double_vc', datatype: 'number', sql: 'amount * 2' });
    const purchase = [{ operator: '=', column: 'event_type', values: ['purchase'] }];
    const metric = async (column: string) => (await post('/fact-metrics', { name: column, metricType: 'mean', numerator: { factTableId: table.id, column, aggregation: 'sum', rowFilters: purchase } })).factMetric.id as string;
    const [plain, doubled] = [await metric('amount'), await metric('double_vc')];
    const { experiment } = await post('/experiments', {
      trackingKey: TRACKING_KEY,
      name: 'Virtual',
      status: 'running',
      datasourceId,
      assignmentQueryId: 'user_exposures',
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Treatment' },
      ],
      phases: [{ name: 'Main', dateStarted: new Date(START).toISOString(), dateEnded: new Date(END).toISOString() }],
      metrics: [plain, doubled],
      statsEngine: 'frequentist',
    });

    const { snapshot } = await post(`/experiments/${experiment.id}/snapshot`, {});
    expect(await waitForSnapshot(api, org, snapshot.id)).toBe('success');
    const { result } = await requestOk(api, org.keys.admin, 'GET', `/experiments/${experiment.id}/results`);

    const [a, b] = [plain, doubled].map((id) => result.results[0].metrics.find((m: { metricId: string }) => m.metricId === id).variations);
    for (const i of [0, 1]) {
      expect(a[i].analyses[0].numerator).toBeGreaterThan(0);
      expect(b[i].analyses[0].numerator).toBeCloseTo(2 * a[i].analyses[0].numerator, 6);
      expect(b[i].analyses[0].mean).toBeCloseTo(2 * a[i].analyses[0].mean, 9);
    }
    expect(b[1].analyses[0].percentChange).toBeCloseTo(a[1].analyses[0].percentChange, 9);
  });

  it.each([
    ['a name without _vc', { column: 'revenue', datatype: 'number', sql: 'amount' }, /\[column\] must contain only letters, numbers and underscores and end with _vc/],
    ['a name with other characters', { column: 'rev-enue_vc', datatype: 'number', sql: 'amount' }, /\[column\]/],
    ['no sql', { column: 'x_vc', datatype: 'number' }, /\[sql\]/],
    ['sql adding a statement', { column: 'x_vc', datatype: 'number', sql: '1; DROP TABLE t' }, /\[sql\] must be one SQL statement/],
    ['an unknown datatype', { column: 'x_vc', datatype: 'money', sql: 'amount' }, /\[datatype\]/],
    ['an unknown field', { column: 'x_vc', datatype: 'number', sql: 'amount', isVirtual: false }, /isVirtual/],
  ])('refuses %s with 400, changing nothing', async (_case, body, message) => {
    const table = await newTable();

    const response = await request('POST', `/fact-tables/${table.id}/virtual-columns`, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await columnsOf(table.id)).toEqual([]);
  });

  it('answers 409 for a name taken, 404 for an unknown column or table, and 404 to another organization', async () => {
    const table = await newTable();
    const { factTableColumn } = await post(`/fact-tables/${table.id}/virtual-columns`, { column: 'x_vc', datatype: 'number', sql: 'amount' });

    const again = await request('POST', `/fact-tables/${table.id}/virtual-columns`, { column: 'x_vc', datatype: 'string', sql: 'event_type' });
    const unknown = await request('POST', `/fact-tables/${table.id}/virtual-columns/y_vc`, { name: 'Y' });
    const unknownDelete = await request('DELETE', `/fact-tables/${table.id}/virtual-columns/y_vc`);
    const noTable = await request('POST', '/fact-tables/ftb_missing/virtual-columns', { column: 'x_vc', datatype: 'number', sql: 'amount' });
    const foreign = await Promise.all([
      request('POST', `/fact-tables/${table.id}/virtual-columns`, { column: 'z_vc', datatype: 'number', sql: 'amount' }, other.keys.admin),
      request('POST', `/fact-tables/${table.id}/virtual-columns/x_vc`, { name: 'Theirs' }, other.keys.admin),
      request('DELETE', `/fact-tables/${table.id}/virtual-columns/x_vc`, undefined, other.keys.admin),
    ]);
    const readonly = await request('DELETE', `/fact-tables/${table.id}/virtual-columns/x_vc`, undefined, org.keys.readonly);

    expect(again.status).toBe(409);
    expect(unknown.status).toBe(404);
    expect(unknownDelete.status).toBe(404);
    expect(noTable.status).toBe(404);
    expect(foreign.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(readonly.status).toBe(403);
    expect(await columnsOf(table.id)).toEqual([factTableColumn]);
  });
});
