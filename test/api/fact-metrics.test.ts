import * as contract from '../../shared/contracts/fact-metrics';
import { dynamoMeter } from '../../shared/db/client';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['ds_main', 'ds_other', 'ds_a', 'ds_c'];

let api: Api;
let org: TestOrg;
let other: TestOrg;
/** Orders and Visits are in ds_main, Elsewhere in ds_other; each has one filter. */
const t = { orders: '', visits: '', elsewhere: '' };
const f = { orders: '', visits: '' };

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
  const table = async (name: string, datasource: string) =>
    (await api.request('POST', '/api/v1/fact-tables', { key: org.keys.admin, body: { name, datasource, userIdTypes: ['id'], sql: 'SELECT 1' } })).body
      .factTable.id;
  const filter = async (tableId: string) =>
    (await api.request('POST', `/api/v1/fact-tables/${tableId}/filters`, { key: org.keys.admin, body: { name: 'F', value: 'x = 1' } })).body
      .factTableFilter.id;
  t.orders = await table('Orders', 'ds_main');
  t.visits = await table('Visits', 'ds_main');
  t.elsewhere = await table('Elsewhere', 'ds_other');
  f.orders = await filter(t.orders);
  f.visits = await filter(t.visits);
});
afterAll(() => api.close());

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/fact-metrics', { key, body });
const total = async () => (await api.request('GET', '/api/v1/fact-metrics', { key: org.keys.admin })).body.total;
const proportion = () => ({ name: 'Purchased', metricType: 'proportion', numerator: { factTableId: t.orders, column: '$$distinctUsers', filters: [] } });
const mean = () => ({ name: 'Revenue', metricType: 'mean', numerator: { factTableId: t.orders, column: 'amount', aggregation: 'sum' } });
const ratio = () => ({ ...mean(), name: 'Revenue per visit', metricType: 'ratio', denominator: { factTableId: t.visits, column: '$$count' } });
const quantile = () => ({ ...mean(), name: 'P90 order', metricType: 'quantile', quantileSettings: { type: 'event', ignoreZeros: false, quantile: 0.9 } });

describe('POST /fact-metrics', () => {
  it("creates the reference's sample proportion metric with a fact__ id and GrowthBook's defaults", async () => {
    const response = await create({ ...proportion(), priorSettings: { override: false, proper: false, mean: 0, stddev: 0.3 } });

    expect(response.status).toBe(200);
    expectShape(contract.postFactMetric, response.body);
    const { id, owner, dateCreated, dateUpdated, ...metric } = response.body.factMetric;
    expect(id).toMatch(/^fact__/);
    expect(owner).toBe('');
    expect([dateCreated, dateUpdated]).toEqual([expect.any(String), expect.any(String)]);
    expect(metric).toEqual({
      name: 'Purchased',
      description: '',
      projects: [],
      tags: [],
      datasource: 'ds_main',
      metricType: 'proportion',
      numerator: { factTableId: t.orders, column: '$$distinctUsers', filters: [], inlineFilters: {}, rowFilters: [] },
      inverse: false,
      cappingSettings: { type: 'none', value: 0 },
      windowSettings: { type: 'none', delayValue: 0, delayUnit: 'hours', windowValue: 72, windowUnit: 'hours' },
      priorSettings: { override: false, proper: false, mean: 0, stddev: 0.3 },
      regressionAdjustmentSettings: { override: false },
      riskThresholdSuccess: 0.0025,
      riskThresholdDanger: 0.0125,
      minPercentChange: 0.005,
      maxPercentChange: 0.5,
      minSampleSize: 150,
      targetMDE: 0.1,
      managedBy: '',
      archived: false,
      metricAutoSlices: [],
    });
  });

  it('counts distinct users for a proportion metric without a column', async () => {
    const response = await create({ name: 'Visitors', metricType: 'proportion', numerator: { factTableId: t.visits } });

    expect(response.status).toBe(200);
    expect(response.body.factMetric.numerator.column).toBe('$$distinctUsers');
  });

  it('creates a ratio metric across two tables of one datasource; displayAsPercentage defaults to false', async () => {
    const response = await create(ratio());

    expect(response.status).toBe(200);
    expectShape(contract.postFactMetric, response.body);
    expect(response.body.factMetric).toMatchObject({
      metricType: 'ratio',
      displayAsPercentage: false,
      denominator: { factTableId: t.visits, column: '$$count', filters: [], inlineFilters: {}, rowFilters: [] },
    });
  });

  it('defaults displayAsPercentage to true for a dailyParticipation metric', async () => {
    const response = await create({ name: 'Daily', metricType: 'dailyParticipation', numerator: { factTableId: t.visits } });

    expect(response.status).toBe(200);
    expect(response.body.factMetric.displayAsPercentage).toBe(true);
  });

  it('keeps an explicit displayAsPercentage', async () => {
    const response = await create({ ...ratio(), displayAsPercentage: true });

    expect(response.body.factMetric.displayAsPercentage).toBe(true);
  });

  it('creates a quantile metric with its settings', async () => {
    const response = await create(quantile());

    expect(response.status).toBe(200);
    expect(response.body.factMetric.quantileSettings).toEqual({ type: 'event', ignoreZeros: false, quantile: 0.9 });
  });

  it('accepts $$distinctDates for a mean metric and $$count for a quantile of units', async () => {
    const dates = await create({ ...mean(), numerator: { factTableId: t.orders, column: '$$distinctDates' } });
    const count = await create({ ...quantile(), numerator: { factTableId: t.orders, column: '$$count' }, quantileSettings: { type: 'unit', ignoreZeros: true, quantile: 0.5 } });

    expect(dates.status).toBe(200);
    expect(count.status).toBe(200);
  });

  it('accepts row filters, saved filters and an aggregate filter on a retention metric', async () => {
    const response = await create({
      name: 'Returning big spenders',
      metricType: 'retention',
      numerator: {
        factTableId: t.orders,
        rowFilters: [
          { operator: '>', column: 'amount', values: ['100'] },
          { operator: 'is_true', column: 'paid' },
          { operator: 'saved_filter', values: [f.orders] },
        ],
        aggregateFilterColumn: '$$count',
        aggregateFilter: '>= 2',
      },
      windowSettings: { type: 'lookback', windowValue: 7, windowUnit: 'days' },
    });

    expect(response.status).toBe(200);
    expectShape(contract.postFactMetric, response.body);
    expect(response.body.factMetric.windowSettings).toEqual({ type: 'lookback', delayValue: 0, delayUnit: 'hours', windowValue: 7, windowUnit: 'days' });
  });

  it('reads the deprecated delayHours as a delay in hours', async () => {
    const response = await create({ ...mean(), windowSettings: { type: 'conversion', delayHours: 4, windowValue: 2, windowUnit: 'days' } });

    expect(response.status).toBe(200);
    expect(response.body.factMetric.windowSettings).toEqual({ type: 'conversion', delayValue: 4, delayUnit: 'hours', windowValue: 2, windowUnit: 'days' });
  });

  it('resolves an owner e-mail and keeps existing projects', async () => {
    const project = (await api.request('POST', '/api/v1/projects', { key: org.keys.admin, body: { name: 'Metrics' } })).body.project;

    const response = await create({ ...mean(), owner: org.admin.email, projects: [project.id] });

    expect(response.status).toBe(200);
    expect(response.body.factMetric).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email, projects: [project.id] });
  });

  it.each<[string, () => Record<string, unknown>, RegExp]>([
    ['a missing name', () => ({ ...mean(), name: undefined }), /\[name\]/],
    ['a missing metricType', () => ({ ...mean(), metricType: undefined }), /\[metricType\]/],
    ['a missing numerator', () => ({ ...mean(), numerator: undefined }), /\[numerator\]/],
    ['an unknown metricType', () => ({ ...mean(), metricType: 'median' }), /\[metricType\] Invalid option/],
    ['an unknown aggregation', () => ({ ...mean(), numerator: { factTableId: t.orders, column: 'a', aggregation: 'avg' } }), /\[numerator\.aggregation\]/],
    ['an unknown row filter operator', () => ({ ...mean(), numerator: { factTableId: t.orders, column: 'a', rowFilters: [{ operator: 'like' }] } }), /\[numerator\.rowFilters\.0\.operator\]/],
    ['an unknown capping type', () => ({ ...mean(), cappingSettings: { type: 'clip' } }), /\[cappingSettings\.type\]/],
    ['an unknown window unit', () => ({ ...mean(), windowSettings: { type: 'conversion', windowUnit: 'months' } }), /\[windowSettings\.windowUnit\]/],
    ['an unknown quantile type', () => ({ ...quantile(), quantileSettings: { type: 'user', ignoreZeros: false, quantile: 0.5 } }), /\[quantileSettings\.type\]/],
    ['an unknown managedBy', () => ({ ...mean(), managedBy: 'ui' }), /\[managedBy\]/],
    ['a denominator on a proportion metric', () => ({ ...proportion(), denominator: { factTableId: t.visits, column: '$$count' } }), /\[denominator\] is only for ratio metrics/],
    ['a ratio metric without denominator', () => ({ ...ratio(), denominator: undefined }), /\[denominator\] is required for a ratio metric/],
    ['a denominator without column', () => ({ ...ratio(), denominator: { factTableId: t.visits } }), /\[denominator\.column\]/],
    ['a quantile metric without quantileSettings', () => ({ ...quantile(), quantileSettings: undefined }), /\[quantileSettings\] is required/],
    ['quantileSettings on a mean metric', () => ({ ...mean(), quantileSettings: { type: 'event', ignoreZeros: false, quantile: 0.5 } }), /\[quantileSettings\] is only for quantile/],
    ['a quantile above 0.999', () => ({ ...quantile(), quantileSettings: { type: 'event', ignoreZeros: false, quantile: 1 } }), /\[quantileSettings\.quantile\]/],
    ['a quantile finer than 0.001', () => ({ ...quantile(), quantileSettings: { type: 'event', ignoreZeros: false, quantile: 0.0015 } }), /\[quantileSettings\.quantile\]/],
    ['an unknown numerator fact table', () => ({ ...mean(), numerator: { factTableId: 'ftb_missing', column: 'a' } }), /\[numerator\.factTableId\] no fact table ftb_missing/],
    ['a numerator filter of another table', () => ({ ...proportion(), numerator: { factTableId: t.orders, filters: [f.visits] } }), /\[numerator\.filters\.0\] .* is not a filter of fact table/],
    ['an unknown denominator fact table', () => ({ ...ratio(), denominator: { factTableId: 'ftb_missing', column: 'x' } }), /\[denominator\.factTableId\] no fact table/],
    ['a denominator in another datasource', () => ({ ...ratio(), denominator: { factTableId: t.elsewhere, column: 'x' } }), /\[denominator\.factTableId\] is in datasource ds_other/],
    ['a denominator filter of another table', () => ({ ...ratio(), denominator: { factTableId: t.visits, column: 'x', filters: [f.orders] } }), /\[denominator\.filters\.0\]/],
    ['a saved filter of another table', () => ({ ...mean(), numerator: { factTableId: t.orders, column: 'a', rowFilters: [{ operator: 'saved_filter', values: [f.visits] }] } }), /\[numerator\.rowFilters\.0\.values\.0\]/],
    ['a row filter without column', () => ({ ...mean(), numerator: { factTableId: t.orders, column: 'a', rowFilters: [{ operator: '=', values: ['1'] }] } }), /\[numerator\.rowFilters\.0\.column\]/],
    ['a row filter without values', () => ({ ...mean(), numerator: { factTableId: t.orders, column: 'a', rowFilters: [{ operator: 'in', column: 'c' }] } }), /\[numerator\.rowFilters\.0\.values\]/],
    ['an unknown special column', () => ({ ...mean(), numerator: { factTableId: t.orders, column: '$$rows' } }), /\[numerator\.column\] \$\$rows is not a special column/],
    ['$$distinctDates on an event quantile', () => ({ ...quantile(), numerator: { factTableId: t.orders, column: '$$distinctDates' } }), /\[numerator\.column\] \$\$distinctDates is only/],
    ['an aggregate filter on a mean metric', () => ({ ...mean(), numerator: { ...mean().numerator, aggregateFilterColumn: 'a', aggregateFilter: '> 1' } }), /\[numerator\.aggregateFilterColumn\] is only for proportion/],
    ['an aggregate filter column without a filter', () => ({ ...proportion(), numerator: { factTableId: t.orders, aggregateFilterColumn: '$$count' } }), /\[numerator\.aggregateFilter\] is required/],
    ['an aggregate filter that is not a comparison', () => ({ ...proportion(), numerator: { factTableId: t.orders, aggregateFilterColumn: 'a', aggregateFilter: 'lots' } }), /\[numerator\.aggregateFilter\] must be a comparison/],
    ['an event count column without kll merge', () => ({ ...quantile(), quantileSettings: { type: 'event', ignoreZeros: false, quantile: 0.5, quantileEventCountColumn: 'n' } }), /\[quantileSettings\.quantileEventCountColumn\]/],
    ['a percentile cap above 1', () => ({ ...mean(), cappingSettings: { type: 'percentile', value: 99 } }), /\[cappingSettings\.value\]/],
    ['a prior with zero stddev', () => ({ ...mean(), priorSettings: { override: true, proper: true, mean: 0, stddev: 0 } }), /\[priorSettings\.stddev\]/],
    ['a negative riskThresholdSuccess', () => ({ ...mean(), riskThresholdSuccess: -0.1 }), /\[riskThresholdSuccess\]/],
    ['a negative riskThresholdDanger', () => ({ ...mean(), riskThresholdDanger: -1 }), /\[riskThresholdDanger\]/],
    ['a negative minPercentChange', () => ({ ...mean(), minPercentChange: -0.1 }), /\[minPercentChange\]/],
    ['a negative maxPercentChange', () => ({ ...mean(), maxPercentChange: -0.1 }), /\[maxPercentChange\]/],
    ['a negative minSampleSize', () => ({ ...mean(), minSampleSize: -1 }), /\[minSampleSize\]/],
    ['a negative targetMDE', () => ({ ...mean(), targetMDE: -0.1 }), /\[targetMDE\]/],
    ['riskThresholdSuccess above riskThresholdDanger', () => ({ ...mean(), riskThresholdSuccess: 0.2, riskThresholdDanger: 0.1 }), /\[riskThresholdSuccess\] must not exceed riskThresholdDanger/],
    ['riskThresholdSuccess above the default riskThresholdDanger', () => ({ ...mean(), riskThresholdSuccess: 0.5 }), /\[riskThresholdSuccess\] must not exceed/],
    ['archived, which only an update sets', () => ({ ...mean(), archived: true }), /archived/],
    ['an unknown project', () => ({ ...mean(), projects: ['prj_missing'] }), /\[projects\] unknown project/],
    ['an unknown owner', () => ({ ...mean(), owner: 'u_nobody' }), /\[owner\]/],
    ['an unknown field in the numerator', () => ({ ...mean(), numerator: { ...mean().numerator, table: 'x' } }), /numerator/],
    ['an unknown field', () => ({ ...mean(), colour: 'red' }), /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const before = await total();

    const response = await create(body());

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    expect(await total()).toBe(before);
  });

  it("answers 400 for another organization's fact table", async () => {
    const response = await create(mean(), other.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[numerator\.factTableId\]/);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create(mean(), org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('GET /fact-metrics/{id}', () => {
  it('returns the metric', async () => {
    const { body: created } = await create(ratio());

    const response = await api.request('GET', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getFactMetric, response.body);
    expect(response.body).toEqual(created);
  });

  it("answers 404 for an unknown id or another organization's metric", async () => {
    const { body: created } = await create(mean());

    const unknown = await api.request('GET', '/api/v1/fact-metrics/fact__missing', { key: org.keys.admin });
    const foreign = await api.request('GET', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: other.keys.admin });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });
});

describe('GET /fact-metrics', () => {
  it('pages in creation order and filters by datasourceId, projectId and numerator factTableId', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const post = (path: string, body: unknown) => api.request('POST', `/api/v1${path}`, { key: fresh.keys.admin, body });
    const table = async (datasource: string) => (await post('/fact-tables', { name: 'T', datasource, userIdTypes: ['id'], sql: 'S' })).body.factTable.id;
    const [a, b, c] = [await table('ds_a'), await table('ds_a'), await table('ds_c')];
    const project = (await post('/projects', { name: 'P' })).body.project.id;
    const metric = async (body: object) => (await post('/fact-metrics', { name: 'M', metricType: 'proportion', ...body })).body.factMetric.id;
    const m1 = await metric({ numerator: { factTableId: a } });
    const m2 = await metric({ numerator: { factTableId: b }, projects: [project] });
    const m3 = await metric({ numerator: { factTableId: c }, projects: [project] });
    const m4 = await metric({ metricType: 'ratio', numerator: { factTableId: b, column: 'x' }, denominator: { factTableId: a, column: 'y' } });
    const ids = async (query: string) =>
      (await api.request('GET', `/api/v1/fact-metrics?${query}`, { key: fresh.keys.readonly })).body.factMetrics.map((m: { id: string }) => m.id);

    const page = await api.request('GET', '/api/v1/fact-metrics?limit=3', { key: fresh.keys.readonly });

    expectShape(contract.listFactMetrics, page.body);
    expect(page.body).toMatchObject({ count: 3, total: 4, hasMore: true, nextOffset: 3 });
    expect(page.body.factMetrics.map((m: { id: string }) => m.id)).toEqual([m1, m2, m3]);
    expect(await ids('datasourceId=ds_a')).toEqual([m1, m2, m4]);
    // A metric with no projects belongs to every project, as in GrowthBook.
    expect(await ids(`projectId=${project}`)).toEqual([m1, m2, m3, m4]);
    expect(await ids('projectId=prj_elsewhere')).toEqual([m1, m4]);
    expect(await ids(`factTableId=${a}`)).toEqual([m1]);
    expect(await ids(`factTableId=${b}&projectId=${project}`)).toEqual([m2, m4]);
  });
});

describe('POST /fact-metrics/{id}', () => {
  const update = (id: string, body: unknown, key = org.keys.admin) => api.request('POST', `/api/v1/fact-metrics/${id}`, { key, body });

  it('changes only the given fields and can archive the metric', async () => {
    const { body: created } = await create({ ...mean(), description: 'kept', tags: ['a'] });

    const response = await update(created.factMetric.id, { name: 'Renamed', archived: true, tags: ['b'] });

    expect(response.status).toBe(200);
    expectShape(contract.updateFactMetric, response.body);
    expect(response.body.factMetric).toEqual({
      ...created.factMetric,
      name: 'Renamed',
      archived: true,
      tags: ['b'],
      dateUpdated: expect.any(String),
    });
  });

  it('reads only the metric when the body names no fact table: one read and one write', async () => {
    const { body: created } = await create(ratio());

    dynamoMeter.reset();
    const response = await update(created.factMetric.id, { name: 'Cheap rename' });

    expect(response.status).toBe(200);
    expect(response.body.factMetric).toEqual({ ...created.factMetric, name: 'Cheap rename', dateUpdated: expect.any(String) });
    expect(dynamoMeter.snapshot().calls).toBe(2);
  });

  it('drops the denominator when a ratio becomes a mean metric', async () => {
    const { body: created } = await create(ratio());

    const response = await update(created.factMetric.id, { metricType: 'mean' });

    expect(response.status).toBe(200);
    expect(response.body.factMetric.metricType).toBe('mean');
    expect(response.body.factMetric).not.toHaveProperty('denominator');
    expect(response.body.factMetric).not.toHaveProperty('displayAsPercentage');
  });

  it('counts distinct users when a mean becomes a proportion metric', async () => {
    const { body: created } = await create(mean());

    const response = await update(created.factMetric.id, { metricType: 'proportion' });

    expect(response.status).toBe(200);
    expect(response.body.factMetric.numerator.column).toBe('$$distinctUsers');
  });

  it.each<[string, () => Record<string, unknown>, RegExp]>([
    ['a denominator on a mean metric', () => ({ denominator: { factTableId: t.visits, column: '$$count' } }), /\[denominator\] is only for ratio/],
    ['a switch to ratio without denominator', () => ({ metricType: 'ratio' }), /\[denominator\] is required/],
    ['riskThresholdSuccess above the stored riskThresholdDanger', () => ({ riskThresholdSuccess: 0.5 }), /\[riskThresholdSuccess\]/],
    ['a numerator on an unknown table', () => ({ numerator: { factTableId: 'ftb_missing', column: 'a' } }), /\[numerator\.factTableId\]/],
    ['an unknown metricType', () => ({ metricType: 'median' }), /\[metricType\]/],
    ['a negative targetMDE', () => ({ targetMDE: -1 }), /\[targetMDE\]/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const { body: created } = await create(mean());

    const response = await update(created.factMetric.id, body());

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await api.request('GET', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: org.keys.admin })).body).toEqual(created);
  });

  it("answers 404 for an unknown id or another organization's metric", async () => {
    const { body: created } = await create(mean());

    const unknown = await update('fact__missing', { name: 'x' });
    const foreign = await update(created.factMetric.id, { name: 'x' }, other.keys.admin);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(mean());

    const response = await update(created.factMetric.id, { name: 'x' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('DELETE /fact-metrics/{id}', () => {
  it('deletes the metric', async () => {
    const { body: created } = await create(mean());

    const response = await api.request('DELETE', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: org.keys.admin });

    expect(response.body).toEqual({ deletedId: created.factMetric.id });
    expect((await api.request('GET', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: org.keys.admin })).status).toBe(404);
  });

  it("answers 404 for another organization's metric and keeps it", async () => {
    const { body: created } = await create(mean());

    const response = await api.request('DELETE', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect((await api.request('GET', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: org.keys.admin })).status).toBe(200);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(mean());

    const response = await api.request('DELETE', `/api/v1/fact-metrics/${created.factMetric.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(403);
  });
});
