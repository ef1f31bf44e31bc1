import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

// GrowthBook's legacy (non-fact) SQL metrics: listMetrics, postMetric, getMetric, putMetric, deleteMetric.

const legacyTypes = z.enum(['binomial', 'count', 'duration', 'revenue']);
const windowUnit = z.enum(['minutes', 'hours', 'days', 'weeks']);

/** GrowthBook's `Metric`. Switchyard keeps metrics in this shape, so what is stored is what is served. */
export const metric = z.strictObject({
  id: z.string(),
  managedBy: z.enum(['', 'api', 'config', 'admin']),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  datasourceId: z.string(),
  name: z.string(),
  description: z.string(),
  type: legacyTypes,
  tags: z.array(z.string()),
  projects: z.array(z.string()),
  archived: z.boolean(),
  behavior: z.strictObject({
    goal: z.enum(['increase', 'decrease']),
    cappingSettings: z.optional(z.strictObject({ type: z.enum(['none', 'absolute', 'percentile']), value: z.optional(z.number()), ignoreZeros: z.optional(z.boolean()) })),
    windowSettings: z.strictObject({
      type: z.enum(['none', 'conversion', 'lookback']),
      delayValue: z.optional(z.number()),
      delayUnit: z.optional(windowUnit),
      windowValue: z.optional(z.number()),
      windowUnit: z.optional(windowUnit),
    }),
    priorSettings: z.optional(z.strictObject({ override: z.boolean(), proper: z.boolean(), mean: z.number(), stddev: z.number() })),
    riskThresholdSuccess: z.number(),
    riskThresholdDanger: z.number(),
    minPercentChange: z.number(),
    maxPercentChange: z.number(),
    minSampleSize: z.number(),
    targetMDE: z.number(),
  }),
  sql: z.optional(
    z.strictObject({
      identifierTypes: z.array(z.string()),
      conversionSQL: z.string(),
      userAggregationSQL: z.string(),
      denominatorMetricId: z.string(),
    }),
  ),
});
export type Metric = z.infer<typeof metric>;

// Request shapes: strict and bounded, with the reference document's rules.
const nonNegative = z.number().check(z.gte(0));
const behaviorInput = z.strictObject({
  goal: z.optional(z.enum(['increase', 'decrease'])),
  cappingSettings: z.optional(
    z.strictObject({
      type: z.nullable(z.enum(['none', 'absolute', 'percentile'])),
      value: z.optional(nonNegative),
      ignoreZeros: z.optional(z.boolean()),
    }),
  ),
  cap: z.optional(nonNegative),
  capping: z.optional(z.nullable(z.enum(['absolute', 'percentile']))),
  capValue: z.optional(nonNegative),
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
  conversionWindowStart: z.optional(z.number()),
  conversionWindowEnd: z.optional(z.number()),
  priorSettings: z.optional(
    z.strictObject({ override: z.boolean(), proper: z.boolean(), mean: z.number(), stddev: z.number().check(z.gt(0)) }),
  ),
  riskThresholdSuccess: z.optional(nonNegative),
  riskThresholdDanger: z.optional(nonNegative),
  minPercentChange: z.optional(nonNegative),
  maxPercentChange: z.optional(nonNegative),
  minSampleSize: z.optional(nonNegative),
  targetMDE: z.optional(nonNegative),
});
const sqlInput = z.strictObject({
  identifierTypes: z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))).check(z.minLength(1), z.maxLength(100)),
  conversionSQL: z.string().check(z.trim(), z.minLength(1), z.maxLength(100_000)),
  userAggregationSQL: z.optional(z.string().check(z.maxLength(10_000))),
  denominatorMetricId: z.optional(z.string().check(z.maxLength(256))),
});
// Named so a request that sends them gets the reason they are refused, not "unknown field".
const unsupportedQueryFormats = { sqlBuilder: z.optional(z.unknown()), mixpanel: z.optional(z.unknown()) };

const metricFields = {
  managedBy: z.optional(z.enum(['', 'api'])),
  owner: z.optional(z.string().check(z.maxLength(256))),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  tags: z.optional(stringList),
  projects: z.optional(stringList),
  archived: z.optional(z.boolean()),
  behavior: z.optional(behaviorInput),
  sql: z.optional(sqlInput),
  ...unsupportedQueryFormats,
};

export const postMetricBody = z.strictObject({
  datasourceId: z.string().check(z.minLength(1), z.maxLength(256)),
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  type: legacyTypes,
  ...metricFields,
});
export type PostMetricBody = z.infer<typeof postMetricBody>;

export const putMetricBody = z.strictObject({
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
  type: z.optional(legacyTypes),
  ...metricFields,
  sql: z.optional(z.partial(sqlInput)),
});
export type PutMetricBody = z.infer<typeof putMetricBody>;

const metricResponse = z.object({ metric });

export const listMetrics = defineEndpoint({
  operationId: 'listMetrics',
  method: 'GET',
  path: '/metrics',
  summary: 'List legacy SQL metrics',
  tag: 'metrics',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    datasourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
  response: z.extend(z.object({ metrics: z.array(metric) }), paginationFields.shape),
});

export const postMetric = defineEndpoint({
  operationId: 'postMetric',
  method: 'POST',
  path: '/metrics',
  summary: 'Create a legacy SQL metric',
  tag: 'metrics',
  permission: 'createMetrics',
  projectScoped: true,
  body: postMetricBody,
  response: metricResponse,
});

export const getMetric = defineEndpoint({
  operationId: 'getMetric',
  method: 'GET',
  path: '/metrics/{id}',
  summary: 'Get a legacy SQL metric',
  tag: 'metrics',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: metricResponse,
});

export const putMetric = defineEndpoint({
  operationId: 'putMetric',
  method: 'PUT',
  path: '/metrics/{id}',
  summary: 'Update a legacy SQL metric (the fields given)',
  tag: 'metrics',
  permission: 'createMetrics',
  projectScoped: true,
  params: idParams,
  body: putMetricBody,
  response: z.object({ updatedId: z.string() }),
});

export const deleteMetric = defineEndpoint({
  operationId: 'deleteMetric',
  method: 'DELETE',
  path: '/metrics/{id}',
  summary: 'Delete a legacy SQL metric',
  tag: 'metrics',
  permission: 'createMetrics',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const metricEndpoints = [listMetrics, postMetric, getMetric, putMetric, deleteMetric];
