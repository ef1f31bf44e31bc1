import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams } from './common';

export const DASHBOARD_GRID_COLUMNS = 24;

const layout = z.strictObject({
  x: z.int().check(z.gte(0), z.lte(DASHBOARD_GRID_COLUMNS - 1)),
  y: z.int().check(z.gte(0)),
  w: z.int().check(z.gte(1), z.lte(DASHBOARD_GRID_COLUMNS)),
  h: z.int().check(z.gte(1)),
  static: z.optional(z.boolean()),
});

/** Fields every block has, whatever its type. */
const blockBase = {
  title: z.string().check(z.maxLength(1024)),
  description: z.string().check(z.maxLength(10_000)),
  snapshotId: z.optional(z.string().check(z.maxLength(256))),
  layout: z.optional(layout),
};

const ids = z.array(z.string().check(z.maxLength(256))).check(z.maxLength(1000));
const differenceType = z.enum(['absolute', 'relative', 'scaled']);
const columnsFilter = z.array(
  z.enum(['Metric & Variation Names', 'Baseline Average', 'Variation Averages', 'Chance to Win', 'CI Graph', 'Lift']),
);
const sortBy = z.nullable(z.enum(['metrics', 'metricTags', 'significance', 'change']));
const sortDirection = z.nullable(z.enum(['asc', 'desc']));

// The block types a client can create, by `type`.

const markdownBlock = z.strictObject({ type: z.literal('markdown'), ...blockBase, content: z.string().check(z.maxLength(100_000)) });

const experimentMetadataBlock = z.strictObject({
  type: z.literal('experiment-metadata'),
  ...blockBase,
  experimentId: z.string().check(z.minLength(1)),
  showDescription: z.boolean(),
  showHypothesis: z.boolean(),
  showVariationImages: z.boolean(),
  variationIds: z.optional(ids),
});

const experimentMetricBlock = z.strictObject({
  type: z.literal('experiment-metric'),
  ...blockBase,
  snapshotId: z.string().check(z.maxLength(256)),
  experimentId: z.string().check(z.minLength(1)),
  metricIds: ids,
  variationIds: ids,
  baselineRow: z.int().check(z.gte(0)),
  differenceType,
  columnsFilter,
  sliceTagsFilter: ids,
  metricTagFilter: ids,
  sortBy,
  sortDirection,
});

const experimentDimensionBlock = z.strictObject({
  type: z.literal('experiment-dimension'),
  ...blockBase,
  snapshotId: z.string().check(z.maxLength(256)),
  experimentId: z.string().check(z.minLength(1)),
  dimensionId: z.string(),
  dimensionValues: ids,
  metricIds: ids,
  variationIds: ids,
  baselineRow: z.int().check(z.gte(0)),
  differenceType,
  columnsFilter,
  metricTagFilter: ids,
  sortBy,
  sortDirection,
});

const experimentTimeSeriesBlock = z.strictObject({
  type: z.literal('experiment-time-series'),
  ...blockBase,
  snapshotId: z.string().check(z.maxLength(256)),
  experimentId: z.string().check(z.minLength(1)),
  metricId: z.optional(z.string()),
  metricIds: ids,
  variationIds: ids,
  differenceType,
  sliceTagsFilter: ids,
  metricTagFilter: ids,
  sortBy,
  sortDirection,
});

const experimentTrafficBlock = z.strictObject({
  type: z.literal('experiment-traffic'),
  ...blockBase,
  experimentId: z.string().check(z.minLength(1)),
  showTable: z.boolean(),
  showTimeseries: z.boolean(),
});

const sqlExplorerBlock = z.strictObject({
  type: z.literal('sql-explorer'),
  ...blockBase,
  savedQueryId: z.string(),
  dataVizConfigIndex: z.optional(z.int().check(z.gte(0))),
  blockConfig: z.array(z.string()),
});

const metricExplorerBlock = z.strictObject({
  type: z.literal('metric-explorer'),
  ...blockBase,
  factMetricId: z.string().check(z.minLength(1)),
  visualizationType: z.enum(['histogram', 'bigNumber', 'timeseries']),
  valueType: z.enum(['avg', 'sum']),
  metricAnalysisId: z.string(),
  analysisSettings: z.strictObject({
    userIdType: z.string(),
    lookbackDays: z.number().check(z.gte(0)),
    populationType: z.enum(['metric', 'factTable', 'exposureQuery', 'population', 'segment']),
    populationId: z.nullable(z.string()),
    additionalNumeratorFilters: z.optional(ids),
    additionalDenominatorFilters: z.optional(ids),
    startDate: z.string(),
    endDate: z.string(),
  }),
});

// Exploration blocks: GrowthBook makes these by running an exploration, so a client never
// creates one; they appear in the dashboard shape and may be sent back unchanged on update.

const rowFilter = z.strictObject({
  operator: z.enum([
    '=', '!=', '<', '<=', '>', '>=', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with',
    'is_null', 'not_null', 'is_true', 'is_false', 'sql_expr', 'saved_filter',
  ]),
  column: z.optional(z.string()),
  values: z.optional(z.array(z.string())),
});

const explorationDimension = z.discriminatedUnion('dimensionType', [
  z.strictObject({
    dimensionType: z.literal('date'),
    column: z.nullable(z.string()),
    dateGranularity: z.enum(['auto', 'hour', 'day', 'week', 'month', 'year']),
  }),
  z.strictObject({ dimensionType: z.literal('dynamic'), column: z.nullable(z.string()), maxValues: z.number() }),
  z.strictObject({ dimensionType: z.literal('static'), column: z.string(), values: z.array(z.string()) }),
  z.strictObject({
    dimensionType: z.literal('slice'),
    slices: z.array(z.strictObject({ name: z.string(), filters: z.array(rowFilter) })),
  }),
]);

const explorationDateRange = z.strictObject({
  predefined: z.enum(['today', 'last7Days', 'last30Days', 'last90Days', 'customLookback', 'customDateRange']),
  lookbackValue: z.optional(z.nullable(z.number())),
  lookbackUnit: z.optional(z.nullable(z.enum(['hour', 'day', 'week', 'month']))),
  startDate: z.optional(z.nullable(z.string())),
  endDate: z.optional(z.nullable(z.string())),
});

/** The config of an exploration over `dataset`, whose kind `type` names. */
const explorationConfig = <T extends string, D extends z.ZodMiniType>(type: T, dataset: D) =>
  z.strictObject({
    datasource: z.string(),
    dimensions: z.array(explorationDimension),
    chartType: z.enum([
      'line', 'area', 'timeseries-table', 'table', 'bar', 'stackedBar', 'horizontalBar', 'stackedHorizontalBar', 'bigNumber',
    ]),
    dateRange: explorationDateRange,
    showAs: z.optional(z.enum(['total', 'per_unit'])),
    type: z.literal(type),
    dataset,
  });

const valueType = z.enum(['unit_count', 'count', 'sum']);

const metricDataset = z.strictObject({
  type: z.literal('metric'),
  values: z.array(
    z.strictObject({
      name: z.string(),
      rowFilters: z.array(rowFilter),
      type: z.literal('metric'),
      metricId: z.string(),
      unit: z.nullable(z.string()),
      denominatorUnit: z.nullable(z.string()),
    }),
  ),
});

const factTableDataset = z.strictObject({
  type: z.literal('fact_table'),
  factTableId: z.nullable(z.string()),
  values: z.array(
    z.strictObject({
      name: z.string(),
      rowFilters: z.array(rowFilter),
      type: z.literal('fact_table'),
      valueType,
      valueColumn: z.nullable(z.string()),
      unit: z.nullable(z.string()),
    }),
  ),
});

const dataSourceDataset = z.strictObject({
  type: z.literal('data_source'),
  table: z.string(),
  path: z.string(),
  timestampColumn: z.string(),
  columnTypes: z.record(z.string(), z.enum(['string', 'number', 'date', 'boolean', 'other'])),
  values: z.array(
    z.strictObject({
      name: z.string(),
      rowFilters: z.array(rowFilter),
      type: z.literal('data_source'),
      valueType,
      valueColumn: z.nullable(z.string()),
      unit: z.nullable(z.string()),
    }),
  ),
});

const explorationBlock = <T extends string, C extends z.ZodMiniType>(type: T, config: C) =>
  z.strictObject({ type: z.literal(type), ...blockBase, explorerAnalysisId: z.string(), config });

const metricExplorationBlock = explorationBlock('metric-exploration', explorationConfig('metric', metricDataset));
const factTableExplorationBlock = explorationBlock('fact-table-exploration', explorationConfig('fact_table', factTableDataset));
const dataSourceExplorationBlock = explorationBlock('data-source-exploration', explorationConfig('data_source', dataSourceDataset));

/** The identity the server gives a block. */
const identity = { organization: z.string(), id: z.string(), uid: z.string() };
const optionalIdentity = { organization: z.optional(z.string()), id: z.optional(z.string()), uid: z.optional(z.string()) };

/** A block a client sends to create, validated by its `type`. */
export const newBlock = z.discriminatedUnion('type', [
  markdownBlock,
  experimentMetadataBlock,
  experimentMetricBlock,
  experimentDimensionBlock,
  experimentTimeSeriesBlock,
  experimentTrafficBlock,
  sqlExplorerBlock,
  metricExplorerBlock,
]);
export type NewBlock = z.infer<typeof newBlock>;

/** A block as stored and shown: its content and the identity the server gave it. */
export const dashboardBlock = z.discriminatedUnion('type', [
  z.extend(markdownBlock, identity),
  z.extend(experimentMetadataBlock, identity),
  z.extend(experimentMetricBlock, identity),
  z.extend(experimentDimensionBlock, identity),
  z.extend(experimentTimeSeriesBlock, identity),
  z.extend(experimentTrafficBlock, identity),
  z.extend(sqlExplorerBlock, identity),
  z.extend(metricExplorerBlock, identity),
  z.extend(metricExplorationBlock, identity),
  z.extend(factTableExplorationBlock, identity),
  z.extend(dataSourceExplorationBlock, identity),
]);
export type DashboardBlock = z.infer<typeof dashboardBlock>;

/**
 * A block in an update, validated by its `type`: a new one (no identity, a type a client can
 * create) or one of this dashboard's blocks sent back with its identity; the handler checks which.
 */
export const updateBlock = z.discriminatedUnion('type', [
  z.extend(markdownBlock, optionalIdentity),
  z.extend(experimentMetadataBlock, optionalIdentity),
  z.extend(experimentMetricBlock, optionalIdentity),
  z.extend(experimentDimensionBlock, optionalIdentity),
  z.extend(experimentTimeSeriesBlock, optionalIdentity),
  z.extend(experimentTrafficBlock, optionalIdentity),
  z.extend(sqlExplorerBlock, optionalIdentity),
  z.extend(metricExplorerBlock, optionalIdentity),
  z.extend(metricExplorationBlock, optionalIdentity),
  z.extend(factTableExplorationBlock, optionalIdentity),
  z.extend(dataSourceExplorationBlock, optionalIdentity),
]);
export type UpdateBlock = z.infer<typeof updateBlock>;

/** Block types a client may create; the others come only from running an exploration. */
export const creatableBlockTypes: string[] = newBlock.def.options.map((option) => option.shape.type.def.values[0]);

const editLevel = z.enum(['published', 'private']);
const updateSchedule = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('stale'), hours: z.number().check(z.positive()) }),
  z.strictObject({ type: z.literal('cron'), cron: z.string().check(z.minLength(1), z.maxLength(256)) }),
]);

export const dashboard = z.strictObject({
  id: z.string(),
  uid: z.string(),
  organization: z.string(),
  experimentId: z.optional(z.string()),
  isDefault: z.boolean(),
  isDeleted: z.boolean(),
  userId: z.string(),
  editLevel,
  shareLevel: editLevel,
  enableAutoUpdates: z.boolean(),
  updateSchedule: z.optional(updateSchedule),
  title: z.string(),
  grid: z.optional(
    z.strictObject({ cols: z.int().check(z.gte(1), z.lte(DASHBOARD_GRID_COLUMNS)), rowHeight: z.int().check(z.gte(8)) }),
  ),
  projects: z.optional(z.array(z.string())),
  nextUpdate: z.optional(z.string()),
  lastUpdated: z.optional(z.string()),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  blocks: z.array(dashboardBlock),
});
export type Dashboard = z.infer<typeof dashboard>;

const title = z.string().check(z.trim(), z.minLength(1), z.maxLength(1024));
const projects = z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(100));
const dashboardResponse = z.object({ dashboard });
const dashboardsResponse = z.object({ dashboards: z.array(dashboard) });

export const listDashboards = defineEndpoint({
  operationId: 'listDashboards',
  method: 'GET',
  path: '/dashboards',
  summary: 'List dashboards',
  tag: 'dashboards',
  permission: 'read',
  projectScoped: true,
  // No filters: an unknown query parameter is refused like on every list.
  query: z.object({}),
  response: dashboardsResponse,
});

export const createDashboard = defineEndpoint({
  operationId: 'createDashboard',
  method: 'POST',
  path: '/dashboards',
  summary: 'Create a dashboard',
  tag: 'dashboards',
  permission: 'manageGeneralDashboards',
  projectScoped: true,
  body: z.strictObject({
    title,
    editLevel,
    shareLevel: editLevel,
    enableAutoUpdates: z.boolean(),
    updateSchedule: z.optional(updateSchedule),
    experimentId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    projects: z.optional(projects),
    blocks: z.array(newBlock).check(z.maxLength(200)),
  }),
  response: dashboardResponse,
});

export const getDashboard = defineEndpoint({
  operationId: 'getDashboard',
  method: 'GET',
  path: '/dashboards/{id}',
  summary: 'Get a dashboard',
  tag: 'dashboards',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: dashboardResponse,
});

export const updateDashboard = defineEndpoint({
  operationId: 'updateDashboard',
  method: 'PUT',
  path: '/dashboards/{id}',
  summary: 'Partially update a dashboard',
  tag: 'dashboards',
  permission: 'manageGeneralDashboards',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    title: z.optional(title),
    editLevel: z.optional(editLevel),
    shareLevel: z.optional(editLevel),
    enableAutoUpdates: z.optional(z.boolean()),
    updateSchedule: z.optional(updateSchedule),
    projects: z.optional(projects),
    blocks: z.optional(z.array(updateBlock).check(z.maxLength(200))),
  }),
  response: dashboardResponse,
});

export const deleteDashboard = defineEndpoint({
  operationId: 'deleteDashboard',
  method: 'DELETE',
  path: '/dashboards/{id}',
  summary: 'Delete a dashboard',
  tag: 'dashboards',
  permission: 'manageGeneralDashboards',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const getDashboardsForExperiment = defineEndpoint({
  operationId: 'getDashboardsForExperiment',
  method: 'GET',
  path: '/dashboards/by-experiment/{experimentId}',
  summary: "List an experiment's dashboards",
  tag: 'dashboards',
  permission: 'read',
  projectScoped: true,
  params: z.object({ experimentId: z.string().check(z.minLength(1), z.maxLength(256)) }),
  response: dashboardsResponse,
});

export const dashboardEndpoints = [
  listDashboards,
  createDashboard,
  getDashboard,
  updateDashboard,
  deleteDashboard,
  getDashboardsForExperiment,
];
