import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { referenceDocument } from '../support/reference';

// Every query parameter GrowthBook's reference document gives a GET is taken here, and the list
// filters scripts use narrow the list as they do in GrowthBook.

interface QueryParameter {
  name: string;
  in: string;
  schema?: { enum?: string[] };
}

let api: Api;
let org: TestOrg;
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Test org', { dataSources: ['ds_main', 'ds_other'] });
  const ok = async (method: string, route: string, body: unknown) => {
    const response = await api.request(method, `/api/v1${route}`, { key: org.keys.admin, body });
    if (response.status !== 200) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  ids.project = (await ok('POST', '/projects', { name: 'Web' })).project.id;
  ids.feature = (await ok('POST', '/features', { id: 'filters-flag', valueType: 'boolean', defaultValue: 'false' })).feature.id;
  ids.clientKey = (await ok('POST', '/sdk-connections', { name: 'web', environment: 'production', language: 'javascript' })).sdkConnection.key;
  const variations = [
    { key: '0', name: 'A' },
    { key: '1', name: 'B' },
  ];
  const draft = (await ok('POST', '/experiments', { trackingKey: 'filters-draft', name: 'Draft', variations, datasourceId: 'ds_main', assignmentQueryId: 'user_id' })).experiment;
  const running = (
    await ok('POST', '/experiments', {
      trackingKey: 'filters-running',
      name: 'Running',
      status: 'running',
      project: ids.project,
      variations,
      datasourceId: 'ds_other',
      assignmentQueryId: 'user_id',
      phases: [{ name: 'Main', dateStarted: '2024-05-01' }],
    })
  ).experiment;
  ids.draft = draft.id;
  ids.running = running.id;
  ids.changeset = (await ok('POST', `/experiments/${draft.id}/visual-changesets`, { editorUrl: 'https://example.com/', urlPatterns: [] })).visualChangeset.id;
  ids.mainTable = (await ok('POST', '/fact-tables', { name: 'Orders', datasource: 'ds_main', userIdTypes: ['user_id'], sql: 'SELECT 1' })).factTable.id;
  ids.otherTable = (await ok('POST', '/fact-tables', { name: 'Visits', datasource: 'ds_other', userIdTypes: ['user_id'], sql: 'SELECT 2', projects: [ids.project] }))
    .factTable.id;
  ids.mainMetric = (await ok('POST', '/fact-metrics', { name: 'Buyers', metricType: 'proportion', numerator: { factTableId: ids.mainTable } })).factMetric.id;
  ids.otherMetric = (await ok('POST', '/fact-metrics', { name: 'Visitors', metricType: 'proportion', numerator: { factTableId: ids.otherTable } })).factMetric.id;
});
afterAll(() => api.close());

/** Each GET of the reference document with query parameters, and a value for each parameter. */
function referenceQueries(): Array<[string, string, string, string[] | undefined]> {
  const document = referenceDocument('growthbook-v1-openapi.yaml');
  const resolve = (parameter: QueryParameter & { $ref?: string }): QueryParameter =>
    parameter.$ref ? document.components.parameters[parameter.$ref.split('/').pop()!] : parameter;
  const found: Array<[string, string, string, string[] | undefined]> = [];
  for (const [route, operations] of Object.entries(document.paths as Record<string, Record<string, { operationId: string; parameters?: QueryParameter[] }>>)) {
    const get = operations.get;
    for (const parameter of (get?.parameters ?? []).map(resolve).filter((p) => p.in === 'query')) {
      found.push([get!.operationId, route.replace(/^\/v1/, ''), parameter.name, parameter.schema?.enum]);
    }
  }
  return found;
}

/** A value of the kind each parameter takes, naming resources that exist. */
function valueOf(name: string, enumValues?: string[]): string {
  const values: Record<string, string> = {
    limit: '1',
    offset: '0',
    skipPagination: 'true',
    projectId: ids.project!,
    clientKey: ids.clientKey!,
    datasourceId: 'ds_main',
    trackingKey: 'filters-draft',
    experimentId: 'filters-draft',
    factTableId: ids.mainTable!,
    featureId: ids.feature!,
    withProxy: 'false',
    multiOrg: 'false',
    includeExperiment: '1',
  };
  return values[name] ?? enumValues?.[0] ?? 'x';
}

describe("the query parameters of GrowthBook's reference document", () => {
  it('are found there', () => {
    expect(referenceQueries().length).toBeGreaterThanOrEqual(30);
  });

  it.each(referenceQueries())('%s takes %s?%s', async (_operationId, route, name, enumValues) => {
    const filled = route.replace('{id}', route.startsWith('/features') ? ids.feature! : ids.changeset!).replace('{factTableId}', ids.mainTable!);

    const response = await api.request('GET', `/api/v1${filled}?${name}=${encodeURIComponent(valueOf(name, enumValues))}`, { key: org.keys.admin });

    expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({ status: 200, body: 'ok' });
  });
});

describe('list filters narrow the list as in GrowthBook', () => {
  const listed = async (route: string, key: string) =>
    ((await api.request('GET', `/api/v1${route}`, { key: org.keys.admin })).body[key] as Array<{ id: string }>).map((item) => item.id).sort((a, b) => (a < b ? -1 : 1));
  const sorted = (...values: string[]) => values.sort((a, b) => (a < b ? -1 : 1));

  it.each([
    ['trackingKey', () => '/experiments?trackingKey=filters-running', () => [ids.running!]],
    ['experimentId (the old name of trackingKey)', () => '/experiments?experimentId=filters-draft', () => [ids.draft!]],
    ['status', () => '/experiments?status=running', () => [ids.running!]],
    ['datasourceId', () => '/experiments?datasourceId=ds_main', () => [ids.draft!]],
    ['projectId', () => `/experiments?projectId=${ids.project}`, () => [ids.running!]],
  ])('GET /experiments by %s', async (_filter, route, expected) => {
    expect(await listed(route(), 'experiments')).toEqual(expected());
  });

  it('GET /fact-tables by datasourceId and projectId (a table of no project is in every project)', async () => {
    expect(await listed('/fact-tables?datasourceId=ds_other', 'factTables')).toEqual([ids.otherTable]);
    expect(await listed(`/fact-tables?projectId=${ids.project}`, 'factTables')).toEqual(sorted(ids.mainTable!, ids.otherTable!));
  });

  it('GET /fact-metrics by factTableId and datasourceId', async () => {
    expect(await listed(`/fact-metrics?factTableId=${ids.mainTable}`, 'factMetrics')).toEqual([ids.mainMetric]);
    expect(await listed('/fact-metrics?datasourceId=ds_other', 'factMetrics')).toEqual([ids.otherMetric]);
  });
});
