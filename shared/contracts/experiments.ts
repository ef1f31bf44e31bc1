import * as z from 'zod';
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

const probability = z.number().min(0).max(1);
const idList = z.array(z.string().min(1).max(256)).max(1000);

export const savedGroupTargeting = z.strictObject({
  matchType: z.enum(['all', 'any', 'none']),
  savedGroups: idList,
});

export const prerequisite = z.strictObject({
  id: z.string().min(1).max(256),
  condition: jsonCondition,
});

export const customMetricSlice = z.strictObject({
  slices: z.array(z.strictObject({ column: z.string(), levels: z.array(z.string()) })),
});

export const lookbackOverride = z.strictObject({
  type: z.enum(['date', 'window']),
  value: z.union([z.number(), z.iso.datetime({ offset: true })]),
  valueUnit: z.enum(['minutes', 'hours', 'days', 'weeks']).optional(),
});

export const metricOverride = z.strictObject({
  id: z.string().min(1),
  windowType: z.enum(['conversion', 'lookback', '']).optional(),
  windowHours: z.number().optional(),
  delayHours: z.number().optional(),
  properPriorOverride: z.boolean().optional(),
  properPriorEnabled: z.boolean().optional(),
  properPriorMean: z.number().optional(),
  properPriorStdDev: z.number().optional(),
  regressionAdjustmentOverride: z.boolean().optional(),
  regressionAdjustmentEnabled: z.boolean().optional(),
  regressionAdjustmentDays: z.number().optional(),
});

export const decisionFrameworkSettings = z.strictObject({
  decisionCriteriaId: z.string().optional(),
  decisionFrameworkMetricOverrides: z
    .array(z.strictObject({ id: z.string().min(1), targetMDE: z.number().gt(0).optional() }))
    .optional(),
});

const range = z.tuple([z.number(), z.number()]);

export const namespace = z.strictObject({
  namespaceId: z.string().min(1),
  enabled: z.boolean().optional(),
  range: range.optional(),
  ranges: z.array(range).optional(),
});

const metricOverrides = z.strictObject({
  delayHours: z.number().optional(),
  windowHours: z.number().optional(),
  window: z.enum(['conversion', 'lookback', '']).optional(),
  winRiskThreshold: z.number().optional(),
  loseRiskThreshold: z.number().optional(),
  properPriorOverride: z.boolean().optional(),
  properPriorEnabled: z.boolean().optional(),
  properPriorMean: z.number().optional(),
  properPriorStdDev: z.number().optional(),
  regressionAdjustmentOverride: z.boolean().optional(),
  regressionAdjustmentEnabled: z.boolean().optional(),
  regressionAdjustmentDays: z.number().optional(),
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
  lookbackOverride: lookbackOverride.optional(),
  statsEngine,
  regressionAdjustmentEnabled: z.boolean().optional(),
  sequentialTestingEnabled: z.boolean().optional(),
  sequentialTestingTuningParameter: z.number().optional(),
  postStratificationEnabled: z.boolean().nullable().optional(),
  decisionFrameworkSettings: decisionFrameworkSettings.optional(),
  metricOverrides: z.array(metricOverride).optional(),
  goals: z.array(experimentMetric),
  secondaryMetrics: z.array(experimentMetric),
  guardrails: z.array(experimentMetric),
  activationMetric: experimentMetric.optional(),
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
  namespace: namespace.optional(),
  targetingCondition: z.string(),
  prerequisites: z.array(prerequisite).optional(),
  savedGroupTargeting: z.array(savedGroupTargeting).optional(),
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
  ownerEmail: z.string().optional(),
  archived: z.boolean(),
  status: z.string(),
  autoRefresh: z.boolean(),
  hashAttribute: z.string(),
  fallbackAttribute: z.string().optional(),
  hashVersion,
  disableStickyBucketing: z.boolean().optional(),
  bucketVersion: z.number().optional(),
  minBucketVersion: z.number().optional(),
  variations: z.array(variation),
  phases: z.array(phase),
  settings: analysisSettings,
  resultSummary: resultSummary.optional(),
  shareLevel: z.enum(['public', 'organization']).optional(),
  publicUrl: z.string().optional(),
  banditScheduleValue: z.number().optional(),
  banditScheduleUnit: timeUnit.optional(),
  banditBurnInValue: z.number().optional(),
  banditBurnInUnit: timeUnit.optional(),
  banditConversionWindowValue: z.number().optional(),
  banditConversionWindowUnit: timeUnit.optional(),
  linkedFeatures: z.array(z.string()).optional(),
  hasVisualChangesets: z.boolean().optional(),
  hasURLRedirects: z.boolean().optional(),
  customFields: z.record(z.string(), z.unknown()).optional(),
  customMetricSlices: z.array(customMetricSlice).optional(),
  defaultDashboardId: z.string().optional(),
  templateId: z.string().optional(),
  statusUpdateSchedule: statusUpdateSchedule.nullable().optional(),
  nextScheduledStatusUpdate: z
    .strictObject({ type: z.literal('start'), date: z.iso.datetime({ offset: true }) })
    .nullable()
    .optional(),
});
export type Experiment = z.infer<typeof experiment>;
export type ExperimentPhase = z.infer<typeof phase>;
export type ExperimentVariation = z.infer<typeof variation>;

/** GET of one experiment adds a summary status for display. */
export const experimentWithEnhancedStatus = experiment.extend({
  enhancedStatus: z
    .strictObject({
      status: z.enum(['Running', 'Stopped', 'Draft', 'Scheduled', 'Archived']),
      detailedStatus: z.string().optional(),
    })
    .optional(),
});

// Request bodies.

const variationInput = z.strictObject({
  id: z.string().min(1).max(256).optional(),
  key: z.string().min(1).max(256),
  name: z.string().min(1).max(256),
  description: z.string().max(10_000).optional(),
  screenshots: z
    .array(
      z.strictObject({
        path: z.string().min(1),
        width: z.number().optional(),
        height: z.number().optional(),
        description: z.string().optional(),
      }),
    )
    .optional(),
});
export type VariationInput = z.infer<typeof variationInput>;

const dateTime = dateInput;

const phaseInput = z.strictObject({
  name: z.string().min(1).max(256),
  dateStarted: dateTime,
  dateEnded: dateTime.optional(),
  reasonForStopping: z.string().optional(),
  seed: z.string().optional(),
  coverage: probability.optional(),
  namespace: namespace.optional(),
  prerequisites: z.array(prerequisite).optional(),
  reason: z.string().optional(),
  condition: z.optional(jsonCondition),
  savedGroupTargeting: z.array(savedGroupTargeting).optional(),
  variationWeights: z.array(probability).optional(),
});
export type PhaseInput = z.infer<typeof phaseInput>;

/** Fields that create and update share, all optional here. */
const experimentFields = {
  datasourceId: z.string().max(256).optional(),
  assignmentQueryId: z.string().max(256).optional(),
  bypassDuplicateKeyCheck: z.boolean().optional(),
  type: z.enum(['standard', 'multi-armed-bandit']).optional(),
  project: z.string().max(256).optional(),
  hypothesis: z.string().max(10_000).optional(),
  description: z.string().max(10_000).optional(),
  tags: stringList.optional(),
  metrics: idList.optional(),
  secondaryMetrics: idList.optional(),
  guardrailMetrics: idList.optional(),
  activationMetric: z.string().max(256).optional(),
  segmentId: z.string().max(256).optional(),
  queryFilter: z.string().max(10_000).optional(),
  owner: z.string().max(256).optional(),
  archived: z.boolean().optional(),
  status: experimentStatus.optional(),
  autoRefresh: z.boolean().optional(),
  hashAttribute: z.string().min(1).max(256).optional(),
  fallbackAttribute: z.string().max(256).optional(),
  hashVersion: hashVersion.optional(),
  disableStickyBucketing: z.boolean().optional(),
  bucketVersion: z.number().int().min(0).optional(),
  minBucketVersion: z.number().int().min(0).optional(),
  releasedVariationId: z.string().max(256).optional(),
  excludeFromPayload: z.boolean().optional(),
  inProgressConversions: z.enum(['loose', 'strict']).optional(),
  attributionModel: attributionModel.optional(),
  lookbackOverride: lookbackOverride.optional(),
  statsEngine: statsEngine.optional(),
  variations: z.array(variationInput).min(2).max(100).optional(),
  phases: z.array(phaseInput).max(100).optional(),
  regressionAdjustmentEnabled: z.boolean().optional(),
  sequentialTestingEnabled: z.boolean().optional(),
  sequentialTestingTuningParameter: z.number().positive().optional(),
  shareLevel: z.enum(['public', 'organization']).optional(),
  banditScheduleValue: z.number().positive().optional(),
  banditScheduleUnit: timeUnit.optional(),
  banditBurnInValue: z.number().min(0).optional(),
  banditBurnInUnit: timeUnit.optional(),
  banditConversionWindowValue: z.number().positive().optional(),
  banditConversionWindowUnit: timeUnit.optional(),
  postStratificationEnabled: z.boolean().nullable().optional(),
  decisionFrameworkSettings: decisionFrameworkSettings.optional(),
  metricOverrides: z.array(metricOverride).optional(),
  defaultDashboardId: z.string().max(256).optional(),
  customFields: z.record(z.string(), z.string()).optional(),
  customMetricSlices: z.array(customMetricSlice).optional(),
};

const postExperimentBody = z.strictObject({
  ...experimentFields,
  trackingKey: z.string().trim().min(1).max(256),
  name: z.string().trim().min(1).max(256),
  variations: experimentFields.variations.unwrap(),
  templateId: z.string().min(1).max(256).optional(),
  statusUpdateSchedule: statusUpdateSchedule.optional(),
});
export type PostExperimentBody = z.infer<typeof postExperimentBody>;

const updateExperimentBody = z.strictObject({
  ...experimentFields,
  trackingKey: z.string().trim().min(1).max(256).optional(),
  name: z.string().trim().min(1).max(256).optional(),
  phases: z
    .array(phaseInput.extend({ namespace: namespace.omit({ ranges: true }).required({ range: true }).optional() }))
    .max(100)
    .optional(),
  results: z.enum(['dnf', 'won', 'lost', 'inconclusive']).optional(),
  winner: z.number().int().min(0).optional(),
  analysis: z.string().max(100_000).optional(),
  statusUpdateSchedule: statusUpdateSchedule.nullable().optional(),
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
  query: paginationQuery.extend({
    projectId: z.string().min(1).optional(),
    datasourceId: z.string().min(1).optional(),
    trackingKey: z.string().min(1).optional(),
    experimentId: z.string().min(1).optional(),
    status: experimentStatus.optional(),
  }),
  response: z.object({ experiments: z.array(experiment) }).extend(paginationFields.shape),
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
