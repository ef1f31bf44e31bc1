import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, stringList } from './common';

export const environment = z.object({
  id: z.string(),
  description: z.string(),
  toggleOnList: z.boolean(),
  defaultState: z.boolean(),
  projects: z.array(z.string()),
  parent: z.optional(z.string()),
});
export type Environment = z.infer<typeof environment>;

/** Environment ids appear in SDK connections and feature payloads, so they stay URL- and key-safe. */
const environmentId = z
  .string()
  .check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/, 'may hold only letters, numbers, dashes and underscores'));
/** An environment id in a path. */
const environmentIdParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(64)) });
const environmentResponse = z.object({ environment });

export const listEnvironments = defineEndpoint({
  operationId: 'listEnvironments',
  method: 'GET',
  path: '/environments',
  summary: "List the organization's environments",
  tag: 'environments',
  permission: 'read',
  // No filters: an unknown query parameter is refused like on every list.
  query: z.object({}),
  response: z.object({ environments: z.array(environment) }),
});

export const postEnvironment = defineEndpoint({
  operationId: 'postEnvironment',
  method: 'POST',
  path: '/environments',
  summary: 'Create an environment',
  tag: 'environments',
  permission: 'manageEnvironments',
  body: z.strictObject({
    id: environmentId,
    description: z.optional(z.string().check(z.maxLength(10_000))),
    toggleOnList: z.optional(z.boolean()),
    defaultState: z.optional(z.boolean()),
    projects: z.optional(stringList),
    parent: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
  }),
  response: environmentResponse,
});

export const putEnvironment = defineEndpoint({
  operationId: 'putEnvironment',
  method: 'PUT',
  path: '/environments/{id}',
  summary: 'Partially update an environment',
  tag: 'environments',
  permission: 'manageEnvironments',
  params: environmentIdParams,
  body: z.strictObject({
    description: z.optional(z.string().check(z.maxLength(10_000))),
    toggleOnList: z.optional(z.boolean()),
    defaultState: z.optional(z.boolean()),
    projects: z.optional(stringList),
  }),
  response: environmentResponse,
});

export const deleteEnvironment = defineEndpoint({
  operationId: 'deleteEnvironment',
  method: 'DELETE',
  path: '/environments/{id}',
  summary: 'Delete an environment',
  tag: 'environments',
  permission: 'manageEnvironments',
  params: environmentIdParams,
  response: deletedResponse,
});

export const environmentEndpoints = [listEnvironments, postEnvironment, putEnvironment, deleteEnvironment];
