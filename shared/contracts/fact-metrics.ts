import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

export const metricTypes = ['proportion', 'retention', 'mean', 'quantile', 'ratio', 'dailyParticipation'] as const;
export type MetricType = (typeof metricTypes)[number];

const aggregation = z.enum(['sum', 'max', 'count distinct', 'hll merge', 'kll merge']);
const rowFilterOperator = z.enum([
  '=',
  '!=',
  '>',
  '<',
  '>=',
  '<=',
  'in',
  'not_in',
  'is_null',
  'not_null',
  'is_true',
  'is_false',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'sql_expr',
  'saved_filter',
]);
export type RowFilterOperator = z.infer<typeof rowFilterOperator>;
const windowUnit = z.enum(['minutes', 'hours', 'days', 'weeks']);
const managedBy = z.enum(['', 'api', 'admin']);

const rowFilter = z.object({
  operator: rowFilterOperator,
  values: z.array(z.string()).optional(),
  column: z.string().optional(),
});
const inlineFilters = z.record(z.string(), z.array(z.string()));
const quantileSettings = z.object({
  type: z.enum(['event', 'unit']),
  ignoreZeros: z.boolean(),
  quantile: z.number(),
  quantileEventCountColumn: z.string().optional(),
});
const cappingSettings = z.object({
  type: z.enum(['none', 'absolute', 'percentile']),
  value: z.number().optional(),
  ignoreZeros: z.boolean().optional(),
});
const windowSettings = z.object({
  type: z.enum(['none', 'conversion', 'lookback']),
  delayValue: z.number().optional(),
  delayUnit: windowUnit.optional(),
  windowValue: z.number().optional(),
  windowUnit: windowUnit.optional(),
});
const priorSettings = z.object({ override: z.boolean(), proper: z.boolean(), mean: z.number(), stddev: z.number() });
const regressionAdjustmentSettings = z.object({
  override: z.boolean(),
  enabled: z.boolean().optional(),
  days: z.number().optional(),
});

export const factMetric = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  ownerEmail: z.string().optional(),
  projects: z.array(z.string()),
  tags: z.array(z.string()),
  datasource: z.string(),
  metricType: z.enum(metricTypes),
  numerator: z.object({
    factTableId: z.string(),
    column: z.string(),
    aggregation: aggregation.optional(),
    filters: z.array(z.string()).optional(),
    inlineFilters: inlineFilters.optional(),
    rowFilters: z.array(rowFilter).optional(),
    aggregateFilterColumn: z.string().optional(),
    aggregateFilter: z.string().optional(),
  }),
  denominator: z
    .object({
      factTableId: z.string(),
      column: z.string(),
      filters: z.array(z.string()).optional(),
      inlineFilters: inlineFilters.optional(),
      rowFilters: z.array(rowFilter).optional(),
    })
    .optional(),
  inverse: z.boolean(),
  quantileSettings: quantileSettings.optional(),
  cappingSettings,
  windowSettings,
  priorSettings,
  regressionAdjustmentSettings,
  riskThresholdSuccess: z.number(),
  riskThresholdDanger: z.number(),
  displayAsPercentage: z.boolean().optional(),
  minPercentChange: z.number(),
  maxPercentChange: z.number(),
  minSampleSize: z.number(),
  targetMDE: z.number(),
  managedBy,
  dateCreated: z.string(),
  dateUpdated: z.string(),
  archived: z.boolean().optional(),
  metricAutoSlices: z.array(z.string()).optional(),
});
export type FactMetric = z.infer<typeof factMetric>;

// Request shapes: strict, bounded, with the rules the reference document states.
const column = z.string().trim().max(256);
const rowFilterInput = z.strictObject({
  operator: rowFilterOperator,
  values: stringList.optional(),
  column: column.min(1).optional(),
});
const sideInput = {
  factTableId: z.string().min(1).max(256),
  aggregation: aggregation.optional(),
  filters: stringList.optional(),
  inlineFilters: z.record(z.string().max(256), stringList).optional(),
  rowFilters: z.array(rowFilterInput).max(100).optional(),
};
const numeratorInput = z.strictObject({
  ...sideInput,
  column: column.optional(),
  aggregateFilterColumn: column.min(1).optional(),
  aggregateFilter: z.string().trim().min(1).max(256).optional(),
});
const denominatorInput = z.strictObject({ ...sideInput, column: column.min(1) });
const nonNegative = z.number().min(0);

const metricFields = {
  name: z.string().trim().min(1).max(256),
  description: z.string().max(10_000).optional(),
  owner: z.string().max(256).optional(),
  projects: stringList.optional(),
  tags: stringList.optional(),
  metricType: z.enum(metricTypes),
  numerator: numeratorInput,
  denominator: denominatorInput.optional(),
  inverse: z.boolean().optional(),
  quantileSettings: z
    .strictObject({
      type: z.enum(['event', 'unit']),
      ignoreZeros: z.boolean(),
      quantile: z.number().min(0.001).max(0.999).multipleOf(0.001),
      quantileEventCountColumn: column.min(1).optional(),
    })
    .optional(),
  cappingSettings: z
    .strictObject({
      type: z.enum(['none', 'absolute', 'percentile']),
      value: nonNegative.optional(),
      ignoreZeros: z.boolean().optional(),
    })
    .optional(),
  windowSettings: z
    .strictObject({
      type: z.enum(['none', 'conversion', 'lookback']),
      delayHours: z.number().optional(),
      delayValue: z.number().optional(),
      delayUnit: windowUnit.optional(),
      windowValue: nonNegative.optional(),
      windowUnit: windowUnit.optional(),
    })
    .optional(),
  priorSettings: z
    .strictObject({ override: z.boolean(), proper: z.boolean(), mean: z.number(), stddev: z.number().gt(0) })
    .optional(),
  regressionAdjustmentSettings: z
    .strictObject({ override: z.boolean(), enabled: z.boolean().optional(), days: nonNegative.optional() })
    .optional(),
  riskThresholdSuccess: nonNegative.optional(),
  riskThresholdDanger: nonNegative.optional(),
  displayAsPercentage: z.boolean().optional(),
  minPercentChange: nonNegative.optional(),
  maxPercentChange: nonNegative.optional(),
  minSampleSize: nonNegative.optional(),
  targetMDE: nonNegative.optional(),
  managedBy: managedBy.optional(),
  metricAutoSlices: stringList.optional(),
};

/** Body of a new fact metric. */
export const factMetricCreateBody = z.strictObject(metricFields);
/** `data` of a bulk-imported fact metric: a new one's fields, plus `archived`. */
export const factMetricImportBody = z.strictObject({ ...metricFields, archived: z.boolean().optional() });
export type FactMetricInput = z.infer<typeof factMetricImportBody>;

const factMetricUpdateBody = factMetricImportBody.partial();
export type FactMetricUpdate = z.infer<typeof factMetricUpdateBody>;

const factMetricResponse = z.object({ factMetric });

export const listFactMetrics = defineEndpoint({
  operationId: 'listFactMetrics',
  method: 'GET',
  path: '/fact-metrics',
  summary: 'List fact metrics',
  tag: 'fact-metrics',
  permission: 'read',
  query: paginationQuery.extend({
    datasourceId: z.string().min(1).max(256).optional(),
    projectId: z.string().min(1).max(256).optional(),
    factTableId: z.string().min(1).max(256).optional(),
  }),
  response: z.object({ factMetrics: z.array(factMetric) }).extend(paginationFields.shape),
});

export const postFactMetric = defineEndpoint({
  operationId: 'postFactMetric',
  method: 'POST',
  path: '/fact-metrics',
  summary: 'Create a fact metric',
  tag: 'fact-metrics',
  permission: 'manageFactMetrics',
  projectScoped: true,
  body: factMetricCreateBody,
  response: factMetricResponse,
});

export const getFactMetric = defineEndpoint({
  operationId: 'getFactMetric',
  method: 'GET',
  path: '/fact-metrics/{id}',
  summary: 'Get a fact metric',
  tag: 'fact-metrics',
  permission: 'read',
  params: idParams,
  response: factMetricResponse,
});

export const updateFactMetric = defineEndpoint({
  operationId: 'updateFactMetric',
  method: 'POST',
  path: '/fact-metrics/{id}',
  summary: 'Partially update a fact metric',
  tag: 'fact-metrics',
  permission: 'manageFactMetrics',
  projectScoped: true,
  params: idParams,
  body: factMetricUpdateBody,
  response: factMetricResponse,
});

export const deleteFactMetric = defineEndpoint({
  operationId: 'deleteFactMetric',
  method: 'DELETE',
  path: '/fact-metrics/{id}',
  summary: 'Delete a fact metric',
  tag: 'fact-metrics',
  permission: 'manageFactMetrics',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const factMetricEndpoints = [listFactMetrics, postFactMetric, getFactMetric, updateFactMetric, deleteFactMetric];
