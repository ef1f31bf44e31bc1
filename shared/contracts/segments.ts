import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

export const segment = z.object({
  id: z.string(),
  owner: z.string(),
  ownerEmail: z.string().optional(),
  datasourceId: z.string(),
  identifierType: z.string(),
  name: z.string(),
  description: z.string().optional(),
  query: z.string().optional(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  managedBy: z.enum(['', 'api', 'config']).optional(),
  type: z.enum(['SQL', 'FACT']).optional(),
  factTableId: z.string().optional(),
  filters: z.array(z.string()).optional(),
  projects: z.array(z.string()).optional(),
});
export type Segment = z.infer<typeof segment>;

const fields = {
  name: z.string().trim().min(1).max(256),
  owner: z.string().max(256),
  description: z.string().max(10_000),
  datasourceId: z.string().min(1).max(256),
  identifierType: z.string().min(1).max(256),
  projects: stringList,
  managedBy: z.enum(['', 'api']),
  type: z.enum(['SQL', 'FACT']),
  // `""` where the type does not use it, as GET answers it, so a segment read can be sent back.
  query: z.string().trim().max(100_000),
  factTableId: z.string().max(256),
  filters: stringList,
};

const updateBody = z.strictObject({
  name: fields.name.optional(),
  owner: fields.owner.optional(),
  description: fields.description.optional(),
  datasourceId: fields.datasourceId.optional(),
  identifierType: fields.identifierType.optional(),
  projects: fields.projects.optional(),
  managedBy: fields.managedBy.optional(),
  type: fields.type.optional(),
  query: fields.query.optional(),
  factTableId: fields.factTableId.optional(),
  filters: fields.filters.optional(),
});
export type SegmentUpdate = z.infer<typeof updateBody>;

const segmentResponse = z.object({ segment });

export const listSegments = defineEndpoint({
  operationId: 'listSegments',
  method: 'GET',
  path: '/segments',
  summary: 'List segments',
  tag: 'segments',
  permission: 'read',
  query: paginationQuery.extend({ datasourceId: z.string().min(1).max(256).optional() }),
  response: z.object({ segments: z.array(segment) }).extend(paginationFields.shape),
});

export const postSegment = defineEndpoint({
  operationId: 'postSegment',
  method: 'POST',
  path: '/segments',
  summary: 'Create a segment',
  tag: 'segments',
  permission: 'createSegments',
  projectScoped: true,
  body: z.strictObject({
    name: fields.name,
    owner: fields.owner.optional(),
    description: fields.description.optional(),
    datasourceId: fields.datasourceId,
    identifierType: fields.identifierType,
    projects: fields.projects.optional(),
    managedBy: fields.managedBy.optional(),
    type: fields.type,
    query: fields.query.optional(),
    factTableId: fields.factTableId.optional(),
    filters: fields.filters.optional(),
  }),
  response: segmentResponse,
});

export const getSegment = defineEndpoint({
  operationId: 'getSegment',
  method: 'GET',
  path: '/segments/{id}',
  summary: 'Get a segment',
  tag: 'segments',
  permission: 'read',
  params: idParams,
  response: segmentResponse,
});

export const updateSegment = defineEndpoint({
  operationId: 'updateSegment',
  method: 'POST',
  path: '/segments/{id}',
  summary: 'Partially update a segment',
  tag: 'segments',
  permission: 'createSegments',
  projectScoped: true,
  params: idParams,
  body: updateBody,
  response: segmentResponse,
});

/** The same update at the singular path the product spec writes (`POST /segment/{id}`). */
export const updateSegmentSingular = defineEndpoint({
  ...updateSegment,
  operationId: 'updateSegmentSingular',
  path: '/segment/{id}',
  summary: 'Partially update a segment (singular path)',
});

export const deleteSegment = defineEndpoint({
  operationId: 'deleteSegment',
  method: 'DELETE',
  path: '/segments/{id}',
  summary: 'Delete a segment',
  tag: 'segments',
  permission: 'createSegments',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const segmentEndpoints = [listSegments, postSegment, getSegment, updateSegment, updateSegmentSingular, deleteSegment];
