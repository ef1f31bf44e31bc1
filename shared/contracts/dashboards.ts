import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams } from './common';

export const DASHBOARD_GRID_COLUMNS = 24;

const layout = z.strictObject({
  x: z.number().int().min(0).max(DASHBOARD_GRID_COLUMNS - 1),
  y: z.number().int().min(0),
  w: z.number().int().min(1).max(DASHBOARD_GRID_COLUMNS),
  h: z.number().int().min(1),
  static: z.boolean().optional(),
});

/** Fields every block has, whatever its type. */
const blockBase = {
  title: z.string().max(1024),
  description: z.string().max(10_000),
  snapshotId: z.string().max(256).optional(),
  layout: layout.optional(),
};

const ids = z.array(z.string().max(256)).max(1000);
const differenceType = z.enum(['absolute', 'relative', 'scaled']);
const columnsFilter = z.array(
  z.enum(['Metric & Variation Names', 'Baseline Average', 'Variation Averages', 'Chance to Win', 'CI Graph', 'Lift']),
);
const sortBy = z.enum(['metrics', 'metricTags', 'significance', 'change']).nullable();
const sortDirection = z.enum(['asc', 'desc']).nullable();

// The block types a client can create, by `type`.

const markdownBlock = z.strictObject({ type: z.literal('markdown'), ...blockBase, content: z.string().max(100_000) });

const experimentMetadataBlock = z.strictObject({
  type: z.literal('experiment-metadata'),
  ...blockBase,
  experimentId: z.string().min(1),
  showDescription: z.boolean(),
  showHypothesis: z.boolean(),
  showVariationImages: z.boolean(),
  variationIds: ids.optional(),
});

const experimentMetricBlock = z.strictObject({
  type: z.literal('experiment-metric'),
  ...blockBase,
  snapshotId: z.string().max(256),
  experimentId: z.string().min(1),
  metricIds: ids,
  variationIds: ids,
  baselineRow: z.number().int().min(0),
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
  snapshotId: z.string().max(256),
  experimentId: z.string().min(1),
  dimensionId: z.string(),
  dimensionValues: ids,
  metricIds: ids,
  variationIds: ids,
  baselineRow: z.number().int().min(0),
  differenceType,
  columnsFilter,
  metricTagFilter: ids,
  sortBy,
  sortDirection,
});

const experimentTimeSeriesBlock = z.strictObject({
  type: z.literal('experiment-time-series'),
  ...blockBase,
  snapshotId: z.string().max(256),
  experimentId: z.string().min(1),
  metricId: z.string().optional(),
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
  experimentId: z.string().min(1),
  showTable: z.boolean(),
  showTimeseries: z.boolean(),
});

const sqlExplorerBlock = z.strictObject({
  type: z.literal('sql-explorer'),
  ...blockBase,
  savedQueryId: z.string(),
  dataVizConfigIndex: z.number().int().min(0).optional(),
  blockConfig: z.array(z.string()),
});

const metricExplorerBlock = z.strictObject({
  type: z.literal('metric-explorer'),
  ...blockBase,
  factMetricId: z.string().min(1),
  visualizationType: z.enum(['histogram', 'bigNumber', 'timeseries']),
  valueType: z.enum(['avg', 'sum']),
  metricAnalysisId: z.string(),
  analysisSettings: z.strictObject({
    userIdType: z.string(),
    lookbackDays: z.number().min(0),
    populationType: z.enum(['metric', 'factTable', 'exposureQuery', 'population', 'segment']),
    populationId: z.string().nullable(),
    additionalNumeratorFilters: ids.optional(),
    additionalDenominatorFilters: ids.optional(),
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
  column: z.string().optional(),
  values: z.array(z.string()).optional(),
});

const explorationDimension = z.discriminatedUnion('dimensionType', [
  z.strictObject({
    dimensionType: z.literal('date'),
    column: z.string().nullable(),
    dateGranularity: z.enum(['auto', 'hour', 'day', 'week', 'month', 'year']),
  }),
  z.strictObject({ dimensionType: z.literal('dynamic'), column: z.string().nullable(), maxValues: z.number() }),
  z.strictObject({ dimensionType: z.literal('static'), column: z.string(), values: z.array(z.string()) }),
  z.strictObject({
    dimensionType: z.literal('slice'),
    slices: z.array(z.strictObject({ name: z.string(), filters: z.array(rowFilter) })),
  }),
]);

const explorationDateRange = z.strictObject({
  predefined: z.enum(['today', 'last7Days', 'last30Days', 'last90Days', 'customLookback', 'customDateRange']),
  lookbackValue: z.number().nullable().optional(),
  lookbackUnit: z.enum(['hour', 'day', 'week', 'month']).nullable().optional(),
  startDate: z.string().nullable().optional(),
  endDate: z.string().nullable().optional(),
});

/** The config of an exploration over `dataset`, whose kind `type` names. */
const explorationConfig = <T extends string, D extends z.ZodType>(type: T, dataset: D) =>
  z.strictObject({
    datasource: z.string(),
    dimensions: z.array(explorationDimension),
    chartType: z.enum([
      'line', 'area', 'timeseries-table', 'table', 'bar', 'stackedBar', 'horizontalBar', 'stackedHorizontalBar', 'bigNumber',
    ]),
    dateRange: explorationDateRange,
    showAs: z.enum(['total', 'per_unit']).optional(),
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
      unit: z.string().nullable(),
      denominatorUnit: z.string().nullable(),
    }),
  ),
});

const factTableDataset = z.strictObject({
  type: z.literal('fact_table'),
  factTableId: z.string().nullable(),
  values: z.array(
    z.strictObject({
      name: z.string(),
      rowFilters: z.array(rowFilter),
      type: z.literal('fact_table'),
      valueType,
      valueColumn: z.string().nullable(),
      unit: z.string().nullable(),
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
      valueColumn: z.string().nullable(),
      unit: z.string().nullable(),
    }),
  ),
});

const explorationBlock = <T extends string, C extends z.ZodType>(type: T, config: C) =>
  z.strictObject({ type: z.literal(type), ...blockBase, explorerAnalysisId: z.string(), config });

const metricExplorationBlock = explorationBlock('metric-exploration', explorationConfig('metric', metricDataset));
const factTableExplorationBlock = explorationBlock('fact-table-exploration', explorationConfig('fact_table', factTableDataset));
const dataSourceExplorationBlock = explorationBlock('data-source-exploration', explorationConfig('data_source', dataSourceDataset));

/** The identity the server gives a block. */
const identity = { organization: z.string(), id: z.string(), uid: z.string() };
const optionalIdentity = { organization: z.string().optional(), id: z.string().optional(), uid: z.string().optional() };

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
  markdownBlock.extend(identity),
  experimentMetadataBlock.extend(identity),
  experimentMetricBlock.extend(identity),
  experimentDimensionBlock.extend(identity),
  experimentTimeSeriesBlock.extend(identity),
  experimentTrafficBlock.extend(identity),
  sqlExplorerBlock.extend(identity),
  metricExplorerBlock.extend(identity),
  metricExplorationBlock.extend(identity),
  factTableExplorationBlock.extend(identity),
  dataSourceExplorationBlock.extend(identity),
]);
export type DashboardBlock = z.infer<typeof dashboardBlock>;

/**
 * A block in an update, validated by its `type`: a new one (no identity, a type a client can
 * create) or one of this dashboard's blocks sent back with its identity; the handler checks which.
 */
export const updateBlock = z.discriminatedUnion('type', [
  markdownBlock.extend(optionalIdentity),
  experimentMetadataBlock.extend(optionalIdentity),
  experimentMetricBlock.extend(optionalIdentity),
  experimentDimensionBlock.extend(optionalIdentity),
  experimentTimeSeriesBlock.extend(optionalIdentity),
  experimentTrafficBlock.extend(optionalIdentity),
  sqlExplorerBlock.extend(optionalIdentity),
  metricExplorerBlock.extend(optionalIdentity),
  metricExplorationBlock.extend(optionalIdentity),
  factTableExplorationBlock.extend(optionalIdentity),
  dataSourceExplorationBlock.extend(optionalIdentity),
]);
export type UpdateBlock = z.infer<typeof updateBlock>;

/** Block types a client may create; the others come only from running an exploration. */
export const creatableBlockTypes: string[] = newBlock.options.map((option) => option.shape.type.value);

const editLevel = z.enum(['published', 'private']);
const updateSchedule = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('stale'), hours: z.number().positive() }),
  z.strictObject({ type: z.literal('cron'), cron: z.string().min(1).max(256) }),
]);

export const dashboard = z.strictObject({
  id: z.string(),
  uid: z.string(),
  organization: z.string(),
  experimentId: z.string().optional(),
  isDefault: z.boolean(),
  isDeleted: z.boolean(),
  userId: z.string(),
  editLevel,
  shareLevel: editLevel,
  enableAutoUpdates: z.boolean(),
  updateSchedule: updateSchedule.optional(),
  title: z.string(),
  grid: z
    .strictObject({ cols: z.number().int().min(1).max(DASHBOARD_GRID_COLUMNS), rowHeight: z.number().int().min(8) })
    .optional(),
  projects: z.array(z.string()).optional(),
  nextUpdate: z.string().optional(),
  lastUpdated: z.string().optional(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  blocks: z.array(dashboardBlock),
});
export type Dashboard = z.infer<typeof dashboard>;

const title = z.string().trim().min(1).max(1024);
const projects = z.array(z.string().min(1).max(256)).max(100);
const dashboardResponse = z.object({ dashboard });
const dashboardsResponse = z.object({ dashboards: z.array(dashboard) });

export const listDashboards = defineEndpoint({
  operationId: 'listDashboards',
  method: 'GET',
  path: '/dashboards',
  summary: 'List dashboards',
  tag: 'dashboards',
  permission: 'read',
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
    updateSchedule: updateSchedule.optional(),
    experimentId: z.string().min(1).max(256).optional(),
    projects: projects.optional(),
    blocks: z.array(newBlock).max(200),
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
    title: title.optional(),
    editLevel: editLevel.optional(),
    shareLevel: editLevel.optional(),
    enableAutoUpdates: z.boolean().optional(),
    updateSchedule: updateSchedule.optional(),
    projects: projects.optional(),
    blocks: z.array(updateBlock).max(200).optional(),
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
  params: z.object({ experimentId: z.string().min(1).max(256) }),
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
