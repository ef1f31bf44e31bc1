import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, stringList } from './common';

export const environment = z.object({
  id: z.string(),
  description: z.string(),
  toggleOnList: z.boolean(),
  defaultState: z.boolean(),
  projects: z.array(z.string()),
  parent: z.string().optional(),
});
export type Environment = z.infer<typeof environment>;

/** Environment ids appear in SDK connections and feature payloads, so they stay URL- and key-safe. */
const environmentId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'may hold only letters, numbers, dashes and underscores');
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
    description: z.string().max(10_000).optional(),
    toggleOnList: z.boolean().optional(),
    defaultState: z.boolean().optional(),
    projects: stringList.optional(),
    parent: z.string().min(1).max(64).optional(),
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
  params: z.object({ id: z.string().min(1).max(64) }),
  body: z.strictObject({
    description: z.string().max(10_000).optional(),
    toggleOnList: z.boolean().optional(),
    defaultState: z.boolean().optional(),
    projects: stringList.optional(),
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
  params: z.object({ id: z.string().min(1).max(64) }),
  response: deletedResponse,
});

export const environmentEndpoints = [listEnvironments, postEnvironment, putEnvironment, deleteEnvironment];
