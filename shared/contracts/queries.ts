import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams } from './common';

// GrowthBook's getQuery: one query of a snapshot.

/**
 * GrowthBook's `Query`, plus what its API leaves out and a user watching a run needs: when the query
 * finished (`finishedAt`) and why it failed (`error`), GrowthBook's own field names for them.
 */
export const query = z.strictObject({
  id: z.string(),
  organization: z.string(),
  datasource: z.string(),
  language: z.string(),
  query: z.string(),
  queryType: z.string(),
  createdAt: z.string(),
  startedAt: z.string(),
  status: z.enum(['running', 'queued', 'failed', 'partially-succeeded', 'succeeded']),
  externalId: z.string(),
  dependencies: z.array(z.string()),
  runAtEnd: z.boolean(),
  finishedAt: z.optional(z.string()),
  error: z.optional(z.string()),
});

export const getQuery = defineEndpoint({
  operationId: 'getQuery',
  method: 'GET',
  path: '/queries/{id}',
  summary: "Get one of a snapshot's queries: its SQL, status, timing and error",
  tag: 'queries',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: z.object({ query }),
});

export const queryEndpoints = [getQuery];
