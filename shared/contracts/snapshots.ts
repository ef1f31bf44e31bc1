import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams } from './common';
import { analysisSettings, experiment } from './experiments';
import type { AnalysisInputs } from '../analysis/inputs';

const trafficDimension = z.strictObject({
  name: z.string(),
  /** The SRM check's p-value: chi-square of the units per variation against the phase's weights. */
  srm: z.number(),
  /** Units per variation, in the experiment's variation order; units seen in more than one are left out. */
  variationUnits: z.array(z.number()),
});

/** GrowthBook's `ExperimentSnapshotTraffic`: units per variation and SRM, overall and per value of the snapshot's dimension. */
export const snapshotTraffic = z.strictObject({
  overall: trafficDimension,
  dimension: z.record(z.string(), z.array(trafficDimension)),
});
export type SnapshotTraffic = z.infer<typeof snapshotTraffic>;

// `health` (GrowthBook's `ExperimentSnapshotHealth`) is there once a snapshot has succeeded.
export const snapshot = z.object({
  id: z.string(),
  experiment: z.string(),
  status: z.string(),
  health: z.optional(z.strictObject({ traffic: snapshotTraffic })),
});

/**
 * A snapshot as stored: what the API shows, plus who asked for it, how, and for which phase and
 * dimension. `error` says why no results will come.
 */
export interface StoredSnapshot {
  id: string;
  experiment: string;
  status: 'running' | 'success' | 'error';
  error?: string;
  triggeredBy: 'manual' | 'schedule';
  /** The API key (`key_...`) that asked for it. */
  triggeredByKeyId: string;
  /** The member, when the key is a personal access token. */
  triggeredByMemberId?: string;
  phase: number;
  dimension?: string;
  /** The report whose ad-hoc analysis this is; its results stay off the experiment's own. */
  report?: string;
  /** The analysis inputs, frozen when the snapshot was asked for. */
  inputs?: AnalysisInputs;
  /** The ids of the queries it ran (one per fact table, or the one traffic query). */
  queryIds?: string[];
  /** Its traffic and SRM, once it has succeeded. */
  health?: { traffic: SnapshotTraffic };
  dateCreated: string;
  dateUpdated: string;
}

const snapshotResponse = z.object({ snapshot });

export const postExperimentSnapshot = defineEndpoint({
  operationId: 'postExperimentSnapshot',
  method: 'POST',
  path: '/experiments/{id}/snapshot',
  summary: 'Ask for a results snapshot of an experiment',
  tag: 'snapshots',
  permission: 'runQueries',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    triggeredBy: z._default(z.enum(['manual', 'schedule']), 'manual'),
    // "" asks for the overall results, as leaving it out does.
    dimension: z.optional(z.string().check(z.maxLength(256))),
    phase: z.optional(z.int().check(z.gte(0))),
  }),
  response: snapshotResponse,
});

export const getExperimentSnapshot = defineEndpoint({
  operationId: 'getExperimentSnapshot',
  method: 'GET',
  path: '/snapshots/{id}',
  summary: 'Get a snapshot by its own id',
  tag: 'snapshots',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: snapshotResponse,
});

const variationAnalysis = z.strictObject({
  engine: z.enum(['bayesian', 'frequentist']),
  numerator: z.number(),
  denominator: z.number(),
  mean: z.number(),
  stddev: z.number(),
  percentChange: z.number(),
  ciLow: z.number(),
  ciHigh: z.number(),
  pValue: z.optional(z.number()),
  risk: z.optional(z.number()),
  chanceToBeatControl: z.optional(z.number()),
});

/** GrowthBook's `ExperimentResults`: one entry per dimension value, each with its SRM check and metrics. */
export const experimentResults = z.strictObject({
  id: z.string(),
  dateUpdated: z.string(),
  experimentId: z.string(),
  phase: z.string(),
  dateStart: z.string(),
  dateEnd: z.string(),
  dimension: z.strictObject({ type: z.string(), id: z.optional(z.string()) }),
  settings: analysisSettings,
  queryIds: z.array(z.string()),
  results: z.array(
    z.strictObject({
      dimension: z.string(),
      totalUsers: z.number(),
      checks: z.strictObject({ srm: z.number() }),
      metrics: z.array(
        z.strictObject({
          metricId: z.string(),
          metricName: z.optional(z.string()),
          variations: z.array(
            z.strictObject({
              variationId: z.string(),
              variationName: z.optional(z.string()),
              users: z.optional(z.number()),
              analyses: z.array(variationAnalysis),
            }),
          ),
        }),
      ),
    }),
  ),
});
export type ExperimentResults = z.infer<typeof experimentResults>;

export const getExperimentResults = defineEndpoint({
  operationId: 'getExperimentResults',
  method: 'GET',
  path: '/experiments/{id}/results',
  summary: 'Get the results of the latest successful snapshot of an experiment',
  tag: 'experiments',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  query: z.object({
    // GrowthBook's phase is a string; empty means the latest phase, as leaving it out does.
    phase: z.optional(z.string().check(z.regex(/^\d*$/, 'must be a phase index (0, 1, ...)'))),
    dimension: z.optional(z.string().check(z.maxLength(256))),
  }),
  response: z.object({ experiment, result: experimentResults }),
});

export const snapshotEndpoints = [postExperimentSnapshot, getExperimentSnapshot, getExperimentResults];
