import * as z from './zod';
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
  description: z.optional(z.string()),
  query: z.string(),
  managedBy: z.optional(z.enum(['', 'api', 'config'])),
});
export type Dimension = z.infer<typeof dimension>;

const fields = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  owner: z.optional(z.string().check(z.maxLength(256))),
  datasourceId: z.string().check(z.minLength(1), z.maxLength(256)),
  identifierType: z.string().check(z.minLength(1), z.maxLength(256)),
  query: z.string().check(z.minLength(1), z.maxLength(100_000)),
  managedBy: z.optional(z.enum(['', 'api'])),
};
const dimensionResponse = z.object({ dimension });

export const listDimensions = defineEndpoint({
  operationId: 'listDimensions',
  method: 'GET',
  path: '/dimensions',
  summary: 'List dimensions',
  tag: 'dimensions',
  permission: 'read',
  query: z.strictObject(
    z.extend(paginationQuery, { datasourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }).shape,
  ),
  response: z.extend(z.object({ dimensions: z.array(dimension) }), paginationFields.shape),
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
  body: z.partial(z.strictObject(fields)),
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
