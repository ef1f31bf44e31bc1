/**
 * One representative request per endpoint of the registry, in an order that builds the data the
 * next ones need (creates and reads, then updates and lifecycle actions, then deletes), with the
 * fewest DynamoDB round trips each request can take and why.
 */
import { randomBytes } from 'node:crypto';
import { featureV2Deletes, featureV2Steps } from './scenarios-features-v2';

export type Ids = Record<string, string>;

export interface Step {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  /** Remembers ids from the response for later steps. */
  capture?: (body: any, ids: Ids) => void;
  /**
   * The key to send instead of the runner's organization key: reviews come from people, so a review
   * step sends the admin member's personal access token (`ids.memberToken`, which every runner sets).
   */
  key?: (ids: Ids) => string | undefined;
  minimum: { calls: number; why: string };
  /**
   * A resource this step needs that no earlier step makes (a second saved group, of the other type),
   * created with one POST outside the measurement (`settle` in dynamo-cost.ts sends it; the latency
   * runner does not, and the step may then answer 404).
   */
  setup?: (ids: Ids) => { path: string; body: unknown; capture: (body: any, ids: Ids) => void };
  /**
   * Configuration this step needs that no route makes (the organization's launch checklist): an admin
   * CLI command line (`npm run admin -- …`) for the runner's organization, run outside the measurement
   * (`settle` in dynamo-cost.ts; the latency runner does not, and the step may then answer 400).
   */
  admin?: (orgId: string, ids: Ids) => string[];
  /**
   * Data files this step reads through the scenario's DuckDB data source (`ds_bench`), by path under its data directory
   * (ANALYSIS_DATA_DIR), written before the step outside the measurement (`settle` in dynamo-cost.ts; the latency
   * runner does not, and the step may then answer 404).
   */
  files?: Record<string, string>;
  /**
   * Work this step must wait for (a snapshot run in the background): the runner polls `path` with
   * GET until `done` holds, outside the measurement. Runners that serve each request from a fresh
   * process (latency) skip it, and the step may then answer 404.
   */
  settle?: (ids: Ids) => { path: string; done: (body: any) => boolean };
}

/**
 * The data source the scenario's fact tables, segments, experiments and templates name: the caller
 * stores it in the organization first (`ds_bench`, assignment query `user_id`), because those
 * resources are never all deleted, so the one `postDataSource` makes is the one deleted at the end.
 */
export const scenarioDataSourceId = 'ds_bench';

/** Exposures and events of the scenario's experiment as inline rows: its snapshot succeeds on DuckDB without files. */
export const SCENARIO_ASSIGNMENT_SQL =
  "SELECT * FROM (VALUES ('u1', TIMESTAMP '2024-01-02 00:00:00', 'bench', '0'), ('u2', TIMESTAMP '2024-01-02 00:00:00', 'bench', '1')) t(user_id, timestamp, experiment_id, variation_id)";
const SCENARIO_FACT_SQL = "SELECT * FROM (VALUES ('u1', TIMESTAMP '2024-01-03 00:00:00', 10.0, 'paid')) t(user_id, timestamp, amount, status)";

/** A 1x1 PNG, base64: the scenario's variation screenshot. */
const SCENARIO_SCREENSHOT_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A suffix of this run for the ids a client chooses (feature, attribute, environment...), so runs never collide. */
const run = (ids: Ids) => (ids.run ??= randomBytes(4).toString('hex'));

const v1 = '/api/v1';
const v2 = '/api/v2';
/** A revision's number from its id (`frev_<version>_<feature>`): ids, not bare numbers, are kept, since every id is checked for leaks. */
const versionOf = (revisionId: string | undefined) => revisionId?.split('_')[1];
/**
 * A saved-group revision as the scenario remembers it: its number with its (opaque) id, since a bare
 * number would be found in any answer (the isolation test looks for every remembered value).
 */
const revisionRef = (revision: { version: number; id: string }) => `${revision.version}@${revision.id}`;
const numberOf = (ref: string | undefined) => ref?.split('@')[0];

const template = {
  templateMetadata: { name: 'Bench template', description: 'For bench experiments' },
  type: 'standard',
  datasource: 'ds_bench',
  exposureQueryId: 'user_id',
  statsEngine: 'bayesian',
  targeting: { coverage: 1, condition: '{}' },
};

const rolloutRule = (id: string, coverage: number, extra: Record<string, unknown> = {}) => ({
  type: 'rollout',
  id,
  value: 'true',
  coverage,
  hashAttribute: 'id',
  ...extra,
});

/** Creates and reads: every resource the later steps name exists after these. */
const creating: Step[] = [
  {
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: () => `${v1}/openapi.json`,
    minimum: { calls: 0, why: 'generated from the registry' },
  },
  {
    operationId: 'getOpenApiYaml',
    method: 'GET',
    path: () => `${v1}/openapi.yaml`,
    minimum: { calls: 0, why: 'generated from the registry' },
  },
  {
    operationId: 'getApiInfo',
    method: 'GET',
    path: () => v1,
    minimum: { calls: 0, why: 'constant answer: name, API version, build' },
  },
  {
    operationId: 'getVersion',
    method: 'GET',
    path: () => `${v1}/version`,
    minimum: { calls: 0, why: 'constant answer: release and build' },
  },
  {
    operationId: 'getHealthcheck',
    method: 'GET',
    path: () => '/healthcheck',
    minimum: { calls: 0, why: "constant answer, as GrowthBook's: the table is not read" },
  },
  {
    operationId: 'getApiDocs',
    method: 'GET',
    path: () => `${v1}/docs`,
    minimum: { calls: 0, why: 'constant answer: the reference page' },
  },
  {
    operationId: 'getApiDocsAsset',
    method: 'GET',
    path: () => `${v1}/docs/swagger-ui-init.js`,
    minimum: { calls: 0, why: 'a file shipped with the function' },
  },
  {
    operationId: 'listMembers',
    method: 'GET',
    path: () => `${v1}/members`,
    minimum: { calls: 3, why: 'index keys + page items + teams (for membership)' },
  },
  {
    operationId: 'getSettings',
    method: 'GET',
    path: () => `${v1}/settings`,
    minimum: { calls: 1, why: 'the organization item (salt, approval settings)' },
  },
  {
    operationId: 'putApprovalSettings',
    method: 'PUT',
    path: () => `${v1}/settings/approvals`,
    // A rule that requires nothing: the steps after it write flags without reviews.
    body: () => ({ requireReviews: [{ requireReviewOn: false, environments: ['production'] }], approvalFlows: { savedGroups: [] } }),
    minimum: { calls: 3, why: 'environments named (projects and teams only when named) + one update + the stored settings read back' },
  },
  {
    operationId: 'putSettings',
    method: 'PUT',
    path: () => `${v1}/settings`,
    body: () => ({ revertsBypassApproval: false }),
    minimum: { calls: 2, why: 'one update + the stored settings read back' },
  },
  {
    operationId: 'postProject',
    method: 'POST',
    path: () => `${v1}/projects`,
    body: () => ({ name: 'Bench project', description: 'Made by the bench' }),
    capture: (body, ids) => (ids.projectId = body.project.id),
    minimum: { calls: 1, why: 'one transaction: project + a guard item for its unique publicId' },
  },
  {
    operationId: 'getProject',
    method: 'GET',
    path: (ids) => `${v1}/projects/${ids.projectId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listProjects',
    method: 'GET',
    path: () => `${v1}/projects?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'postEnvironment',
    method: 'POST',
    path: () => `${v1}/environments`,
    body: (ids) => ({ id: `staging-${run(ids)}`, description: 'Staging' }),
    capture: (body, ids) => (ids.environmentId = body.environment.id),
    minimum: { calls: 1, why: 'one conditional put' },
  },
  {
    operationId: 'listEnvironments',
    method: 'GET',
    path: () => `${v1}/environments`,
    minimum: { calls: 1, why: 'one query of the organization partition' },
  },
  {
    operationId: 'postSavedGroup',
    method: 'POST',
    path: () => `${v1}/saved-groups`,
    body: () => ({ name: 'Bench group', attributeKey: 'id', values: ['a', 'b'] }),
    capture: (body, ids) => (ids.savedGroupId = body.savedGroup.id),
    minimum: { calls: 2, why: "the list's attribute (it must be id-like) + one conditional put" },
  },
  {
    operationId: 'getSavedGroup',
    method: 'GET',
    path: (ids) => `${v1}/saved-groups/${ids.savedGroupId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listSavedGroups',
    method: 'GET',
    path: () => `${v1}/saved-groups?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'postAttribute',
    method: 'POST',
    path: () => `${v1}/attributes`,
    body: (ids) => ({ property: `bench_attr_${run(ids)}`, datatype: 'string', description: 'Made by the bench' }),
    capture: (body, ids) => (ids.attributeProperty = body.attribute.property),
    minimum: { calls: 1, why: 'one conditional put' },
  },
  {
    operationId: 'listAttributes',
    method: 'GET',
    path: () => `${v1}/attributes`,
    minimum: { calls: 1, why: 'one query of the organization partition' },
  },
  {
    operationId: 'postArchetype',
    method: 'POST',
    path: () => `${v1}/archetypes`,
    body: () => ({ name: 'Bench archetype', isPublic: true, attributes: { country: 'US' } }),
    capture: (body, ids) => (ids.archetypeId = body.archetype.id),
    minimum: { calls: 1, why: 'one conditional put' },
  },
  {
    operationId: 'getArchetype',
    method: 'GET',
    path: (ids) => `${v1}/archetypes/${ids.archetypeId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listArchetypes',
    method: 'GET',
    path: () => `${v1}/archetypes`,
    minimum: { calls: 1, why: 'one query of the organization partition' },
  },
  {
    operationId: 'createTeam',
    method: 'POST',
    path: () => `${v1}/teams`,
    body: () => ({ name: 'Bench team', description: 'Made by the bench', role: 'engineer' }),
    capture: (body, ids) => (ids.teamId = body.team.id),
    minimum: { calls: 1, why: 'one conditional put' },
  },
  {
    operationId: 'getTeam',
    method: 'GET',
    path: (ids) => `${v1}/teams/${ids.teamId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listTeams',
    method: 'GET',
    path: () => `${v1}/teams`,
    minimum: { calls: 1, why: 'one query of the organization partition' },
  },
  {
    operationId: 'postDataSource',
    method: 'POST',
    path: () => `${v1}/data-sources`,
    body: () => ({
      name: 'Bench warehouse',
      type: 'athena',
      params: { workGroup: 'primary', database: 'events' },
      identifierTypes: [{ id: 'user_id' }],
      assignmentQueries: [
        { id: 'user_id', name: 'Users', identifierType: 'user_id', sql: 'SELECT user_id, timestamp, experiment_id, variation_id FROM exposures' },
      ],
    }),
    capture: (body, ids) => (ids.dataSourceId = body.dataSource.id),
    minimum: { calls: 1, why: 'one conditional put' },
  },
  {
    operationId: 'getDataSource',
    method: 'GET',
    path: (ids) => `${v1}/data-sources/${ids.dataSourceId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listDataSources',
    method: 'GET',
    path: () => `${v1}/data-sources?limit=10`,
    minimum: { calls: 1, why: 'one query of the organization partition (a handful per organization, paged in memory by id)' },
  },
  {
    operationId: 'postSegment',
    method: 'POST',
    path: () => `${v1}/segments`,
    body: () => ({
      name: 'Bench segment',
      datasourceId: 'ds_bench',
      identifierType: 'user_id',
      type: 'SQL',
      query: 'SELECT user_id FROM subscribers',
    }),
    capture: (body, ids) => (ids.segmentId = body.segment.id),
    minimum: { calls: 1, why: 'one conditional put' },
  },
  {
    operationId: 'getSegment',
    method: 'GET',
    path: (ids) => `${v1}/segments/${ids.segmentId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listSegments',
    method: 'GET',
    path: () => `${v1}/segments?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'postFactTable',
    method: 'POST',
    path: () => `${v1}/fact-tables`,
    // Inline rows, so the scenario's snapshot runs on DuckDB without any file.
    body: () => ({ name: 'Orders', datasource: 'ds_bench', userIdTypes: ['user_id'], sql: SCENARIO_FACT_SQL }),
    capture: (body, ids) => (ids.factTableId = body.factTable.id),
    minimum: { calls: 2, why: 'data source check + conditional put' },
  },
  {
    operationId: 'getFactTable',
    method: 'GET',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listFactTables',
    method: 'GET',
    path: () => `${v1}/fact-tables?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'postFactTableFilter',
    method: 'POST',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/filters`,
    body: () => ({ name: 'Paid', value: "status = 'paid'" }),
    capture: (body, ids) => (ids.factTableFilterId = body.factTableFilter.id),
    minimum: { calls: 2, why: 'filters live in the table item: read + conditional write' },
  },
  {
    operationId: 'postFactTableVirtualColumn',
    method: 'POST',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/virtual-columns`,
    body: () => ({ column: 'double_vc', datatype: 'number', sql: 'amount * 2' }),
    minimum: { calls: 2, why: 'columns live in the table item: read + conditional write' },
  },
  {
    operationId: 'getFactTableFilter',
    method: 'GET',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/filters/${ids.factTableFilterId}`,
    minimum: { calls: 1, why: 'one get of the table item' },
  },
  {
    operationId: 'listFactTableFilters',
    method: 'GET',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/filters?limit=10`,
    minimum: { calls: 1, why: 'one get of the table item' },
  },
  {
    operationId: 'postFactMetric',
    method: 'POST',
    path: () => `${v1}/fact-metrics`,
    body: (ids) => ({
      name: 'Paid orders',
      metricType: 'proportion',
      numerator: { factTableId: ids.factTableId, column: '$$distinctUsers', filters: [ids.factTableFilterId] },
    }),
    capture: (body, ids) => (ids.factMetricId = body.factMetric.id),
    minimum: { calls: 2, why: 'fact table read (datasource, filters) + put' },
  },
  {
    operationId: 'getFactMetric',
    method: 'GET',
    path: (ids) => `${v1}/fact-metrics/${ids.factMetricId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'postFactMetricAnalysis',
    method: 'POST',
    path: (ids) => `${v1}/fact-metrics/${ids.factMetricId}/analysis`,
    body: () => ({ lookbackDays: 7, useCache: false }),
    minimum: {
      calls: 4,
      why: 'metric read + data source and fact table (parallel) + one put (useCache: false; with the cache, the list index is read first; locally the in-process DuckDB run starts inside the request and its first read may count here)',
    },
  },
  {
    operationId: 'listFactMetrics',
    method: 'GET',
    path: () => `${v1}/fact-metrics?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'postBulkImportFacts',
    method: 'POST',
    path: () => `${v1}/bulk-import/facts`,
    body: (ids) => ({
      factTables: [
        { id: `ftb_import_${run(ids)}`, data: { name: 'Imported', datasource: 'ds_bench', userIdTypes: ['user_id'], sql: 'SELECT * FROM visits' } },
      ],
      factTableFilters: [
        { factTableId: `ftb_import_${run(ids)}`, id: `flt_import_${run(ids)}`, data: { name: 'Mobile', value: "device = 'mobile'" } },
      ],
      factMetrics: [
        {
          id: `import_${run(ids)}`,
          data: { name: 'Visitors', metricType: 'proportion', numerator: { factTableId: `ftb_import_${run(ids)}`, column: '$$distinctUsers' } },
        },
      ],
    }),
    minimum: { calls: 2, why: 'one BatchGet of every id (upsert versions, data sources) + one transaction' },
  },
  {
    operationId: 'postDimension',
    method: 'POST',
    path: () => `${v1}/dimensions`,
    body: () => ({ name: 'Country', datasourceId: 'ds_bench', identifierType: 'user_id', query: 'SELECT user_id, country FROM users' }),
    capture: (body, ids) => (ids.dimensionId = body.dimension.id),
    minimum: { calls: 1, why: 'conditional put' },
  },
  {
    operationId: 'getDimension',
    method: 'GET',
    path: (ids) => `${v1}/dimensions/${ids.dimensionId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listDimensions',
    method: 'GET',
    path: () => `${v1}/dimensions`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'createMetricGroup',
    method: 'POST',
    path: () => `${v1}/metric-groups`,
    body: (ids) => ({ name: 'Bench group', description: '', projects: [], metrics: [ids.factMetricId], datasource: 'ds_bench' }),
    capture: (body, ids) => (ids.metricGroupId = body.metricGroup.id),
    minimum: { calls: 2, why: 'metrics check (BatchGet) + conditional put' },
  },
  {
    operationId: 'getMetricGroup',
    method: 'GET',
    path: (ids) => `${v1}/metric-groups/${ids.metricGroupId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listMetricGroups',
    method: 'GET',
    path: () => `${v1}/metric-groups`,
    minimum: { calls: 1, why: "one Query of the organization's metric groups" },
  },
  {
    operationId: 'createCustomField',
    method: 'POST',
    path: () => `${v1}/custom-fields`,
    body: (ids) => ({ id: `jira_${run(ids)}`, name: 'Jira ticket', type: 'url', required: false, section: 'feature' }),
    capture: (body, ids) => (ids.customFieldId = body.customField.id),
    minimum: { calls: 1, why: 'conditional put (no projects named)' },
  },
  {
    operationId: 'getCustomField',
    method: 'GET',
    path: (ids) => `${v1}/custom-fields/${ids.customFieldId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listCustomFields',
    method: 'GET',
    path: () => `${v1}/custom-fields`,
    minimum: { calls: 1, why: "one Query of the organization's custom fields" },
  },
  {
    operationId: 'postExperiment',
    method: 'POST',
    path: () => `${v1}/experiments`,
    body: (ids) => ({
      trackingKey: `bench-${run(ids)}`,
      name: 'Bench experiment',
      datasourceId: 'ds_bench',
      assignmentQueryId: 'user_id',
      metrics: [ids.factMetricId],
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Treatment' },
      ],
    }),
    capture: (body, ids) => {
      ids.experimentId = body.experiment.id;
      ids.variationId = body.experiment.variations[1].variationId;
      ids.controlVariationId = body.experiment.variations[0].variationId;
    },
    minimum: { calls: 5, why: 'data source check + metric check + trackingKey query + page-index read + one transaction' },
  },
  {
    operationId: 'getExperiment',
    method: 'GET',
    path: (ids) => `${v1}/experiments/${ids.experimentId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'postVariationImageUpload',
    method: 'POST',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/variation/${ids.variationId}/screenshot/upload`,
    body: () => ({ screenshot: SCENARIO_SCREENSHOT_PNG, contentType: 'image/png', description: 'Bench screenshot' }),
    capture: (body, ids) => {
      ids.screenshotPath = body.screenshot.path;
      ids.screenshotFile = body.screenshot.path.split('/').pop();
    },
    minimum: { calls: 3, why: 'experiment read (checks before the image is written) + read + one transaction (the image goes to S3, not DynamoDB)' },
  },
  {
    operationId: 'getVariationScreenshot',
    method: 'GET',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/variation/${ids.variationId}/screenshot/${ids.screenshotFile}`,
    minimum: { calls: 1, why: 'the experiment (the image comes from S3)' },
  },
  {
    operationId: 'postExperimentStart',
    method: 'POST',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/start`,
    body: () => ({ skipChecklist: true }),
    minimum: { calls: 2, why: 'read + write conditional on its version (checklist skipped)' },
  },
  {
    operationId: 'createHoldout',
    method: 'POST',
    path: () => `${v1}/holdouts`,
    body: () => ({ name: 'Bench holdout', holdoutSize: 0.05, environments: { production: { enabled: true } } }),
    capture: (body, ids) => (ids.holdoutId = body.holdout.id),
    minimum: {
      calls: 4,
      why: 'environments query + conditional put + touch the payloads (environments query, then one bump per environment side by side)',
    },
  },
  {
    operationId: 'getHoldout',
    method: 'GET',
    path: (ids) => `${v1}/holdouts/${ids.holdoutId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listHoldouts',
    method: 'GET',
    path: () => `${v1}/holdouts?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'updateHoldout',
    method: 'PUT',
    path: (ids) => `${v1}/holdouts/${ids.holdoutId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 5, why: 'read + environments query + write conditional on its version + touch the payloads (2)' },
  },
  {
    operationId: 'setHoldoutStage',
    method: 'POST',
    path: (ids) => `${v1}/holdouts/${ids.holdoutId}/stage`,
    body: () => ({ stage: 'running' }),
    minimum: { calls: 4, why: 'read + write conditional on its version + touch the payloads (2)' },
  },
  {
    operationId: 'postNamespace',
    method: 'POST',
    path: () => `${v1}/namespaces`,
    body: (ids) => ({ displayName: `Bench namespace ${run(ids)}`, hashAttribute: 'id' }),
    capture: (body, ids) => (ids.namespaceId = body.namespace.id),
    minimum: { calls: 2, why: 'namespaces query (display name unique) + conditional put' },
  },
  {
    operationId: 'getNamespace',
    method: 'GET',
    path: (ids) => `${v1}/namespaces/${ids.namespaceId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listNamespaces',
    method: 'GET',
    path: () => `${v1}/namespaces`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'postNamespaceRotateSeed',
    method: 'POST',
    path: (ids) => `${v1}/namespaces/${ids.namespaceId}/rotateSeed`,
    body: () => ({}),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'getNamespaceMemberships',
    method: 'GET',
    path: (ids) => `${v1}/namespaces/${ids.namespaceId}/memberships`,
    minimum: { calls: 3, why: 'the namespace, in parallel with the keys of the experiments naming it, then their items' },
  },
  {
    operationId: 'getStaleFeatures',
    method: 'GET',
    path: () => `${v1}/stale-features`,
    minimum: {
      calls: 4,
      why: 'feature keys + feature items + experiment keys and items (staleness looks at dependents) + environments, in parallel',
    },
  },
  {
    operationId: 'postCodeRefs',
    method: 'POST',
    path: () => `${v1}/code-refs`,
    body: () => ({
      branch: 'main',
      repoName: 'acme/web',
      refs: [{ filePath: 'src/app.ts', startingLineNumber: 16, lines: 'gb.isOn("bench")', flagKey: 'bench', contentHash: 'abc' }],
    }),
    minimum: { calls: 2, why: "BatchGet of the flags' items (versions) + one transaction" },
  },
  {
    operationId: 'listCodeRefs',
    method: 'GET',
    path: () => `${v1}/code-refs`,
    minimum: { calls: 1, why: "one Query of the organization's code reference items" },
  },
  {
    operationId: 'getCodeRefs',
    method: 'GET',
    path: () => `${v1}/code-refs/bench`,
    minimum: { calls: 1, why: "one Query of the feature's key prefix (the feature is read only when nothing references it)" },
  },
  {
    operationId: 'getExperimentNames',
    method: 'GET',
    path: () => `${v1}/experiment-names`,
    minimum: { calls: 2, why: 'list index keys + the items (names)' },
  },
  {
    operationId: 'listExperiments',
    method: 'GET',
    path: () => `${v1}/experiments?limit=10`,
    minimum: { calls: 3, why: 'page index + keys from its nearest mark + page items' },
  },
  {
    operationId: 'postExperimentSnapshot',
    method: 'POST',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/snapshot`,
    body: () => ({ triggeredBy: 'manual' }),
    capture: (body, ids) => (ids.snapshotId = body.snapshot.id),
    minimum: {
      calls: 5,
      why: 'experiment read + data source and metrics (parallel) + fact tables + one transaction (locally the in-process DuckDB run starts inside the request and its first read counts here; in AWS it is a Step Functions start)',
    },
  },
  {
    operationId: 'getExperimentSnapshot',
    method: 'GET',
    path: (ids) => `${v1}/snapshots/${ids.snapshotId}`,
    settle: (ids) => ({ path: `${v1}/snapshots/${ids.snapshotId}`, done: (body) => body?.snapshot?.status !== 'running' }),
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'getExperimentResults',
    method: 'GET',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/results?phase=0`,
    capture: (body, ids) => (ids.queryId = body.result.queryIds[0]),
    minimum: { calls: 3, why: 'experiment and results pointers (parallel) + the snapshot results (one Query)' },
  },
  {
    operationId: 'getQuery',
    method: 'GET',
    path: (ids) => `${v1}/queries/${ids.queryId}`,
    minimum: { calls: 2, why: 'the query + its snapshot (for its state) and experiment (read access)' },
  },
  {
    operationId: 'listExperimentResults',
    method: 'GET',
    path: () => `${v1}/experiments/results?datasourceId=ds_bench`,
    minimum: { calls: 4, why: 'experiments list (index query + batch get) + per experiment its results pointers and results' },
  },
  {
    operationId: 'getExperimentStartChecklist',
    method: 'GET',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/start-checklist`,
    minimum: {
      calls: 4,
      why: 'experiment + in parallel: linked features (index query; a batch get when some link it), SDK connections, the launch checklists with the completed tasks (one batch get)',
    },
  },
  {
    operationId: 'postExperimentStartChecklistManualComplete',
    method: 'POST',
    admin: (orgId) => ['launch-checklist', 'set', '--org', orgId, '--manual', 'Bench sign-off', '--url', 'https://example.com/sign-off'],
    path: (ids) => `${v1}/experiments/${ids.experimentId}/start-checklist/manual/complete`,
    body: () => ({ keys: ['Bench sign-off'] }),
    minimum: {
      calls: 5,
      why: 'experiment + launch checklists with the completed tasks (one batch get) + one transaction (experiment version, completions) + in parallel: linked features (index query; a batch get when some link it), SDK connections',
    },
  },
  {
    operationId: 'postMetric',
    method: 'POST',
    path: () => `${v1}/metrics`,
    body: () => ({
      datasourceId: 'ds_bench',
      name: 'Bench legacy metric',
      type: 'revenue',
      sql: { identifierTypes: ['user_id'], conversionSQL: `SELECT user_id, timestamp, amount AS value FROM (${SCENARIO_FACT_SQL})` },
    }),
    capture: (body, ids) => (ids.metricId = body.metric.id),
    minimum: { calls: 2, why: 'data source check + conditional put' },
  },
  {
    operationId: 'getMetric',
    method: 'GET',
    path: (ids) => `${v1}/metrics/${ids.metricId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listMetrics',
    method: 'GET',
    path: () => `${v1}/metrics?datasourceId=ds_bench`,
    minimum: { calls: 2, why: 'list index query + batch get' },
  },
  {
    operationId: 'listMetricExperiments',
    method: 'GET',
    path: (ids) => `${v1}/metrics/${ids.factMetricId}/experiments`,
    minimum: {
      calls: 5,
      why: 'the metric (fact and legacy, parallel) + the experiments (index query + batch get) + per experiment on the page its results pointers and results',
    },
  },
  {
    operationId: 'getMetricUsage',
    method: 'GET',
    // An id no organization has: the answer echoes each id asked for, which the isolation test would count as a leak of the real ones.
    path: () => `${v1}/usage/metrics?ids=fact__bench_unknown`,
    minimum: { calls: 3, why: 'the metrics (fact and legacy, parallel) + the experiments (index query + batch get)' },
  },
  {
    operationId: 'postReport',
    method: 'POST',
    path: () => `${v1}/reports`,
    body: (ids) => ({ experimentId: ids.experimentId, title: 'Bench report' }),
    capture: (body, ids) => (ids.reportId = body.report.id),
    minimum: {
      calls: 6,
      why: 'experiment + metric check + data source and metrics (parallel) + one transaction for the snapshot + the report put + its snapshot read',
    },
  },
  {
    operationId: 'getReport',
    method: 'GET',
    path: (ids) => `${v1}/reports/${ids.reportId}`,
    settle: (ids) => ({ path: `${v1}/reports/${ids.reportId}`, done: (body) => body?.report?.snapshotStatus !== 'running' }),
    minimum: { calls: 4, why: 'report + experiment + its snapshot + the snapshot results' },
  },
  {
    operationId: 'listReports',
    method: 'GET',
    path: (ids) => `${v1}/reports?experimentId=${ids.experimentId}`,
    minimum: { calls: 5, why: "reports (index query + batch get) + their experiments + each one's snapshot and results" },
  },
  {
    operationId: 'getInformationSchema',
    method: 'GET',
    path: () => `${v1}/data-sources/ds_bench/information-schema`,
    files: { 'bench/orders.csv': 'user_id,timestamp,amount\nu1,2024-01-03 00:00:00,10.0\n' },
    capture: (body, ids) => {
      const tables = body.informationSchema.databases.flatMap((d: any) => d.schemas.flatMap((s: any) => s.tables));
      ids.informationSchemaTableId = tables.find((t: any) => t.path === 'bench/orders.csv')?.id;
    },
    minimum: { calls: 1, why: 'the data source; the files are listed and described by DuckDB, not DynamoDB' },
  },
  {
    operationId: 'getInformationSchemaTable',
    method: 'GET',
    path: (ids) => `${v1}/information-schema-tables/${ids.informationSchemaTableId}`,
    minimum: { calls: 1, why: 'the data source the id names; the file is described by DuckDB, not DynamoDB' },
  },
  {
    operationId: 'postVisualChangesets',
    method: 'POST',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/visual-changesets`,
    body: () => ({ editorUrl: 'https://example.com/', urlPatterns: [{ type: 'simple', pattern: 'https://example.com/*', include: true }] }),
    capture: (body, ids) => (ids.visualChangesetId = body.visualChangeset.id),
    minimum: { calls: 2, why: 'experiment read + one transaction (changeset, experiment flag)' },
  },
  {
    operationId: 'getVisualChangeset',
    method: 'GET',
    path: (ids) => `${v1}/visual-changesets/${ids.visualChangesetId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listVisualChangesets',
    method: 'GET',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/visual-changesets`,
    minimum: { calls: 3, why: 'experiment check + index keys + items' },
  },
  {
    operationId: 'createUrlRedirect',
    method: 'POST',
    path: () => `${v1}/url-redirects`,
    body: (ids) => ({
      experiment: ids.experimentId,
      urlPattern: 'https://example.com/pricing',
      destinationURLs: [
        { variation: ids.controlVariationId, url: '' },
        { variation: ids.variationId, url: 'https://example.com/pricing-new' },
      ],
    }),
    capture: (body, ids) => (ids.urlRedirectId = body.urlRedirect.id),
    minimum: {
      calls: 3,
      why: 'served redirects (one Query; their experiments when there are some) + experiment read + one transaction (redirect, experiment flag)',
    },
  },
  {
    operationId: 'getUrlRedirect',
    method: 'GET',
    path: (ids) => `${v1}/url-redirects/${ids.urlRedirectId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listUrlRedirects',
    method: 'GET',
    path: (ids) => `${v1}/url-redirects?experimentId=${ids.experimentId}`,
    minimum: { calls: 1, why: "one Query of the organization's redirects" },
  },
  {
    operationId: 'postVisualChange',
    method: 'POST',
    path: (ids) => `${v1}/visual-changesets/${ids.visualChangesetId}/visual-change`,
    body: (ids) => ({ variation: ids.variationId, css: 'h1 { color: green }' }),
    capture: (body, ids) => (ids.visualChangeId = body.visualChangeId),
    minimum: { calls: 3, why: 'changeset read + its experiment (variations, project) + conditional write' },
  },
  {
    operationId: 'createExperimentTemplate',
    method: 'POST',
    path: () => `${v1}/experiment-templates`,
    body: () => template,
    capture: (body, ids) => (ids.templateId = body.experimentTemplate.id),
    minimum: { calls: 2, why: 'data source check + conditional put' },
  },
  {
    operationId: 'getExperimentTemplate',
    method: 'GET',
    path: (ids) => `${v1}/experiment-templates/${ids.templateId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listExperimentTemplates',
    method: 'GET',
    path: () => `${v1}/experiment-templates`,
    minimum: { calls: 1, why: 'one query of the organization partition' },
  },
  {
    operationId: 'bulkImportExperimentTemplates',
    method: 'POST',
    path: () => `${v1}/experiment-templates/bulk-import`,
    body: (ids) => ({ templates: [{ id: `imported-${run(ids)}`, data: { ...template, templateMetadata: { name: 'Imported template' } } }] }),
    minimum: { calls: 3, why: 'data source check + read the ids (upsert versions) + one transaction' },
  },
  {
    operationId: 'createDashboard',
    method: 'POST',
    path: () => `${v1}/dashboards`,
    body: (ids) => ({
      title: 'Bench dashboard',
      editLevel: 'published',
      shareLevel: 'published',
      enableAutoUpdates: false,
      experimentId: ids.experimentId,
      blocks: [{ type: 'markdown', title: 'Notes', description: '', content: '# Findings' }],
    }),
    capture: (body, ids) => (ids.dashboardId = body.dashboard.id),
    minimum: { calls: 2, why: 'experiment read (exists, its project) + put' },
  },
  {
    operationId: 'getDashboard',
    method: 'GET',
    path: (ids) => `${v1}/dashboards/${ids.dashboardId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listDashboards',
    method: 'GET',
    path: () => `${v1}/dashboards`,
    minimum: { calls: 1, why: 'one query of the organization partition' },
  },
  {
    operationId: 'getDashboardsForExperiment',
    method: 'GET',
    path: (ids) => `${v1}/dashboards/by-experiment/${ids.experimentId}`,
    minimum: { calls: 3, why: 'experiment check + index keys + items' },
  },
  {
    operationId: 'postFeature',
    method: 'POST',
    path: () => `${v1}/features`,
    body: (ids) => ({
      id: `bench-${run(ids)}`,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: {
        production: {
          enabled: true,
          rules: [
            rolloutRule(`fr_${run(ids)}_a`, 0.1, { savedGroupTargeting: [{ matchType: 'all', savedGroups: [ids.savedGroupId] }] }),
            rolloutRule(`fr_${run(ids)}_b`, 0.2),
          ],
        },
      },
    }),
    capture: (body, ids) => {
      ids.featureId = body.feature.id;
      ids.ruleA = `fr_${run(ids)}_a`;
      ids.ruleB = `fr_${run(ids)}_b`;
    },
    minimum: {
      calls: 5,
      why: 'environments + saved-group check + page-index read + payload read (1 env served) + one transaction',
    },
  },
  {
    operationId: 'getFeature',
    method: 'GET',
    path: (ids) => `${v1}/features/${ids.featureId}`,
    minimum: { calls: 3, why: 'get by id + environments + saved groups its rules name (definitions)' },
  },
  {
    operationId: 'listFeatures',
    method: 'GET',
    path: () => `${v1}/features?limit=10`,
    minimum: { calls: 5, why: 'page index + keys from its mark + page items + environments + saved groups named' },
  },
  {
    operationId: 'getFeatureKeys',
    method: 'GET',
    path: () => `${v1}/feature-keys`,
    minimum: { calls: 1, why: 'one keys-only index query' },
  },
  {
    operationId: 'postSdkConnection',
    method: 'POST',
    path: () => `${v1}/sdk-connections`,
    body: () => ({ name: 'Bench web', language: 'javascript', environment: 'production' }),
    capture: (body, ids) => {
      ids.sdkConnectionId = body.sdkConnection.id;
      ids.sdkKey = body.sdkConnection.key;
    },
    minimum: { calls: 2, why: 'environment check + one transaction (connection, key item)' },
  },
  {
    operationId: 'getSdkConnection',
    method: 'GET',
    path: (ids) => `${v1}/sdk-connections/${ids.sdkConnectionId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listSdkConnections',
    method: 'GET',
    path: () => `${v1}/sdk-connections?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'lookupSdkConnectionByKey',
    method: 'GET',
    path: (ids) => `${v1}/sdk-connections/lookup/${ids.sdkKey}`,
    minimum: { calls: 2, why: 'key item (organization check) + connection item' },
  },
  {
    operationId: 'getFeaturesForSdk',
    method: 'GET',
    path: (ids) => `/api/features/${ids.sdkKey}`,
    minimum: {
      calls: 4,
      why: 'cold: key item + version Query + entries Query (read after the versions that prove them) + one BatchGet of references (groups, experiments, attribute types, environment); warm: 1',
    },
  },
  {
    operationId: 'getSdkPayload',
    method: 'GET',
    path: (ids) => `${v1}/sdk-payload/${ids.sdkKey}`,
    minimum: { calls: 1, why: 'the version Query: the body cached by the request before is proven current' },
  },
  {
    operationId: 'createRampScheduleTemplate',
    method: 'POST',
    path: () => `${v1}/ramp-schedule-templates`,
    body: () => ({
      name: 'Bench ramp template',
      steps: [{ interval: 3600, actions: [{ targetType: 'feature-rule', targetId: 't1', patch: { ruleId: 'r', coverage: 0.5 } }] }],
      endPatch: { coverage: 1 },
      lockdownConfig: { mode: 'locked' },
    }),
    capture: (body, ids) => (ids.rampTemplateId = body.rampScheduleTemplate.id),
    minimum: { calls: 2, why: 'the templates (the next order) + conditional put' },
  },
  {
    operationId: 'getRampScheduleTemplate',
    method: 'GET',
    path: (ids) => `${v1}/ramp-schedule-templates/${ids.rampTemplateId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listRampScheduleTemplates',
    method: 'GET',
    path: () => `${v1}/ramp-schedule-templates`,
    minimum: { calls: 1, why: "the organization's templates (a handful; no page index)" },
  },
  {
    operationId: 'createRampSchedule',
    method: 'POST',
    path: () => `${v1}/ramp-schedules`,
    body: (ids) => ({
      name: 'Bench ramp',
      featureId: ids.featureId,
      ruleId: ids.ruleA,
      environment: 'production',
      steps: [
        { interval: null, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.5 } }], approvalNotes: 'Check the error rate' },
        { interval: 3600, actions: [{ patch: { coverage: 1 } }] },
      ],
    }),
    capture: (body, ids) => (ids.rampScheduleId = body.rampSchedule.id),
    minimum: { calls: 2, why: 'feature read (rule exists, project) + one transaction (schedule, rule lock)' },
  },
  {
    operationId: 'getRampSchedule',
    method: 'GET',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listRampSchedules',
    method: 'GET',
    path: () => `${v1}/ramp-schedules?limit=10`,
    minimum: { calls: 2, why: 'index keys + page items' },
  },
];

/** Updates and lifecycle actions on what `creating` made. */
const updating: Step[] = [
  {
    operationId: 'putProject',
    method: 'PUT',
    path: (ids) => `${v1}/projects/${ids.projectId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'putEnvironment',
    method: 'PUT',
    path: (ids) => `${v1}/environments/${ids.environmentId}`,
    body: () => ({ description: 'Staging, updated' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateSavedGroup',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups/${ids.savedGroupId}`,
    body: () => ({ values: ['a', 'b', 'c'] }),
    minimum: { calls: 3, why: 'read + approval settings (parallel) + write conditional on its version' },
  },
  {
    operationId: 'putAttribute',
    method: 'PUT',
    path: (ids) => `${v1}/attributes/${ids.attributeProperty}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'putArchetype',
    method: 'PUT',
    path: (ids) => `${v1}/archetypes/${ids.archetypeId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateMemberRole',
    method: 'POST',
    path: (ids) => `${v1}/members/${ids.memberId}/role`,
    body: () => ({ member: { role: 'admin' } }),
    minimum: { calls: 2, why: 'read + write conditional on its version (no environments or projects named)' },
  },
  {
    operationId: 'updateTeam',
    method: 'PUT',
    path: (ids) => `${v1}/teams/${ids.teamId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'addTeamMembers',
    method: 'POST',
    path: (ids) => `${v1}/teams/${ids.teamId}/members`,
    body: (ids) => ({ members: [ids.memberId] }),
    minimum: { calls: 3, why: 'member existence check + read + conditional write' },
  },
  {
    operationId: 'updateDataSource',
    method: 'POST',
    path: (ids) => `${v1}/data-sources/${ids.dataSourceId}`,
    body: () => ({ description: 'Updated by the bench', params: { workGroup: 'analytics', database: 'events' } }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateSegment',
    method: 'POST',
    path: (ids) => `${v1}/segments/${ids.segmentId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateSegmentSingular',
    method: 'POST',
    path: (ids) => `${v1}/segment/${ids.segmentId}`,
    body: () => ({ name: 'Bench segment, renamed' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateFactTable',
    method: 'POST',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateFactTableFilter',
    method: 'POST',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/filters/${ids.factTableFilterId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'table read + conditional write' },
  },
  {
    operationId: 'updateFactMetric',
    method: 'POST',
    path: (ids) => `${v1}/fact-metrics/${ids.factMetricId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + conditional write (no fact table named in the body)' },
  },
  {
    operationId: 'updateExperiment',
    method: 'POST',
    path: (ids) => `${v1}/experiments/${ids.experimentId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'putVisualChangeset',
    method: 'PUT',
    path: (ids) => `${v1}/visual-changesets/${ids.visualChangesetId}`,
    body: () => ({ editorUrl: 'https://example.com/checkout' }),
    minimum: { calls: 3, why: 'changeset read + its experiment (project) + conditional write' },
  },
  {
    operationId: 'updateUrlRedirect',
    method: 'PUT',
    path: (ids) => `${v1}/url-redirects/${ids.urlRedirectId}`,
    body: () => ({ persistQueryString: true }),
    minimum: {
      calls: 3,
      why: 'redirect read + its experiment + conditional write (a new pattern or destination also reads the served redirects, alongside)',
    },
  },
  {
    operationId: 'putVisualChange',
    method: 'PUT',
    path: (ids) => `${v1}/visual-changesets/${ids.visualChangesetId}/visual-change/${ids.visualChangeId}`,
    body: () => ({ css: 'h1 { color: blue }' }),
    minimum: { calls: 3, why: 'changeset read + its experiment (variations, project) + conditional write' },
  },
  {
    operationId: 'updateExperimentTemplate',
    method: 'PUT',
    path: (ids) => `${v1}/experiment-templates/${ids.templateId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateDashboard',
    method: 'PUT',
    path: (ids) => `${v1}/dashboards/${ids.dashboardId}`,
    body: () => ({ title: 'Bench dashboard, renamed' }),
    minimum: { calls: 3, why: 'read + its experiment (project) + conditional write' },
  },
  {
    operationId: 'updateFeature',
    method: 'POST',
    path: (ids) => `${v1}/features/${ids.featureId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: {
      calls: 5,
      why: 'environments + read + approval settings (beside the read: the approval gate) + one transaction (feature, revision) + saved groups named (definitions)',
    },
  },
  {
    operationId: 'revertFeature',
    method: 'POST',
    path: (ids) => `${v1}/features/${ids.featureId}/revert`,
    body: () => ({ revision: 1, comment: 'Bench revert' }),
    minimum: {
      calls: 5,
      why: 'environments + read + approval settings (beside the read) + revision read + (no content change: nothing written) + saved groups named',
    },
  },
  {
    operationId: 'putSdkConnection',
    method: 'PUT',
    path: (ids) => `${v1}/sdk-connections/${ids.sdkConnectionId}`,
    body: () => ({ name: 'Bench web, renamed', remoteEvalEnabled: true }),
    minimum: { calls: 2, why: 'read + one transaction (connection, key item)' },
  },
  {
    operationId: 'postRemoteEval',
    method: 'POST',
    path: (ids) => `/api/eval/${ids.sdkKey}`,
    body: () => ({ attributes: { id: 'bench-user', plan: 'pro' }, forcedVariations: {}, forcedFeatures: [], url: 'https://example.com/' }),
    minimum: {
      calls: 3,
      why: 'key item + version Query + one BatchGet of references (groups, experiments, attribute types, environment); entries cached per container',
    },
  },
  // Drafts of a feature (GrowthBook 5's /api/v2), after the remote evaluation above, whose cached entries they would change.
  {
    operationId: 'postFeatureRevisionV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions`,
    body: () => ({ comment: 'Bench draft' }),
    capture: (body, ids) => {
      ids.draftId = body.revision.id;
      ids.draftRuleOrder = JSON.stringify(body.revision.rules.map((rule: { id: string }) => rule.id).reverse());
    },
    minimum: {
      calls: 5,
      why: "read + environments (parallel; the created event's environments) + one transaction (draft, feature's newest number, event) + environments + saved groups named (definitions)",
    },
  },
  {
    operationId: 'getFeatureRevisionsV2',
    method: 'GET',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions?limit=5`,
    minimum: { calls: 5, why: 'feature + environments + newest number + one key range of revisions (parallel) + saved groups named' },
  },
  {
    operationId: 'getFeatureRevisionLatestV2',
    method: 'GET',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/latest`,
    minimum: { calls: 4, why: 'feature + open drafts (parallel) + environments + saved groups named' },
  },
  {
    operationId: 'getFeatureRevisionV2',
    method: 'GET',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}`,
    minimum: { calls: 4, why: 'feature + revision (parallel) + environments + saved groups named' },
  },
  {
    operationId: 'putFeatureRevisionDefaultValueV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/default-value`,
    body: () => ({ defaultValue: 'true' }),
    minimum: { calls: 6, why: 'feature + draft + environments (parallel) + references checked + draft write + environments + saved groups named' },
  },
  {
    operationId: 'postFeatureRevisionToggleV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/toggle`,
    body: () => ({ environment: 'production', enabled: true }),
    minimum: { calls: 6, why: 'as the default value' },
  },
  {
    operationId: 'putFeatureRevisionArchiveV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/archive`,
    body: () => ({ archived: false }),
    minimum: { calls: 6, why: 'as the default value' },
  },
  {
    operationId: 'putFeatureRevisionPrerequisitesV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/prerequisites`,
    body: () => ({ prerequisites: [] }),
    minimum: { calls: 6, why: 'as the default value' },
  },
  {
    operationId: 'postFeatureRevisionRulesReorderV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/rules/reorder`,
    body: (ids) => ({ ruleIds: JSON.parse(ids.draftRuleOrder!) }),
    minimum: { calls: 6, why: 'as the default value' },
  },
  // Edits of the draft after the reorder above (which names every rule the draft had).
  {
    operationId: 'postFeatureRevisionRuleAddV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/rules`,
    body: () => ({ rule: { type: 'force', value: 'true', condition: '{"plan":"pro"}', environments: ['production'] } }),
    minimum: { calls: 6, why: 'as the default value' },
  },
  {
    operationId: 'putFeatureRevisionRuleV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/rules/${ids.ruleB}`,
    body: () => ({ rule: { description: 'Edited in a draft' } }),
    minimum: { calls: 7, why: 'draft read (the rule type) + as the default value' },
  },
  {
    operationId: 'putFeatureRevisionMetadataV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/metadata`,
    body: () => ({ description: 'Bench draft', tags: ['bench'] }),
    minimum: { calls: 7, why: 'feature read (project) + as the default value' },
  },
  {
    operationId: 'putFeatureRevisionHoldoutV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/holdout`,
    body: () => ({ holdout: null }),
    minimum: { calls: 6, why: 'as the default value (no holdout to look up)' },
  },
  {
    operationId: 'getFeatureRevisionDiffV2',
    method: 'GET',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/diff`,
    minimum: { calls: 5, why: 'feature + draft + environments (parallel) + base revision + saved groups named' },
  },
  {
    operationId: 'postFeatureRevisionRebasePreviewV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/rebase/preview`,
    body: () => ({}),
    minimum: { calls: 3, why: 'feature + draft + environments (parallel); the base is live, so no base revision read' },
  },
  {
    operationId: 'getFeatureRevisionMergeStatusV2',
    method: 'GET',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/merge-status`,
    minimum: { calls: 3, why: 'feature + draft + environments (parallel); the base is live, so no base revision read' },
  },
  {
    operationId: 'postFeatureRevisionRebaseV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/rebase`,
    body: () => ({}),
    minimum: {
      calls: 6,
      why: 'feature + draft + environments (parallel; the rebased event) + one transaction (draft, event) + environments + saved groups named',
    },
  },
  {
    operationId: 'postFeatureRevisionSchedulePublishV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/schedule-publish`,
    body: () => ({ scheduledPublishAt: '2040-01-01T00:00:00Z' }),
    minimum: {
      calls: 6,
      why: 'feature + draft + environments (parallel) + one transaction (draft, boundary, event) + environments + saved groups named',
    },
  },
  // The draft's review: requested with the organization key, reviewed by the admin member (a person).
  {
    operationId: 'postFeatureRevisionRequestReviewV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/request-review`,
    body: () => ({ comment: 'Bench review' }),
    minimum: { calls: 5, why: 'feature + draft (parallel) + draft write with its log entry + environments + saved groups named' },
  },
  {
    operationId: 'postFeatureRevisionSubmitReviewV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/submit-review`,
    key: (ids) => ids.memberToken,
    body: () => ({ action: 'approve', comment: 'Looks good' }),
    minimum: { calls: 6, why: 'feature + draft + approval settings (parallel) + draft write with its log entry + environments + saved groups named' },
  },
  {
    operationId: 'getFeatureRevisionLogV2',
    method: 'GET',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/log`,
    capture: (body, ids) => {
      ids.reviewLogId = body.log.find((entry: { action: string }) => entry.action === 'Approved').id;
    },
    minimum: { calls: 2, why: 'feature + revision (parallel): the log is kept on the revision' },
  },
  {
    operationId: 'putFeatureRevisionLogCommentV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/log/${ids.reviewLogId}`,
    key: (ids) => ids.memberToken,
    body: () => ({ comment: 'Looks good to me' }),
    minimum: { calls: 3, why: 'feature + revision (parallel) + revision write' },
  },
  {
    operationId: 'postFeatureRevisionUndoReviewV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/undo-review`,
    key: (ids) => ids.memberToken,
    minimum: { calls: 5, why: 'feature + draft (parallel) + draft write with its log entry + environments + saved groups named' },
  },
  {
    operationId: 'postFeatureRevisionRecallReviewV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/recall-review`,
    minimum: { calls: 5, why: 'feature + draft (parallel) + draft write with its log entry + environments + saved groups named' },
  },
  {
    operationId: 'postFeatureRevisionPublishV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/publish`,
    body: () => ({ comment: 'Bench publish' }),
    minimum: {
      calls: 9,
      why: "environments + feature + approval settings (beside the feature: the approval gate) + draft + open drafts (a sibling's lockOthers schedule; parallel) + references checked + payload read + one transaction (feature, revision, payload, event) + revision + saved groups named",
    },
  },
  {
    operationId: 'postFeatureRevisionRevertV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/1/revert`,
    body: () => ({}),
    capture: (body, ids) => {
      ids.revertDraftId = body.revision.id;
    },
    minimum: {
      calls: 7,
      why: 'feature + revision 1 + approval settings (parallel: whether reverts bypass approval) + feature again + environments (parallel; the created event) + one transaction (draft, newest number, event) + environments + saved groups named',
    },
  },
  {
    operationId: 'postFeatureRevisionDiscardV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.revertDraftId)}/discard`,
    body: () => ({}),
    minimum: {
      calls: 6,
      why: 'feature + draft + environments (parallel; the event) + one transaction (draft, event) + environments + saved groups named',
    },
  },
  {
    operationId: 'postFeatureRevisionReopenV2',
    method: 'POST',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.revertDraftId)}/reopen`,
    body: () => ({}),
    minimum: {
      calls: 6,
      why: 'feature + draft + environments (parallel; the event) + one transaction (draft, event) + environments + saved groups named',
    },
  },
  // A pending ramp on the reopened revert draft, which is never published; it is removed among the deletes.
  {
    operationId: 'putFeatureRevisionRuleRampScheduleV2',
    method: 'PUT',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.revertDraftId)}/rules/${ids.ruleB}/ramp-schedule`,
    body: () => ({ name: 'Bench draft ramp', steps: [{ interval: 3600, actions: [{ patch: { coverage: 0.5 } }] }] }),
    minimum: { calls: 7, why: "as the default value + the rule's lock (no live schedule may control it)" },
  },
  // Revisions of the saved group (GrowthBook 5's /saved-groups-revisions), after the features that name it.
  {
    operationId: 'postSavedGroupRevision',
    method: 'POST',
    capture: (body, ids) => (ids.groupDraft = revisionRef(body.revision)),
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}`,
    body: () => ({ title: 'Bench draft' }),
    minimum: { calls: 3, why: "group + newest number (parallel) + one transaction (the live state's revision, the draft, the group unchanged)" },
  },
  {
    operationId: 'getSavedGroupRevisions',
    method: 'GET',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}?limit=5`,
    minimum: { calls: 3, why: 'group + newest number + one key range of revisions' },
  },
  {
    operationId: 'getSavedGroupRevisionLatest',
    method: 'GET',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/latest`,
    minimum: { calls: 2, why: "group + the group's open revisions" },
  },
  {
    operationId: 'getSavedGroupRevision',
    method: 'GET',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}`,
    minimum: { calls: 2, why: 'group + revision' },
  },
  {
    operationId: 'putSavedGroupRevisionMetadata',
    method: 'PUT',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/metadata`,
    body: () => ({ description: 'Described by the bench' }),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write conditional on its change count' },
  },
  {
    operationId: 'putSavedGroupRevisionValues',
    method: 'PUT',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/values`,
    body: () => ({ values: ['a', 'b', 'c', 'd'] }),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write conditional on its change count' },
  },
  {
    operationId: 'postSavedGroupRevisionItemsAdd',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/items/add`,
    body: () => ({ items: ['e'] }),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write conditional on its change count' },
  },
  {
    operationId: 'postSavedGroupRevisionItemsRemove',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/items/remove`,
    body: () => ({ items: ['d'] }),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write conditional on its change count' },
  },
  {
    operationId: 'putSavedGroupRevisionArchive',
    method: 'PUT',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/archive`,
    body: () => ({ archived: false }),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write conditional on its change count' },
  },
  {
    operationId: 'putSavedGroupRevisionCondition',
    method: 'PUT',
    // The scenario's group is a list group; a condition needs a condition group.
    setup: () => ({
      path: `${v1}/saved-groups`,
      body: { name: 'Bench condition group', condition: '{"country":"US"}' },
      capture: (body, ids) => (ids.conditionGroupId = body.savedGroup.id),
    }),
    path: (ids) => `${v1}/saved-groups-revisions/${ids.conditionGroupId}/new/condition`,
    body: () => ({ condition: '{"country":"FR"}', revisionTitle: 'France' }),
    minimum: {
      calls: 7,
      why: 'group (the edit checked before a draft exists) + group + newest number (parallel) + one transaction creating the draft ("new") + group + draft (parallel) + draft write',
    },
  },
  {
    operationId: 'getSavedGroupRevisionMergeStatus',
    method: 'GET',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/merge-status`,
    minimum: { calls: 2, why: 'group + draft (parallel); the draft holds its base' },
  },
  {
    operationId: 'postSavedGroupRevisionRebase',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/rebase`,
    body: () => ({}),
    minimum: { calls: 3, why: 'group + draft (parallel) + one transaction (draft, group unchanged)' },
  },
  {
    operationId: 'postSavedGroupRevisionRequestReview',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/request-review`,
    body: () => ({}),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write' },
  },
  {
    operationId: 'postSavedGroupRevisionSubmitReview',
    method: 'POST',
    key: (ids) => ids.memberToken,
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/submit-review`,
    body: () => ({ decision: 'approve', comment: 'Looks good' }),
    minimum: { calls: 5, why: 'group + approval settings (parallel, for blockSelfApproval) + group + draft (parallel) + draft write' },
  },
  {
    operationId: 'postSavedGroupRevisionUndoReview',
    method: 'POST',
    key: (ids) => ids.memberToken,
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/undo-review`,
    body: () => ({}),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write' },
  },
  {
    operationId: 'postSavedGroupRevisionRecallReview',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/recall-review`,
    body: () => ({}),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write' },
  },
  {
    operationId: 'postSavedGroupRevisionSchedulePublish',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/schedule-publish`,
    body: () => ({ scheduledPublishAt: new Date(Date.now() + 86_400_000).toISOString() }),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write' },
  },
  {
    operationId: 'postSavedGroupRevisionPublish',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupDraft)}/publish`,
    body: () => ({}),
    minimum: {
      calls: 5,
      why: "group + draft + the group's open revisions (parallel, for lockOthers) + approval settings + one transaction (group, revision, payload references version)",
    },
  },
  {
    operationId: 'postSavedGroupRevisionRevert',
    method: 'POST',
    // As a draft: the scenario's organization lets reverts publish at once (revertsBypassApproval).
    capture: (body, ids) => (ids.groupRevertDraft = revisionRef(body.revision)),
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/1/revert`,
    body: () => ({ strategy: 'draft' }),
    minimum: {
      calls: 6,
      why: 'group + revision 1 (parallel) + settings + group + newest number (parallel) + one transaction (draft, group unchanged)',
    },
  },
  {
    operationId: 'postSavedGroupRevisionDiscard',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupRevertDraft)}/discard`,
    body: () => ({ reason: 'Bench' }),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write' },
  },
  {
    operationId: 'postSavedGroupRevisionReopen',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups-revisions/${ids.savedGroupId}/${numberOf(ids.groupRevertDraft)}/reopen`,
    body: () => ({}),
    minimum: { calls: 3, why: 'group + draft (parallel) + draft write' },
  },
  {
    operationId: 'listSavedGroupRevisions',
    method: 'GET',
    path: () => `${v1}/saved-groups-revisions?limit=5`,
    minimum: { calls: 2, why: "the organization's saved-group revisions (one Query of a key prefix) + their groups (BatchGet)" },
  },
  {
    operationId: 'getSavedGroupReferences',
    method: 'GET',
    path: (ids) => `${v1}/saved-groups/${ids.savedGroupId}/references`,
    minimum: { calls: 4, why: "group + the organization's features, experiments and saved groups (parallel Queries; no reference index)" },
  },
  {
    operationId: 'archiveSavedGroup',
    method: 'POST',
    // A feature's rule names the group: archiving it needs the acknowledgement.
    path: (ids) => `${v1}/saved-groups/${ids.savedGroupId}/archive`,
    body: () => ({ ignoreWarnings: true }),
    minimum: {
      calls: 7,
      why: 'group + approval settings + references (3 parallel Queries) + newest number + one transaction (group, merged revision, payload references version)',
    },
  },
  {
    operationId: 'unarchiveSavedGroup',
    method: 'POST',
    path: (ids) => `${v1}/saved-groups/${ids.savedGroupId}/unarchive`,
    minimum: { calls: 4, why: 'group + approval settings + newest number + one transaction (group, merged revision, payload references version)' },
  },
  // A ramp schedule through its whole lifecycle, each action valid in the status the one before left.
  {
    operationId: 'updateRampScheduleMonitoring',
    method: 'PUT',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/monitoring`,
    body: (ids) => ({
      datasourceId: scenarioDataSourceId,
      exposureQueryId: 'user_id',
      guardrailMetricIds: [ids.factMetricId],
      updateScheduleMinutes: 60,
    }),
    minimum: { calls: 4, why: 'data source + metrics (parallel), schedule + feature (project permission) + conditional write' },
  },
  {
    operationId: 'setMonitoringModeRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/set-monitoring-mode`,
    body: () => ({ monitoringMode: 'manual' }),
    minimum: { calls: 3, why: 'schedule + feature (project permission) + conditional write' },
  },
  {
    operationId: 'setAutoUpdateRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/set-auto-update`,
    body: () => ({ enabled: true }),
    minimum: { calls: 3, why: 'schedule + feature (project permission) + conditional write' },
  },
  {
    operationId: 'updateRampSchedule',
    method: 'PUT',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}`,
    // A third, monitored step at 40% (jumped to below, where a monitoring refresh runs).
    body: (ids) => ({
      name: 'Bench ramp, renamed',
      steps: [
        { interval: null, holdConditions: { requiresApproval: true }, actions: [{ patch: { ruleId: ids.ruleA, coverage: 0.5 } }], approvalNotes: 'Check the error rate' },
        { interval: 3600, actions: [{ patch: { ruleId: ids.ruleA, coverage: 1 } }] },
        { interval: 3600, actions: [{ patch: { ruleId: ids.ruleA, coverage: 0.4 } }], monitored: true },
      ],
    }),
    minimum: { calls: 3, why: 'schedule + feature (project permission) + conditional write' },
  },
  {
    operationId: 'updateRampScheduleSteps',
    method: 'PUT',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/steps`,
    body: () => ({
      steps: [
        { interval: null, holdConditions: { requiresApproval: true }, approvalNotes: 'Check the error rate' },
        { interval: 3600 },
        { interval: 3600, monitored: true },
      ],
    }),
    minimum: { calls: 3, why: 'schedule + feature (project permission) + one transaction (schedule, event)' },
  },
  {
    operationId: 'updateRampScheduleLockdown',
    method: 'PUT',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/lockdown`,
    body: () => ({ mode: 'locked' }),
    minimum: { calls: 3, why: 'schedule + feature (project permission) + one transaction (schedule, event)' },
  },
  {
    operationId: 'updateRampScheduleTemplate',
    method: 'PUT',
    path: (ids) => `${v1}/ramp-schedule-templates/${ids.rampTemplateId}`,
    body: () => ({ name: 'Bench ramp template, renamed' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'addTargetRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/add-target`,
    body: (ids) => ({ featureId: ids.featureId, ruleId: ids.ruleB, environment: 'production' }),
    minimum: { calls: 3, why: 'schedule + feature (rule exists, project) + one transaction (schedule, rule lock)' },
  },
  {
    operationId: 'startRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/start`,
    minimum: { calls: 4, why: 'schedule + feature + payload reads + one transaction (rules, revision, payload, schedule)' },
  },
  {
    operationId: 'approveStepRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/approve-step`,
    minimum: { calls: 4, why: 'schedule + feature + payload reads + one transaction (rules, revision, payload, schedule)' },
  },
  {
    operationId: 'pauseRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/pause`,
    minimum: { calls: 3, why: 'schedule + feature (project permission) + conditional write (no rule changes)' },
  },
  {
    operationId: 'resumeRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/resume`,
    minimum: { calls: 3, why: 'schedule + feature (project permission) + conditional write (nothing overdue)' },
  },
  {
    // Running at the second step after the resume: advance enters the monitored third (`force`, which the bench's key
    // may use, passes approval steps and changes nothing here); the jump below pauses it there.
    operationId: 'apiAdvanceRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/advance`,
    body: () => ({ force: true, reason: 'Bench' }),
    minimum: { calls: 4, why: 'schedule + feature + payload reads + one transaction (rules, revision, payload, schedule, events)' },
  },
  {
    operationId: 'jumpRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/jump`,
    body: () => ({ targetStepIndex: 2 }),
    minimum: { calls: 4, why: 'schedule + feature + payload reads + one transaction (rules, revision, payload, schedule)' },
  },
  {
    operationId: 'refreshMonitoringRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/refresh-monitoring`,
    minimum: { calls: 6, why: 'schedule + feature, data source + metrics + fact tables, one transaction (snapshot, watch, schedule)' },
  },
  {
    operationId: 'getRampScheduleStatus',
    method: 'GET',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/status`,
    // The refresh's snapshot runs on: it has finished once the status says so (nothing else changes after).
    settle: (ids) => ({
      path: `${v1}/ramp-schedules/${ids.rampScheduleId}/status`,
      done: (body) => !/^Waiting for snapshot/.test(body?.healthSummary?.decisionReason ?? ''),
    }),
    minimum: { calls: 2, why: 'one get by id + the snapshot in flight' },
  },
  {
    operationId: 'completeRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/complete`,
    minimum: { calls: 4, why: 'schedule + feature + payload reads + one transaction (rules, revision, payload, schedule)' },
  },
  {
    operationId: 'restartRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/restart`,
    minimum: { calls: 4, why: 'schedule + feature + payload reads + one transaction (rules, revision, payload, schedule, locks, event)' },
  },
  {
    operationId: 'rollbackRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/rollback`,
    minimum: { calls: 4, why: 'schedule + feature + payload reads + one transaction (rules, revision, payload, schedule)' },
  },
  {
    operationId: 'ejectTargetRampSchedule',
    method: 'POST',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}/actions/eject-target`,
    body: (ids) => ({ ruleId: ids.ruleB }),
    minimum: { calls: 3, why: 'schedule + feature (project permission) + one transaction (schedule, lock freed)' },
  },
  {
    operationId: 'toggleFeature',
    method: 'POST',
    path: (ids) => `${v1}/features/${ids.featureId}/toggle`,
    body: () => ({ environments: { production: false }, reason: 'Bench' }),
    minimum: {
      calls: 4,
      why: 'environments, the feature and the approval settings (parallel) + one transaction (feature, revision, payload entries)',
    },
  },
  {
    operationId: 'updateDimension',
    method: 'POST',
    path: (ids) => `${v1}/dimensions/${ids.dimensionId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateMetricGroup',
    method: 'PUT',
    path: (ids) => `${v1}/metric-groups/${ids.metricGroupId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version (no metrics or projects named)' },
  },
  {
    operationId: 'updateCustomField',
    method: 'PUT',
    path: (ids) => `${v1}/custom-fields/${ids.customFieldId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'putNamespace',
    method: 'PUT',
    path: (ids) => `${v1}/namespaces/${ids.namespaceId}`,
    body: () => ({ description: 'Updated by the bench' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'putExperimentSchedule',
    method: 'PUT',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/schedule`,
    body: () => ({}),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'putReportMetadata',
    method: 'PUT',
    path: (ids) => `${v1}/reports/${ids.reportId}/metadata`,
    body: () => ({ title: 'Bench report, final', status: 'published' }),
    minimum: { calls: 5, why: 'report + experiment + conditional write + its snapshot and results for the answer' },
  },
  {
    operationId: 'putReportSettings',
    method: 'PUT',
    path: (ids) => `${v1}/reports/${ids.reportId}/settings`,
    body: () => ({ statsEngine: 'frequentist' }),
    minimum: { calls: 6, why: 'report + experiment + metric check + conditional write + its snapshot and results for the answer' },
  },
  {
    operationId: 'postReportRefresh',
    method: 'POST',
    path: (ids) => `${v1}/reports/${ids.reportId}/refresh`,
    minimum: {
      calls: 7,
      why: 'report + experiment + data source and metrics + one transaction for the snapshot + conditional write + the new snapshot read',
    },
  },
  {
    operationId: 'postExperimentStop',
    method: 'POST',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/stop`,
    body: (ids) => ({ results: 'won', winnerVariationId: ids.variationId, enableTemporaryRollout: true }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'postReleasePublishRevisions',
    method: 'POST',
    path: () => `${v1}/releases/publish-revisions`,
    // A draft of its own (the scenario's other drafts have edits still to come), made outside the measurement.
    setup: (ids) => ({
      path: `${v2}/features/${ids.featureId}/revisions/new/rules`,
      body: { rule: { type: 'force', value: 'true', condition: '{"plan":"team"}', environments: ['production'] } },
      capture: (body, ids) => (ids.releaseDraftId = body.revision.id),
    }),
    body: (ids) => ({ revisions: [{ entityType: 'feature', revisionId: ids.releaseDraftId }], comment: 'Bench release' }),
    minimum: {
      calls: 6,
      why: 'environments + approval settings + features (parallel) + drafts + open siblings (parallel) + references checked + payload read + one transaction (features, revisions, payload, events)',
    },
  },
  {
    operationId: 'postExperimentModifyTemporaryRollout',
    method: 'POST',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/modify-temporary-rollout`,
    body: () => ({ enableTemporaryRollout: false }),
    // The report's refreshed snapshot, run in the background, ends before the steps after it.
    settle: (ids) => ({ path: `${v1}/reports/${ids.reportId}`, done: (body) => body?.report?.snapshotStatus !== 'running' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'updateFactTableVirtualColumn',
    method: 'POST',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/virtual-columns/double_vc`,
    body: () => ({ name: 'Doubled amount' }),
    minimum: { calls: 2, why: 'columns live in the table item: read + conditional write' },
  },
  {
    operationId: 'putMetric',
    method: 'PUT',
    path: (ids) => `${v1}/metrics/${ids.metricId}`,
    body: () => ({ name: 'Bench legacy metric, renamed' }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
];

/** Deletes, each after everything that names what it deletes. */
const deleting: Step[] = [
  {
    operationId: 'deleteVariationScreenshot',
    method: 'DELETE',
    path: (ids) => `${v1}/experiments/${ids.experimentId}/variation/${ids.variationId}/screenshot`,
    body: (ids) => ({ path: ids.screenshotPath }),
    minimum: { calls: 2, why: 'read + one transaction (the image is removed from S3 after)' },
  },
  {
    operationId: 'deleteUrlRedirect',
    method: 'DELETE',
    path: (ids) => `${v1}/url-redirects/${ids.urlRedirectId}`,
    minimum: {
      calls: 4,
      why: "redirect read + its experiment and the organization's redirects (parallel) + one transaction (delete, experiment flag)",
    },
  },
  {
    operationId: 'deleteRampScheduleTemplate',
    method: 'DELETE',
    path: (ids) => `${v1}/ramp-schedule-templates/${ids.rampTemplateId}`,
    minimum: { calls: 1, why: 'delete conditional on existence' },
  },
  {
    operationId: 'deleteRampSchedule',
    method: 'DELETE',
    path: (ids) => `${v1}/ramp-schedules/${ids.rampScheduleId}`,
    minimum: { calls: 3, why: 'schedule + feature (project permission) + one transaction (delete, locks freed)' },
  },
  {
    operationId: 'removeTeamMember',
    method: 'DELETE',
    path: (ids) => `${v1}/teams/${ids.teamId}/members`,
    body: (ids) => ({ members: [ids.memberId] }),
    minimum: { calls: 2, why: 'read + conditional write' },
  },
  {
    operationId: 'deleteTeam',
    method: 'DELETE',
    path: (ids) => `${v1}/teams/${ids.teamId}`,
    minimum: { calls: 2, why: 'read (members left?) + delete conditional on its version' },
  },
  {
    operationId: 'deleteDashboard',
    method: 'DELETE',
    path: (ids) => `${v1}/dashboards/${ids.dashboardId}`,
    minimum: { calls: 3, why: 'read + its experiment (project) + delete conditional on its version' },
  },
  {
    operationId: 'deleteExperimentTemplate',
    method: 'DELETE',
    path: (ids) => `${v1}/experiment-templates/${ids.templateId}`,
    minimum: { calls: 2, why: 'read (project permission) + delete conditional on its version' },
  },
  {
    operationId: 'deleteSdkConnection',
    method: 'DELETE',
    path: (ids) => `${v1}/sdk-connections/${ids.sdkConnectionId}`,
    minimum: { calls: 2, why: 'read (key) + one transaction (connection, key item)' },
  },
  {
    operationId: 'deleteFeatureRevisionRuleRampScheduleV2',
    method: 'DELETE',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.revertDraftId)}/rules/${ids.ruleB}/ramp-schedule`,
    minimum: { calls: 6, why: 'as the default value' },
  },
  {
    operationId: 'deleteFeatureRevisionLogEntryV2',
    method: 'DELETE',
    // The scenario's only comment entry is a verdict, which cannot be deleted: this entry is already gone.
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.draftId)}/log/frl_gone`,
    key: (ids) => ids.memberToken,
    minimum: { calls: 2, why: 'feature + revision (parallel); a missing entry is already deleted (as GrowthBook answers it), so nothing is written' },
  },
  {
    operationId: 'deleteFeatureRevisionRuleV2',
    method: 'DELETE',
    path: (ids) => `${v2}/features/${ids.featureId}/revisions/${versionOf(ids.revertDraftId)}/rules/${ids.ruleA}`,
    minimum: { calls: 5, why: 'as a draft default value edit, one read fewer: the rules left name no saved group' },
  },
  {
    operationId: 'deleteFeature',
    method: 'DELETE',
    path: (ids) => `${v1}/features/${ids.featureId}`,
    minimum: {
      calls: 3,
      why: "read + environments' parents, only when the feature is served (its child environments' entries go too) + one transaction (feature, its numbered revisions, list index)",
    },
  },
  {
    operationId: 'deleteFactMetric',
    method: 'DELETE',
    path: (ids) => `${v1}/fact-metrics/${ids.factMetricId}`,
    minimum: { calls: 2, why: 'read (project permission) + delete conditional on its version' },
  },
  {
    operationId: 'deleteFactTableVirtualColumn',
    method: 'DELETE',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/virtual-columns/double_vc`,
    minimum: { calls: 2, why: 'columns live in the table item: read + conditional write' },
  },
  {
    operationId: 'deleteMetric',
    method: 'DELETE',
    path: (ids) => `${v1}/metrics/${ids.metricId}`,
    minimum: { calls: 2, why: 'read (permission by its projects) + conditional delete' },
  },
  {
    operationId: 'deleteFactTableFilter',
    method: 'DELETE',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}/filters/${ids.factTableFilterId}`,
    minimum: { calls: 4, why: 'table read + users check (metrics, segments index keys) + conditional write' },
  },
  {
    operationId: 'deleteFactTable',
    method: 'DELETE',
    path: (ids) => `${v1}/fact-tables/${ids.factTableId}`,
    minimum: { calls: 4, why: 'read + users check (metrics, segments index keys) + conditional delete' },
  },
  {
    operationId: 'deleteDataSource',
    method: 'DELETE',
    path: (ids) => `${v1}/data-sources/${ids.dataSourceId}`,
    minimum: { calls: 6, why: 'read + users check (fact tables, experiments, segments index keys; templates) + conditional delete' },
  },
  {
    operationId: 'deleteSegment',
    method: 'DELETE',
    path: (ids) => `${v1}/segments/${ids.segmentId}`,
    minimum: { calls: 2, why: 'read (project permission) + delete conditional on its version' },
  },
  {
    operationId: 'deleteArchetype',
    method: 'DELETE',
    path: (ids) => `${v1}/archetypes/${ids.archetypeId}`,
    minimum: { calls: 2, why: 'read (project permission) + delete conditional on its version' },
  },
  {
    operationId: 'deleteAttribute',
    method: 'DELETE',
    path: (ids) => `${v1}/attributes/${ids.attributeProperty}`,
    minimum: { calls: 2, why: 'read (project permission) + delete conditional on its version' },
  },
  {
    operationId: 'deleteSavedGroup',
    method: 'DELETE',
    path: (ids) => `${v1}/saved-groups/${ids.savedGroupId}`,
    minimum: {
      calls: 6,
      why: 'read + conditional delete + environments + touch the payload date of each (3)',
    },
  },
  {
    operationId: 'deleteEnvironment',
    method: 'DELETE',
    path: (ids) => `${v1}/environments/${ids.environmentId}`,
    minimum: { calls: 2, why: 'children check (query) + conditional delete' },
  },
  {
    operationId: 'deleteProject',
    method: 'DELETE',
    path: (ids) => `${v1}/projects/${ids.projectId}`,
    minimum: { calls: 2, why: 'read (its publicId) + one transaction (project, publicId guard freed)' },
  },
  {
    operationId: 'deleteDimension',
    method: 'DELETE',
    path: (ids) => `${v1}/dimensions/${ids.dimensionId}`,
    minimum: { calls: 1, why: 'delete conditional on existence' },
  },
  {
    operationId: 'deleteMetricGroup',
    method: 'DELETE',
    path: (ids) => `${v1}/metric-groups/${ids.metricGroupId}`,
    minimum: { calls: 1, why: 'delete conditional on existence' },
  },
  {
    operationId: 'deleteCustomField',
    method: 'DELETE',
    path: (ids) => `${v1}/custom-fields/${ids.customFieldId}`,
    minimum: { calls: 1, why: 'delete conditional on existence' },
  },
  {
    operationId: 'deleteNamespace',
    method: 'DELETE',
    path: (ids) => `${v1}/namespaces/${ids.namespaceId}`,
    minimum: { calls: 3, why: 'read + in-use query (experiments list index) + delete conditional on its version' },
  },
  {
    operationId: 'deleteMember',
    method: 'DELETE',
    path: (ids) => `${v1}/members/${ids.memberId}`,
    minimum: { calls: 3, why: 'member read + teams query (membership), together + one transaction (member, e-mail, pointer, teams)' },
  },
];

export const scenario: Step[] = [...creating, ...updating, ...featureV2Steps, ...featureV2Deletes, ...deleting];
