import * as z from './zod';
import { defineEndpoint } from './spec';
import { dateInput, idParams, paginationFields, paginationQuery, stringList } from './common';
import { jsonCondition } from './saved-groups';

// Pieces shared by the experiment, its create and update bodies, and experiment templates.
// They are strict, so a request with an unknown field fails and a response never carries one.

export const hashVersion = z.literal([1, 2]);
export const timeUnit = z.enum(['days', 'hours']);
export const statsEngine = z.enum(['bayesian', 'frequentist']);
export const attributionModel = z.enum(['firstExposure', 'experimentDuration', 'lookbackOverride']);
export const experimentStatus = z.enum(['draft', 'running', 'stopped']);

const probability = z.number().check(z.gte(0), z.lte(1));
const idList = z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(1000));

export const savedGroupTargeting = z.strictObject({
  matchType: z.enum(['all', 'any', 'none']),
  savedGroups: idList,
});

export const prerequisite = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  condition: jsonCondition,
});

export const customMetricSlice = z.strictObject({
  slices: z.array(z.strictObject({ column: z.string(), levels: z.array(z.string()) })),
});

export const lookbackOverride = z.strictObject({
  type: z.enum(['date', 'window']),
  value: z.union([z.number(), z.iso.datetime({ offset: true })]),
  valueUnit: z.optional(z.enum(['minutes', 'hours', 'days', 'weeks'])),
});

/** A metric's prior and regression adjustment, overridden for one experiment. */
const priorAndAdjustment = {
  properPriorOverride: z.optional(z.boolean()),
  properPriorEnabled: z.optional(z.boolean()),
  properPriorMean: z.optional(z.number()),
  properPriorStdDev: z.optional(z.number()),
  regressionAdjustmentOverride: z.optional(z.boolean()),
  regressionAdjustmentEnabled: z.optional(z.boolean()),
  regressionAdjustmentDays: z.optional(z.number()),
};

export const metricOverride = z.strictObject({
  id: z.string().check(z.minLength(1)),
  windowType: z.optional(z.enum(['conversion', 'lookback', ''])),
  windowHours: z.optional(z.number()),
  delayHours: z.optional(z.number()),
  ...priorAndAdjustment,
});

export const decisionFrameworkSettings = z.strictObject({
  decisionCriteriaId: z.optional(z.string()),
  decisionFrameworkMetricOverrides: z.optional(
    z.array(z.strictObject({ id: z.string().check(z.minLength(1)), targetMDE: z.optional(z.number().check(z.gt(0))) })),
  ),
});

const range = z.tuple([z.number(), z.number()]);

export const namespace = z.strictObject({
  namespaceId: z.string().check(z.minLength(1)),
  enabled: z.optional(z.boolean()),
  range: z.optional(range),
  ranges: z.optional(z.array(range)),
});

const metricOverrides = z.strictObject({
  delayHours: z.optional(z.number()),
  windowHours: z.optional(z.number()),
  window: z.optional(z.enum(['conversion', 'lookback', ''])),
  winRiskThreshold: z.optional(z.number()),
  loseRiskThreshold: z.optional(z.number()),
  ...priorAndAdjustment,
});

/** A metric of an experiment, with the overrides the experiment sets for it. */
export const experimentMetric = z.strictObject({ metricId: z.string(), overrides: metricOverrides });

export const analysisSettings = z.strictObject({
  datasourceId: z.string(),
  assignmentQueryId: z.string(),
  experimentId: z.string(),
  segmentId: z.string(),
  queryFilter: z.string(),
  inProgressConversions: z.enum(['include', 'exclude']),
  attributionModel,
  lookbackOverride: z.optional(lookbackOverride),
  statsEngine,
  regressionAdjustmentEnabled: z.optional(z.boolean()),
  sequentialTestingEnabled: z.optional(z.boolean()),
  sequentialTestingTuningParameter: z.optional(z.number()),
  postStratificationEnabled: z.optional(z.nullable(z.boolean())),
  decisionFrameworkSettings: z.optional(decisionFrameworkSettings),
  metricOverrides: z.optional(z.array(metricOverride)),
  goals: z.array(experimentMetric),
  secondaryMetrics: z.array(experimentMetric),
  guardrails: z.array(experimentMetric),
  activationMetric: z.optional(experimentMetric),
});

export const variation = z.strictObject({
  variationId: z.string(),
  key: z.string(),
  name: z.string(),
  description: z.string(),
  screenshots: z.array(z.string()),
});

export const phase = z.strictObject({
  name: z.string(),
  dateStarted: z.string(),
  dateEnded: z.string(),
  reasonForStopping: z.string(),
  seed: z.string(),
  coverage: z.number(),
  trafficSplit: z.array(z.strictObject({ variationId: z.string(), weight: z.number() })),
  namespace: z.optional(namespace),
  targetingCondition: z.string(),
  prerequisites: z.optional(z.array(prerequisite)),
  savedGroupTargeting: z.optional(z.array(savedGroupTargeting)),
});

const resultSummary = z.strictObject({
  status: z.string(),
  winner: z.string(),
  conclusions: z.string(),
  releasedVariationId: z.string(),
  excludeFromPayload: z.boolean(),
});

const statusUpdateSchedule = z.strictObject({ startAt: dateInput });

export const experiment = z.strictObject({
  id: z.string(),
  trackingKey: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  type: z.enum(['standard', 'multi-armed-bandit', 'holdout']),
  project: z.string(),
  hypothesis: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  archived: z.boolean(),
  status: z.string(),
  autoRefresh: z.boolean(),
  hashAttribute: z.string(),
  fallbackAttribute: z.optional(z.string()),
  hashVersion,
  disableStickyBucketing: z.optional(z.boolean()),
  bucketVersion: z.optional(z.number()),
  minBucketVersion: z.optional(z.number()),
  variations: z.array(variation),
  phases: z.array(phase),
  settings: analysisSettings,
  resultSummary: z.optional(resultSummary),
  shareLevel: z.optional(z.enum(['public', 'organization'])),
  publicUrl: z.optional(z.string()),
  banditScheduleValue: z.optional(z.number()),
  banditScheduleUnit: z.optional(timeUnit),
  banditBurnInValue: z.optional(z.number()),
  banditBurnInUnit: z.optional(timeUnit),
  banditConversionWindowValue: z.optional(z.number()),
  banditConversionWindowUnit: z.optional(timeUnit),
  linkedFeatures: z.optional(z.array(z.string())),
  hasVisualChangesets: z.optional(z.boolean()),
  hasURLRedirects: z.optional(z.boolean()),
  customFields: z.optional(z.record(z.string(), z.unknown())),
  customMetricSlices: z.optional(z.array(customMetricSlice)),
  defaultDashboardId: z.optional(z.string()),
  templateId: z.optional(z.string()),
  statusUpdateSchedule: z.optional(z.nullable(statusUpdateSchedule)),
  nextScheduledStatusUpdate: z.optional(
    z.nullable(z.strictObject({ type: z.literal('start'), date: z.iso.datetime({ offset: true }) })),
  ),
});
export type Experiment = z.infer<typeof experiment>;
export type ExperimentPhase = z.infer<typeof phase>;
export type ExperimentVariation = z.infer<typeof variation>;

/** GET of one experiment adds a summary status for display. */
export const experimentWithEnhancedStatus = z.extend(experiment, {
  enhancedStatus: z.optional(
    z.strictObject({
      status: z.enum(['Running', 'Stopped', 'Draft', 'Scheduled', 'Archived']),
      detailedStatus: z.optional(z.string()),
    }),
  ),
});

// Request bodies.

const variationInput = z.strictObject({
  id: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  key: z.string().check(z.minLength(1), z.maxLength(256)),
  name: z.string().check(z.minLength(1), z.maxLength(256)),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  screenshots: z.optional(z.array(
      z.strictObject({
        path: z.string().check(z.minLength(1)),
        width: z.optional(z.number()),
        height: z.optional(z.number()),
        description: z.optional(z.string()),
      }),
    )),
});
export type VariationInput = z.infer<typeof variationInput>;

const dateTime = dateInput;

const phaseInput = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(256)),
  dateStarted: dateTime,
  dateEnded: z.optional(dateTime),
  reasonForStopping: z.optional(z.string()),
  seed: z.optional(z.string()),
  coverage: z.optional(probability),
  namespace: z.optional(namespace),
  prerequisites: z.optional(z.array(prerequisite)),
  reason: z.optional(z.string()),
  condition: z.optional(jsonCondition),
  savedGroupTargeting: z.optional(z.array(savedGroupTargeting)),
  variationWeights: z.optional(z.array(probability)),
});
export type PhaseInput = z.infer<typeof phaseInput>;

/** Fields that create and update share, all optional here. */
const experimentFields = {
  datasourceId: z.optional(z.string().check(z.maxLength(256))),
  assignmentQueryId: z.optional(z.string().check(z.maxLength(256))),
  bypassDuplicateKeyCheck: z.optional(z.boolean()),
  type: z.optional(z.enum(['standard', 'multi-armed-bandit'])),
  project: z.optional(z.string().check(z.maxLength(256))),
  hypothesis: z.optional(z.string().check(z.maxLength(10_000))),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  tags: z.optional(stringList),
  metrics: z.optional(idList),
  secondaryMetrics: z.optional(idList),
  guardrailMetrics: z.optional(idList),
  activationMetric: z.optional(z.string().check(z.maxLength(256))),
  segmentId: z.optional(z.string().check(z.maxLength(256))),
  queryFilter: z.optional(z.string().check(z.maxLength(10_000))),
  owner: z.optional(z.string().check(z.maxLength(256))),
  archived: z.optional(z.boolean()),
  status: z.optional(experimentStatus),
  autoRefresh: z.optional(z.boolean()),
  hashAttribute: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  fallbackAttribute: z.optional(z.string().check(z.maxLength(256))),
  hashVersion: z.optional(hashVersion),
  disableStickyBucketing: z.optional(z.boolean()),
  bucketVersion: z.optional(z.int().check(z.gte(0))),
  minBucketVersion: z.optional(z.int().check(z.gte(0))),
  releasedVariationId: z.optional(z.string().check(z.maxLength(256))),
  excludeFromPayload: z.optional(z.boolean()),
  inProgressConversions: z.optional(z.enum(['loose', 'strict'])),
  attributionModel: z.optional(attributionModel),
  lookbackOverride: z.optional(lookbackOverride),
  statsEngine: z.optional(statsEngine),
  variations: z.optional(z.array(variationInput).check(z.minLength(2), z.maxLength(100))),
  phases: z.optional(z.array(phaseInput).check(z.maxLength(100))),
  regressionAdjustmentEnabled: z.optional(z.boolean()),
  sequentialTestingEnabled: z.optional(z.boolean()),
  sequentialTestingTuningParameter: z.optional(z.number().check(z.positive())),
  shareLevel: z.optional(z.enum(['public', 'organization'])),
  banditScheduleValue: z.optional(z.number().check(z.positive())),
  banditScheduleUnit: z.optional(timeUnit),
  banditBurnInValue: z.optional(z.number().check(z.gte(0))),
  banditBurnInUnit: z.optional(timeUnit),
  banditConversionWindowValue: z.optional(z.number().check(z.positive())),
  banditConversionWindowUnit: z.optional(timeUnit),
  postStratificationEnabled: z.optional(z.nullable(z.boolean())),
  decisionFrameworkSettings: z.optional(decisionFrameworkSettings),
  metricOverrides: z.optional(z.array(metricOverride)),
  defaultDashboardId: z.optional(z.string().check(z.maxLength(256))),
  customFields: z.optional(z.record(z.string(), z.string())),
  customMetricSlices: z.optional(z.array(customMetricSlice)),
};

const postExperimentBody = z.strictObject({
  ...experimentFields,
  trackingKey: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  variations: experimentFields.variations.def.innerType,
  templateId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  statusUpdateSchedule: z.optional(statusUpdateSchedule),
});
export type PostExperimentBody = z.infer<typeof postExperimentBody>;

const updateExperimentBody = z.strictObject({
  ...experimentFields,
  trackingKey: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
  phases: z.optional(
    z
      .array(
        z.extend(phaseInput, { namespace: z.optional(z.required(z.omit(namespace, { ranges: true }), { range: true })) }),
      )
      .check(z.maxLength(100)),
  ),
  results: z.optional(z.enum(['dnf', 'won', 'lost', 'inconclusive'])),
  winner: z.optional(z.int().check(z.gte(0))),
  analysis: z.optional(z.string().check(z.maxLength(100_000))),
  statusUpdateSchedule: z.optional(z.nullable(statusUpdateSchedule)),
});
export type UpdateExperimentBody = z.infer<typeof updateExperimentBody>;

const experimentResponse = z.object({ experiment });

export const listExperiments = defineEndpoint({
  operationId: 'listExperiments',
  method: 'GET',
  path: '/experiments',
  summary: 'List experiments',
  tag: 'experiments',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    projectId: z.optional(z.string().check(z.minLength(1))),
    datasourceId: z.optional(z.string().check(z.minLength(1))),
    trackingKey: z.optional(z.string().check(z.minLength(1))),
    experimentId: z.optional(z.string().check(z.minLength(1))),
    status: z.optional(experimentStatus),
  }),
  response: z.extend(z.object({ experiments: z.array(experiment) }), paginationFields.shape),
});

export const postExperiment = defineEndpoint({
  operationId: 'postExperiment',
  method: 'POST',
  path: '/experiments',
  summary: 'Create an experiment',
  tag: 'experiments',
  permission: 'createAnalyses',
  projectScoped: true,
  body: postExperimentBody,
  response: experimentResponse,
});

export const getExperiment = defineEndpoint({
  operationId: 'getExperiment',
  method: 'GET',
  path: '/experiments/{id}',
  summary: 'Get an experiment',
  tag: 'experiments',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: z.object({ experiment: experimentWithEnhancedStatus }),
});

export const updateExperiment = defineEndpoint({
  operationId: 'updateExperiment',
  method: 'POST',
  path: '/experiments/{id}',
  summary: 'Partially update an experiment',
  tag: 'experiments',
  permission: 'createAnalyses',
  projectScoped: true,
  params: idParams,
  body: updateExperimentBody,
  response: experimentResponse,
});

export const experimentEndpoints = [listExperiments, postExperiment, getExperiment, updateExperiment];
