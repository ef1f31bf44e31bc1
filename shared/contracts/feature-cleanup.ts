import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams, paginationFields, paginationQuery } from './common';
import { changedFeatureResponse, valueTypes } from './features';

// Reverting a feature to an earlier revision, and the stale-feature report cleanup scripts and
// GrowthBook's MCP server read: GrowthBook's revertFeature and getStaleFeatures.

export const revertFeature = defineEndpoint({
  operationId: 'revertFeature',
  method: 'POST',
  path: '/features/{id}/revert',
  summary: "Publish an earlier revision's default value and rules again",
  tag: 'features',
  permission: 'publishFeatures',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({ revision: z.number().check(z.int(), z.gte(1)), comment: z.optional(z.string().check(z.maxLength(10_000))) }),
  response: changedFeatureResponse,
});

/** Feature ids in a query string: `flagIds=a&flagIds=b` arrives joined as `a,b`, and `a,b` is taken the same way. */
const idList = z.pipe(
  z.string().check(z.maxLength(100_000)),
  z.transform((text) => text.split(',').map((id) => id.trim()).filter(Boolean)),
);

export const getStaleFeatures = defineEndpoint({
  operationId: 'getStaleFeatures',
  method: 'GET',
  path: '/stale-features',
  summary: 'The features that are stale or archived, least recently updated first, with the value to keep in each environment',
  tag: 'features',
  permission: 'read',
  projectScoped: true,
  query: z.strictObject({
    ...paginationQuery.shape,
    projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    flagIds: z.optional(idList),
  }),
  response: z.extend(
    z.object({
      features: z.array(
        z.object({
          id: z.string(),
          owner: z.string(),
          archived: z.boolean(),
          dateCreated: z.string(),
          dateUpdated: z.string(),
          valueType: z.enum(valueTypes),
          customFields: z.record(z.string(), z.unknown()),
          environments: z.record(z.string(), z.object({ value: z.nullable(z.string()) })),
        }),
      ),
    }),
    paginationFields.shape,
  ),
});

export const featureCleanupEndpoints = [revertFeature, getStaleFeatures];
