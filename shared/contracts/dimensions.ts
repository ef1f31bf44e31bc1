import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery } from './common';

// Dimensions: SQL that splits experiment results by a user property (GrowthBook's legacy dimensions).

export const dimension = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  owner: z.string(),
  datasourceId: z.string(),
  identifierType: z.string(),
  name: z.string(),
  description: z.string().optional(),
  query: z.string(),
  managedBy: z.enum(['', 'api', 'config']).optional(),
});
export type Dimension = z.infer<typeof dimension>;

const fields = {
  name: z.string().trim().min(1).max(256),
  description: z.string().max(10_000).optional(),
  owner: z.string().max(256).optional(),
  datasourceId: z.string().min(1).max(256),
  identifierType: z.string().min(1).max(256),
  query: z.string().min(1).max(100_000),
  managedBy: z.enum(['', 'api']).optional(),
};
const dimensionResponse = z.object({ dimension });

export const listDimensions = defineEndpoint({
  operationId: 'listDimensions',
  method: 'GET',
  path: '/dimensions',
  summary: 'List dimensions',
  tag: 'dimensions',
  permission: 'read',
  query: paginationQuery.extend({ datasourceId: z.string().min(1).max(256).optional() }).strict(),
  response: z.object({ dimensions: z.array(dimension) }).extend(paginationFields.shape),
});

export const postDimension = defineEndpoint({
  operationId: 'postDimension',
  method: 'POST',
  path: '/dimensions',
  summary: 'Create a dimension',
  tag: 'dimensions',
  permission: 'createDimensions',
  body: z.strictObject(fields),
  response: dimensionResponse,
});

export const getDimension = defineEndpoint({
  operationId: 'getDimension',
  method: 'GET',
  path: '/dimensions/{id}',
  summary: 'Get a dimension',
  tag: 'dimensions',
  permission: 'read',
  params: idParams,
  response: dimensionResponse,
});

export const updateDimension = defineEndpoint({
  operationId: 'updateDimension',
  method: 'POST',
  path: '/dimensions/{id}',
  summary: 'Partially update a dimension',
  tag: 'dimensions',
  permission: 'createDimensions',
  params: idParams,
  body: z.strictObject(fields).partial(),
  response: dimensionResponse,
});

export const deleteDimension = defineEndpoint({
  operationId: 'deleteDimension',
  method: 'DELETE',
  path: '/dimensions/{id}',
  summary: 'Delete a dimension',
  tag: 'dimensions',
  permission: 'createDimensions',
  params: idParams,
  response: deletedResponse,
});

export const dimensionEndpoints = [listDimensions, postDimension, getDimension, updateDimension, deleteDimension];
