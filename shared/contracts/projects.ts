import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery } from './common';

const projectSettings = z.object({
  statsEngine: z.string().optional(),
  confidenceLevel: z.number().optional(),
  pValueThreshold: z.number().optional(),
});

export const project = z.object({
  id: z.string(),
  name: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  description: z.string().optional(),
  publicId: z.string().optional(),
  settings: projectSettings.optional(),
});
export type Project = z.infer<typeof project>;

const name = z.string().trim().min(1).max(256);
const publicId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be a slug of lowercase letters, numbers and single dashes');
const settingsInput = z.strictObject({
  statsEngine: z.enum(['bayesian', 'frequentist']).optional(),
  confidenceLevel: z.number().gt(0).lt(1).optional(),
  pValueThreshold: z.number().gt(0).lt(1).optional(),
});
const projectResponse = z.object({ project });

export const listProjects = defineEndpoint({
  operationId: 'listProjects',
  method: 'GET',
  path: '/projects',
  summary: 'List projects',
  tag: 'projects',
  permission: 'read',
  query: paginationQuery,
  response: z.object({ projects: z.array(project) }).extend(paginationFields.shape),
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
    description: z.string().max(10_000).optional(),
    publicId: publicId.optional(),
    settings: settingsInput.optional(),
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
    name: name.optional(),
    description: z.string().max(10_000).optional(),
    publicId: publicId.optional(),
    settings: settingsInput.optional(),
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
