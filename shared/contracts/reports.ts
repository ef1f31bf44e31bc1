import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams, paginationFields, paginationQuery } from './common';
import { customMetricSlice, lookbackOverride, metricOverride } from './experiments';
import { experimentResults } from './snapshots';

// Reports: ad-hoc analyses of an experiment with their own settings and snapshots. GrowthBook's
// listReports, postReport, getReport, putReportMetadata, putReportSettings and postReportRefresh.

const ids = z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(100));
const reportMetricOverride = z.extend(metricOverride, {
  winRisk: z.optional(z.number()),
  loseRisk: z.optional(z.number()),
  properPriorStdDev: z.optional(z.number().check(z.gt(0))),
});
const dateTime = z.iso.datetime({ offset: true });
const statsEngine = z.enum(['bayesian', 'frequentist']);
const attributionModel = z.enum(['firstExposure', 'experimentDuration', 'lookbackOverride']);
const differenceType = z.enum(['relative', 'absolute', 'scaled']);

/** The analysis settings a report runs with: the experiment's when it was created, then its own. */
export const reportAnalysisSettings = z.strictObject({
  statsEngine,
  goalMetrics: z.array(z.string()),
  secondaryMetrics: z.array(z.string()),
  guardrailMetrics: z.array(z.string()),
  activationMetric: z.optional(z.string()),
  metricOverrides: z.array(reportMetricOverride),
  customMetricSlices: z.optional(z.array(customMetricSlice)),
  dimension: z.string(),
  differenceType,
  dateStarted: z.string(),
  dateEnded: z.optional(z.string()),
  regressionAdjustmentEnabled: z.boolean(),
  sequentialTestingEnabled: z.boolean(),
  sequentialTestingTuningParameter: z.number(),
  attributionModel,
  lookbackOverride: z.optional(lookbackOverride),
  trackingKey: z.string(),
  exposureQueryId: z.string(),
  segment: z.optional(z.string()),
  queryFilter: z.string(),
  skipPartialData: z.boolean(),
});
export type ReportAnalysisSettings = z.infer<typeof reportAnalysisSettings>;

export const report = z.strictObject({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  title: z.string(),
  description: z.string(),
  type: z.enum(['experiment-snapshot', 'experiment']),
  status: z.optional(z.enum(['published', 'private'])),
  shareLevel: z.optional(z.enum(['public', 'organization', 'private'])),
  shareUrl: z.optional(z.string()),
  experimentId: z.optional(z.string()),
  owner: z.optional(z.string()),
  ownerEmail: z.optional(z.string()),
  snapshotId: z.optional(z.string()),
  snapshotStatus: z.optional(z.enum(['running', 'success', 'error'])),
  snapshotError: z.optional(z.string()),
  analysisSettings: z.optional(reportAnalysisSettings),
  experimentMetadata: z.optional(
    z.strictObject({
      type: z.enum(['standard', 'multi-armed-bandit', 'holdout']),
      variations: z.array(z.strictObject({ id: z.string(), name: z.string(), key: z.string(), weight: z.number() })),
      phases: z.array(z.strictObject({ name: z.string(), dateStarted: z.string(), dateEnded: z.optional(z.string()), coverage: z.number() })),
    }),
  ),
  results: z.optional(experimentResults),
});

export type Report = z.infer<typeof report>;

/** A report as stored: what the API shows but the snapshot's state and results, which are read from its snapshot. */
export interface StoredReport {
  id: string;
  title: string;
  description: string;
  type: 'experiment-snapshot';
  status: 'published' | 'private';
  shareLevel: 'organization' | 'private';
  editLevel: 'organization' | 'private';
  experimentId: string;
  owner: string;
  ownerEmail?: string;
  snapshotId?: string;
  analysisSettings: ReportAnalysisSettings;
  dateCreated: string;
  dateUpdated: string;
}

/** Settings a request may give (on create, or staged by PUT /settings); what it leaves out stays as it was. */
const settingsInput = {
  statsEngine: z.optional(statsEngine),
  goalMetrics: z.optional(ids),
  secondaryMetrics: z.optional(ids),
  guardrailMetrics: z.optional(ids),
  activationMetric: z.optional(z.string().check(z.maxLength(256))),
  metricOverrides: z.optional(z.array(reportMetricOverride).check(z.maxLength(100))),
  customMetricSlices: z.optional(z.array(customMetricSlice).check(z.maxLength(100))),
  dimension: z.optional(z.string().check(z.maxLength(256))),
  dateStarted: z.optional(dateTime),
  dateEnded: z.optional(dateTime),
  regressionAdjustmentEnabled: z.optional(z.boolean()),
  sequentialTestingEnabled: z.optional(z.boolean()),
  sequentialTestingTuningParameter: z.optional(z.number().check(z.gt(0))),
  differenceType: z.optional(differenceType),
  attributionModel: z.optional(attributionModel),
  lookbackOverride: z.optional(lookbackOverride),
  segment: z.optional(z.string().check(z.maxLength(256))),
  queryFilter: z.optional(z.string().check(z.maxLength(10_000))),
  skipPartialData: z.optional(z.boolean()),
};
export const reportSettingsBody = z.strictObject(settingsInput);
export type ReportSettingsBody = z.infer<typeof reportSettingsBody>;

const shareLevel = z.enum(['public', 'organization', 'private']);
const title = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const description = z.string().check(z.maxLength(10_000));
const reportResponse = z.object({ report });

export const listReports = defineEndpoint({
  operationId: 'listReports',
  method: 'GET',
  path: '/reports',
  summary: 'List reports',
  tag: 'reports',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, { experimentId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }),
  response: z.extend(z.object({ reports: z.array(report) }), paginationFields.shape),
});

export const postReport = defineEndpoint({
  operationId: 'postReport',
  method: 'POST',
  path: '/reports',
  summary: "Create a report on an experiment (its settings unless given) and run its analysis",
  tag: 'reports',
  permission: 'createAnalyses',
  projectScoped: true,
  body: z.strictObject({
    experimentId: z.string().check(z.minLength(1), z.maxLength(256)),
    title: z.optional(title),
    description: z.optional(description),
    owner: z.optional(z.string().check(z.maxLength(256))),
    shareLevel: z.optional(shareLevel),
    ...settingsInput,
  }),
  response: reportResponse,
});

export const getReport = defineEndpoint({
  operationId: 'getReport',
  method: 'GET',
  path: '/reports/{id}',
  summary: 'Get a report, with its latest results',
  tag: 'reports',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: reportResponse,
});

export const putReportMetadata = defineEndpoint({
  operationId: 'putReportMetadata',
  method: 'PUT',
  path: '/reports/{id}/metadata',
  summary: "Change a report's title, description, status or visibility",
  tag: 'reports',
  permission: 'createAnalyses',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    title: z.optional(title),
    description: z.optional(description),
    status: z.optional(z.enum(['published', 'private'])),
    shareLevel: z.optional(shareLevel),
    editLevel: z.optional(z.enum(['organization', 'private'])),
  }),
  response: reportResponse,
});

export const putReportSettings = defineEndpoint({
  operationId: 'putReportSettings',
  method: 'PUT',
  path: '/reports/{id}/settings',
  summary: "Stage a report's analysis settings (they take effect on POST /reports/{id}/refresh)",
  tag: 'reports',
  permission: 'createAnalyses',
  projectScoped: true,
  params: idParams,
  body: reportSettingsBody,
  response: reportResponse,
});

export const postReportRefresh = defineEndpoint({
  operationId: 'postReportRefresh',
  method: 'POST',
  path: '/reports/{id}/refresh',
  summary: "Run a report's analysis again, with its current settings",
  tag: 'reports',
  permission: 'runQueries',
  projectScoped: true,
  params: idParams,
  response: reportResponse,
});

export const reportEndpoints = [listReports, postReport, getReport, putReportMetadata, putReportSettings, postReportRefresh];
