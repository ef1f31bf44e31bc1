import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery } from './common';

const projectSettings = z.object({
  statsEngine: z.optional(z.string()),
  confidenceLevel: z.optional(z.number()),
  pValueThreshold: z.optional(z.number()),
});

export const project = z.object({
  id: z.string(),
  name: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  description: z.optional(z.string()),
  publicId: z.optional(z.string()),
  settings: z.optional(projectSettings),
});
export type Project = z.infer<typeof project>;

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const publicId = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(64),
    z.regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be a slug of lowercase letters, numbers and single dashes'),
  );
const settingsInput = z.strictObject({
  statsEngine: z.optional(z.enum(['bayesian', 'frequentist'])),
  confidenceLevel: z.optional(z.number().check(z.gt(0), z.lt(1))),
  pValueThreshold: z.optional(z.number().check(z.gt(0), z.lt(1))),
});
const projectResponse = z.object({ project });

export const listProjects = defineEndpoint({
  operationId: 'listProjects',
  method: 'GET',
  path: '/projects',
  summary: 'List projects',
  tag: 'projects',
  permission: 'read',
  projectScoped: true,
  query: paginationQuery,
  response: z.extend(z.object({ projects: z.array(project) }), paginationFields.shape),
});

export const postProject = defineEndpoint({
  operationId: 'postProject',
  method: 'POST',
  path: '/projects',
  summary: 'Create a project',
  tag: 'projects',
  permission: 'createProjects',
  body: z.strictObject({
    name,
    description: z.optional(z.string().check(z.maxLength(10_000))),
    publicId: z.optional(publicId),
    settings: z.optional(settingsInput),
  }),
  response: projectResponse,
});

export const getProject = defineEndpoint({
  operationId: 'getProject',
  method: 'GET',
  path: '/projects/{id}',
  summary: 'Get a project',
  tag: 'projects',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: projectResponse,
});

export const putProject = defineEndpoint({
  operationId: 'putProject',
  method: 'PUT',
  path: '/projects/{id}',
  summary: 'Partially update a project',
  tag: 'projects',
  permission: 'manageProjects',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    name: z.optional(name),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    publicId: z.optional(publicId),
    settings: z.optional(settingsInput),
  }),
  response: projectResponse,
});

export const deleteProject = defineEndpoint({
  operationId: 'deleteProject',
  method: 'DELETE',
  path: '/projects/{id}',
  summary: 'Delete a project',
  tag: 'projects',
  permission: 'deleteProjects',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const projectEndpoints = [listProjects, postProject, getProject, putProject, deleteProject];
