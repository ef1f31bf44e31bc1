import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams, paginationFields, paginationQuery, stringList } from './common';

/**
 * Holdouts: a share of traffic kept out of the features assigned to them (a feature's `holdout`).
 * GrowthBook's v1 reference document has no holdout resource; this is the subset of GrowthBook's
 * newer `/holdouts` API (get, create, list, update, stage) that the SDK payload needs. GrowthBook
 * stores a holdout with a companion experiment for its analysis; here the holdout carries the
 * bucketing fields itself, and analysis settings are not kept.
 */

export const holdoutStages = ['draft', 'running', 'analysis-period', 'stopped'] as const;

export const holdout = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  description: z.string(),
  /** Empty means every project. */
  projects: z.array(z.string()),
  tags: z.array(z.string()),
  archived: z.boolean(),
  stage: z.enum(holdoutStages),
  trackingKey: z.string(),
  /** Share of traffic held out (0 to 0.5); an equal control group is bucketed beside it. */
  holdoutSize: z.number(),
  hashAttribute: z.string(),
  environments: z.record(z.string(), z.object({ enabled: z.boolean() })),
  dateStarted: z.optional(z.string()),
  dateStopped: z.optional(z.string()),
});
export type Holdout = z.infer<typeof holdout>;

const holdoutSize = z.number().check(z.gte(0), z.lte(0.5));
const environments = z.record(
  z.string().check(z.minLength(1), z.maxLength(64)),
  z.strictObject({ enabled: z.boolean() }),
);
const holdoutResponse = z.object({ holdout });

export const listHoldouts = defineEndpoint({
  operationId: 'listHoldouts',
  method: 'GET',
  path: '/holdouts',
  summary: 'List holdouts',
  tag: 'holdouts',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    projectId: z.optional(z.string().check(z.maxLength(256))),
    stage: z.optional(z.enum(holdoutStages)),
  }),
  response: z.extend(z.object({ holdouts: z.array(holdout) }), paginationFields.shape),
});

export const createHoldout = defineEndpoint({
  operationId: 'createHoldout',
  method: 'POST',
  path: '/holdouts',
  summary: 'Create a holdout (it starts as a draft)',
  tag: 'holdouts',
  permission: 'write',
  projectScoped: true,
  body: z.strictObject({
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    projects: z.optional(stringList),
    tags: z.optional(stringList),
    trackingKey: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
    holdoutSize: z.optional(holdoutSize),
    hashAttribute: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
    environments: z.optional(environments),
  }),
  response: holdoutResponse,
});

export const getHoldout = defineEndpoint({
  operationId: 'getHoldout',
  method: 'GET',
  path: '/holdouts/{id}',
  summary: 'Get a holdout',
  tag: 'holdouts',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: holdoutResponse,
});

export const updateHoldout = defineEndpoint({
  operationId: 'updateHoldout',
  method: 'PUT',
  path: '/holdouts/{id}',
  summary: 'Update a holdout (the fields given; `environments` replaces them all)',
  tag: 'holdouts',
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    projects: z.optional(stringList),
    tags: z.optional(stringList),
    archived: z.optional(z.boolean()),
    holdoutSize: z.optional(holdoutSize),
    hashAttribute: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(256))),
    environments: z.optional(environments),
  }),
  response: holdoutResponse,
});
export type HoldoutUpdate = z.infer<NonNullable<typeof updateHoldout.body>>;

export const setHoldoutStage = defineEndpoint({
  operationId: 'setHoldoutStage',
  method: 'POST',
  path: '/holdouts/{id}/stage',
  summary: 'Move a holdout to another stage',
  tag: 'holdouts',
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({ stage: z.enum(holdoutStages) }),
  response: holdoutResponse,
});

export const holdoutEndpoints = [listHoldouts, createHoldout, getHoldout, updateHoldout, setHoldoutStage];
