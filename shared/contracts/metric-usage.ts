import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams, paginationFields, paginationQuery } from './common';

// Where metrics are used: GrowthBook's listMetricExperiments and getMetricUsage.

const csv = z.optional(z.string().check(z.maxLength(4096)));
const isoDate = z.optional(z.string().check(z.refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO date or date-time')));

const variationResult = z.strictObject({
  variationId: z.string(),
  variationName: z.string(),
  users: z.optional(z.number()),
  value: z.optional(z.number()),
  mean: z.optional(z.number()),
  lift: z.optional(z.number()),
  ci: z.optional(z.tuple([z.number(), z.number()])),
  pValue: z.optional(z.number()),
  chanceToWin: z.optional(z.number()),
});

export const listMetricExperiments = defineEndpoint({
  operationId: 'listMetricExperiments',
  method: 'GET',
  path: '/metrics/{id}/experiments',
  summary: "Each experiment that analyses a metric (fact or legacy), with that metric's results from its latest snapshot",
  tag: 'metrics',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  query: z.extend(paginationQuery, {
    q: z.optional(z.string().check(z.maxLength(1024))),
    projectId: csv,
    owner: csv,
    status: csv,
    result: csv,
    tag: csv,
    type: csv,
    bandits: z.optional(z.enum(['true', 'false'])),
    startDate: isoDate,
    endDate: isoDate,
  }),
  response: z.extend(
    z.object({
      experimentResults: z.array(
        z.strictObject({
          experimentId: z.string(),
          experimentName: z.string(),
          status: z.string(),
          result: z.optional(z.string()),
          date: z.string(),
          datasourceId: z.string(),
          variations: z.array(variationResult),
        }),
      ),
    }),
    paginationFields.shape,
  ),
});

const nullableDate = z.nullable(z.string());

export const getMetricUsage = defineEndpoint({
  operationId: 'getMetricUsage',
  method: 'GET',
  path: '/usage/metrics',
  summary: 'Which experiments use each of some metrics (fact or legacy), and when they were last analysed',
  tag: 'usage',
  permission: 'read',
  projectScoped: true,
  query: z.object({ ids: z.string().check(z.minLength(1), z.maxLength(4096)) }),
  response: z.object({
    metricUsage: z.array(
      z.strictObject({
        metricId: z.string(),
        error: z.optional(z.string()),
        experiments: z.optional(
          z.array(z.strictObject({ experimentId: z.string(), experimentStatus: z.enum(['draft', 'running', 'stopped']), lastSnapshotAttempt: nullableDate })),
        ),
        lastSnapshotAttempt: z.optional(nullableDate),
      }),
    ),
  }),
});

