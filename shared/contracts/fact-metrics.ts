import * as z from './zod';
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
  values: z.optional(z.array(z.string())),
  column: z.optional(z.string()),
});
const inlineFilters = z.record(z.string(), z.array(z.string()));
const quantileSettings = z.object({
  type: z.enum(['event', 'unit']),
  ignoreZeros: z.boolean(),
  quantile: z.number(),
  quantileEventCountColumn: z.optional(z.string()),
});
const cappingSettings = z.object({
  type: z.enum(['none', 'absolute', 'percentile']),
  value: z.optional(z.number()),
  ignoreZeros: z.optional(z.boolean()),
});
const windowSettings = z.object({
  type: z.enum(['none', 'conversion', 'lookback']),
  delayValue: z.optional(z.number()),
  delayUnit: z.optional(windowUnit),
  windowValue: z.optional(z.number()),
  windowUnit: z.optional(windowUnit),
});
const priorSettings = z.object({ override: z.boolean(), proper: z.boolean(), mean: z.number(), stddev: z.number() });
const regressionAdjustmentSettings = z.object({
  override: z.boolean(),
  enabled: z.optional(z.boolean()),
  days: z.optional(z.number()),
});

export const factMetric = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  projects: z.array(z.string()),
  tags: z.array(z.string()),
  datasource: z.string(),
  metricType: z.enum(metricTypes),
  numerator: z.object({
    factTableId: z.string(),
    column: z.string(),
    aggregation: z.optional(aggregation),
    filters: z.optional(z.array(z.string())),
    inlineFilters: z.optional(inlineFilters),
    rowFilters: z.optional(z.array(rowFilter)),
    aggregateFilterColumn: z.optional(z.string()),
    aggregateFilter: z.optional(z.string()),
  }),
  denominator: z.optional(
    z.object({
      factTableId: z.string(),
      column: z.string(),
      filters: z.optional(z.array(z.string())),
      inlineFilters: z.optional(inlineFilters),
      rowFilters: z.optional(z.array(rowFilter)),
    }),
  ),
  inverse: z.boolean(),
  quantileSettings: z.optional(quantileSettings),
  cappingSettings,
  windowSettings,
  priorSettings,
  regressionAdjustmentSettings,
  riskThresholdSuccess: z.number(),
  riskThresholdDanger: z.number(),
  displayAsPercentage: z.optional(z.boolean()),
  minPercentChange: z.number(),
  maxPercentChange: z.number(),
  minSampleSize: z.number(),
  targetMDE: z.number(),
  managedBy,
  dateCreated: z.string(),
  dateUpdated: z.string(),
  archived: z.optional(z.boolean()),
  metricAutoSlices: z.optional(z.array(z.string())),
});
export type FactMetric = z.infer<typeof factMetric>;

// Request shapes: strict, bounded, with the rules the reference document states.
const column = z.string().check(z.trim(), z.maxLength(256));
const rowFilterInput = z.strictObject({
  operator: rowFilterOperator,
  values: z.optional(stringList),
  column: z.optional(column.check(z.minLength(1))),
});
const sideInput = {
  factTableId: z.string().check(z.minLength(1), z.maxLength(256)),
  aggregation: z.optional(aggregation),
  filters: z.optional(stringList),
  inlineFilters: z.optional(z.record(z.string().check(z.maxLength(256)), stringList)),
  rowFilters: z.optional(z.array(rowFilterInput).check(z.maxLength(100))),
};
const numeratorInput = z.strictObject({
  ...sideInput,
  column: z.optional(column),
  aggregateFilterColumn: z.optional(column.check(z.minLength(1))),
  aggregateFilter: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
});
const denominatorInput = z.strictObject({ ...sideInput, column: column.check(z.minLength(1)) });
const nonNegative = z.number().check(z.gte(0));

const metricFields = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  owner: z.optional(z.string().check(z.maxLength(256))),
  projects: z.optional(stringList),
  tags: z.optional(stringList),
  metricType: z.enum(metricTypes),
  numerator: numeratorInput,
  denominator: z.optional(denominatorInput),
  inverse: z.optional(z.boolean()),
  quantileSettings: z.optional(
    z.strictObject({
      type: z.enum(['event', 'unit']),
      ignoreZeros: z.boolean(),
      quantile: z.number().check(z.gte(0.001), z.lte(0.999), z.multipleOf(0.001)),
      quantileEventCountColumn: z.optional(column.check(z.minLength(1))),
    }),
  ),
  cappingSettings: z.optional(
    z.strictObject({
      type: z.enum(['none', 'absolute', 'percentile']),
      value: z.optional(nonNegative),
      ignoreZeros: z.optional(z.boolean()),
    }),
  ),
  windowSettings: z.optional(
    z.strictObject({
      type: z.enum(['none', 'conversion', 'lookback']),
      delayHours: z.optional(z.number()),
      delayValue: z.optional(z.number()),
      delayUnit: z.optional(windowUnit),
      windowValue: z.optional(nonNegative),
      windowUnit: z.optional(windowUnit),
    }),
  ),
  priorSettings: z.optional(
    z.strictObject({ override: z.boolean(), proper: z.boolean(), mean: z.number(), stddev: z.number().check(z.gt(0)) }),
  ),
  regressionAdjustmentSettings: z.optional(
    z.strictObject({ override: z.boolean(), enabled: z.optional(z.boolean()), days: z.optional(nonNegative) }),
  ),
  riskThresholdSuccess: z.optional(nonNegative),
  riskThresholdDanger: z.optional(nonNegative),
  displayAsPercentage: z.optional(z.boolean()),
  minPercentChange: z.optional(nonNegative),
  maxPercentChange: z.optional(nonNegative),
  minSampleSize: z.optional(nonNegative),
  targetMDE: z.optional(nonNegative),
  managedBy: z.optional(managedBy),
  metricAutoSlices: z.optional(stringList),
};

/** Body of a new fact metric. */
export const factMetricCreateBody = z.strictObject(metricFields);
/** `data` of a bulk-imported fact metric: a new one's fields, plus `archived`. */
export const factMetricImportBody = z.strictObject({ ...metricFields, archived: z.optional(z.boolean()) });
export type FactMetricInput = z.infer<typeof factMetricImportBody>;

const factMetricUpdateBody = z.partial(factMetricImportBody);
export type FactMetricUpdate = z.infer<typeof factMetricUpdateBody>;

const factMetricResponse = z.object({ factMetric });

export const listFactMetrics = defineEndpoint({
  operationId: 'listFactMetrics',
  method: 'GET',
  path: '/fact-metrics',
  summary: 'List fact metrics',
  tag: 'fact-metrics',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    datasourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    factTableId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
  response: z.extend(z.object({ factMetrics: z.array(factMetric) }), paginationFields.shape),
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
  projectScoped: true,
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
