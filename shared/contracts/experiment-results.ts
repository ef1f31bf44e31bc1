import * as z from './zod';
import { defineEndpoint } from './spec';
import { paginationFields, paginationQuery } from './common';
import { experimentStatus } from './experiments';
import { experimentResults } from './snapshots';

// GrowthBook's listExperimentResults: the latest overall results of many experiments in one call.

export const listExperimentResults = defineEndpoint({
  operationId: 'listExperimentResults',
  method: 'GET',
  path: '/experiments/results',
  summary: 'Get the latest results of many experiments (those without a successful snapshot are left out of the page)',
  tag: 'experiments',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    datasourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    trackingKey: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    status: z.optional(experimentStatus),
  }),
  response: z.extend(z.object({ experimentResults: z.array(experimentResults) }), paginationFields.shape),
});

export const experimentResultEndpoints = [listExperimentResults];
