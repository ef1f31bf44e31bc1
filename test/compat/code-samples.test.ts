import Ajv from 'ajv';
import { routes } from '../../shared/contracts/registry';
import { buildOpenApiDocument } from '../../shared/api/openapi';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { waitForSnapshot } from '../support/analysis-api';
import { referenceDocument } from '../support/reference';

// Every example request (`x-codeSamples`, the `-d` body of each cURL) of GrowthBook's reference document,
// sent as it is written, with only the ids of resources replaced by ones that exist here.

interface Sample {
  method: string;
  path: string;
  operationId: string;
  body: unknown;
}

function samples(): Sample[] {
  const doc = referenceDocument('growthbook-v1-openapi.yaml') as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const found: Sample[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const sample of (operation['x-codeSamples'] as Array<{ source: string }> | undefined) ?? []) {
        const data = sample.source.match(/-d '([\s\S]*?)'/);
        if (data) found.push({ method: method.toUpperCase(), path, operationId: operation.operationId as string, body: JSON.parse(data[1]) });
      }
    }
  }
  return found;
}

let api: Api;
let org: TestOrg;
/** Real ids for the reference's path parameters and placeholder ids, per operation. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Test org', { dataSources: ['ds_main', 'ds_abc123'] });
  const ok = async (method: string, path: string, body: unknown) => {
    const response = await api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  ids.feature = (await ok('POST', '/features', { id: 'sample-flag', valueType: 'boolean', defaultValue: 'false' })).feature.id;
  ids.archetype = (await ok('POST', '/archetypes', { name: 'Sample', isPublic: true })).archetype.id;
  const experiment = (await ok('POST', '/experiments', { trackingKey: 'sample', name: 'Sample', variations: [{ key: '0', name: 'A' }, { key: '1', name: 'B' }] }))
    .experiment;
  ids.experiment = experiment.id;
  ids.variation = experiment.variations[1].variationId;
  ids.factTable = (await ok('POST', '/fact-tables', { name: 'T', datasource: 'ds_main', userIdTypes: ['user_id'], sql: 'SELECT 1' })).factTable.id;
  ids.factMetric = (await ok('POST', '/fact-metrics', { name: 'M', metricType: 'proportion', numerator: { factTableId: ids.factTable } })).factMetric.id;
  // Results are asked of a running experiment, which needs a metric to analyse.
  ids.running = (
    await ok('POST', '/experiments', {
      trackingKey: 'sample-running',
      name: 'Running',
      status: 'running',
      datasourceId: 'ds_main',
      assignmentQueryId: 'user_id',
      metrics: [ids.factMetric],
      variations: [{ key: '0', name: 'A' }, { key: '1', name: 'B' }],
      phases: [{ name: 'Main', dateStarted: '2024-05-01' }],
    })
  ).experiment.id;
  ids.changeset = (await ok('POST', `/experiments/${ids.experiment}/visual-changesets`, { editorUrl: 'https://example.com/', urlPatterns: [] })).visualChangeset.id;
  ids.visualChange = (await ok('POST', `/visual-changesets/${ids.changeset}/visual-change`, { variation: ids.variation, domMutations: [] })).visualChangeId;
  ids.segment = (await ok('POST', '/segments', { name: 'S', datasourceId: 'ds_main', identifierType: 'id', type: 'SQL', query: 'SELECT 1' })).segment.id;
  ids.project = (await ok('POST', '/projects', { name: 'Sample project' })).project.id;
  ids.savedGroup = (await ok('POST', '/saved-groups', { name: 'G', attributeKey: 'id', values: ['a'] })).savedGroup.id;
  ids.filter = (await ok('POST', `/fact-tables/${ids.factTable}/filters`, { name: 'F', value: 'x = 1' })).factTableFilter.id;
});
afterAll(() => api.close());

/** The request path with its parameters filled in; environments and attributes the samples create themselves. */
function pathOf(sample: Sample): string {
  const idFor: Record<string, string> = {
    toggleFeature: ids.feature,
    putArchetype: ids.archetype,
    postExperimentSnapshot: ids.running,
    postVisualChangesets: ids.experiment,
    updateSegment: ids.segment,
    putProject: ids.project,
    putEnvironment: 'new-env',
    putVisualChangeset: ids.changeset,
    postVisualChange: ids.changeset,
    putVisualChange: ids.changeset,
    updateSavedGroup: ids.savedGroup,
    updateFactTable: ids.factTable,
    updateFactTableFilter: ids.filter,
    updateFactMetric: ids.factMetric,
  };
  return `/api${sample.path}`
    .replace('{id}', idFor[sample.operationId] ?? '{id}')
    .replace('{property}', 'foo')
    .replace('{factTableId}', ids.factTable)
    .replace('{visualChangeId}', ids.visualChange);
}

/** The body with the reference's placeholder ids of other resources replaced by real ones. */
const bodyOf = (sample: Sample) =>
  JSON.parse(JSON.stringify(sample.body).replaceAll('ftb_abc123', ids.factTable).replaceAll('var_abc123', ids.variation));

/** The request body and 200 response schemas we publish in openapi.json for an operation, as validators. */
let published: any;
function publishedSchemas(operationId: string) {
  // The document openapi.json serves (platform.test.ts checks they are the same), built once.
  published ??= JSON.parse(JSON.stringify(buildOpenApiDocument(routes)));
  const document = published;
  const operation = Object.values(document.paths as Record<string, Record<string, any>>)
    .flatMap((operations) => Object.values(operations))
    .find((candidate) => candidate.operationId === operationId);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const compile = (schema: unknown) => ajv.compile({ ...(schema as object), components: document.components });
  return {
    request: compile(operation.requestBody.content['application/json'].schema),
    response: compile(operation.responses['200'].content['application/json'].schema),
  };
}

describe("GrowthBook's example requests", () => {
  it('are all found in the reference document', () => {
    expect(samples().length).toBeGreaterThanOrEqual(23);
  });

  // In document order, so the environment and attribute a sample creates exist for the sample that updates them.
  it.each(samples().map((sample) => [sample.operationId, sample] as const))('%s succeeds', async (_id, sample) => {
    const response = await api.request(sample.method, pathOf(sample), { key: org.keys.admin, body: bodyOf(sample) });
    // A snapshot runs on in the background: let it end before the test environment is torn down.
    if (response.body?.snapshot?.id) await waitForSnapshot(api, org, response.body.snapshot.id);

    expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({ status: 200, body: 'ok' });
  });

  // What openapi.json publishes takes the same requests, and describes the answers given to them.
  it.each(samples().map((sample) => [sample.operationId, sample] as const))('%s fits the schemas openapi.json publishes', async (_id, sample) => {
    const schemas = publishedSchemas(sample.operationId);
    const body = bodyOf(sample);

    const validRequest = schemas.request(body);
    const requestErrors = schemas.request.errors ?? null;
    // The answer to the same request, sent again where a second send is harmless (an update, or a create
    // whose second copy is refused as a duplicate), is described by the published response schema.
    const response = await api.request(sample.method, pathOf(sample), { key: org.keys.admin, body });
    const validResponse = response.status === 200 ? schemas.response(response.body) : true;
    if (response.body?.snapshot?.id) await waitForSnapshot(api, org, response.body.snapshot.id);

    expect({ valid: validRequest, errors: requestErrors }).toEqual({ valid: true, errors: null });
    expect({ valid: validResponse, errors: schemas.response.errors ?? null }).toEqual({ valid: true, errors: null });
  });

  it('are checked by schemas that refuse what the API refuses', () => {
    const schemas = publishedSchemas('postProject');

    expect(schemas.request({ name: 'Web' })).toBe(true);
    expect(schemas.request({ name: 'Web', colour: 'red' })).toBe(false);
    expect(schemas.response({ project: { id: 1 } })).toBe(false);
  });
});
