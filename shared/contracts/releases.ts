import * as z from './zod';
import { defineEndpoint } from './spec';

const entityTypes = ['feature', 'saved-group', 'config', 'constant'] as const;
const version = z.int().check(z.minimum(1), z.maximum(999_999_999));
const id = z.string().check(z.minLength(1), z.maxLength(256));

/** One revision to publish: by entity and version (GrowthBook's `FeatureRevisionRef`, ...) or by revision id. */
const revisionRef = z.union([
  z.strictObject({ entityType: z.literal('feature'), id, version }),
  z.strictObject({ entityType: z.literal('saved-group'), id, version }),
  z.strictObject({ entityType: z.literal('config'), key: id, version }),
  z.strictObject({ entityType: z.literal('constant'), key: id, version }),
  z.strictObject({ entityType: z.enum(entityTypes), revisionId: id }),
]);
export type RevisionRef = z.infer<typeof revisionRef>;

const gate = z.object({
  entityType: z.enum(entityTypes),
  id: z.string(),
  version: z.int(),
  type: z.string(),
  severity: z.enum(['blocker', 'warning']),
  messages: z.array(z.string()),
  override: z.nullable(z.string()),
  requiresPermission: z.nullable(z.string()),
  resolution: z.nullable(z.object({ action: z.string(), method: z.string(), path: z.string() })),
});

export const postReleasePublishRevisions = defineEndpoint({
  operationId: 'postReleasePublishRevisions',
  method: 'POST',
  path: '/releases/publish-revisions',
  summary: 'Atomically publish revisions across multiple entities',
  tag: 'releases',
  permission: 'publishFeatures',
  projectScoped: true,
  body: z.strictObject({
    revisions: z.array(revisionRef).check(z.minLength(1), z.maxLength(50)),
    dryRun: z.optional(z.boolean()),
    ignoreWarnings: z.optional(z.boolean()),
    skipSchemaValidation: z.optional(z.boolean()),
    skipHooks: z.optional(z.boolean()),
    comment: z.optional(z.string().check(z.maxLength(10_000))),
  }),
  response: z.object({
    dryRun: z.boolean(),
    bulkPublishId: z.optional(z.string()),
    results: z.array(
      z.object({
        entityType: z.enum(entityTypes),
        id: z.string(),
        version: z.int(),
        revisionId: z.string(),
        status: z.enum(['published', 'would-publish']),
      }),
    ),
    gates: z.array(gate),
    bypassedGates: z.array(z.object({ entityType: z.enum(entityTypes), id: z.string(), version: z.int(), type: z.string(), via: z.string() })),
    warnings: z.array(z.string()),
  }),
});

export const releaseEndpoints = [postReleasePublishRevisions];
