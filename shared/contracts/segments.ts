import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

export const segment = z.object({
  id: z.string(),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  datasourceId: z.string(),
  identifierType: z.string(),
  name: z.string(),
  description: z.optional(z.string()),
  query: z.optional(z.string()),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  managedBy: z.optional(z.enum(['', 'api', 'config'])),
  type: z.optional(z.enum(['SQL', 'FACT'])),
  factTableId: z.optional(z.string()),
  filters: z.optional(z.array(z.string())),
  projects: z.optional(z.array(z.string())),
});
export type Segment = z.infer<typeof segment>;

const fields = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  owner: z.string().check(z.maxLength(256)),
  description: z.string().check(z.maxLength(10_000)),
  datasourceId: z.string().check(z.minLength(1), z.maxLength(256)),
  identifierType: z.string().check(z.minLength(1), z.maxLength(256)),
  projects: stringList,
  managedBy: z.enum(['', 'api']),
  type: z.enum(['SQL', 'FACT']),
  // `""` where the type does not use it, as GET answers it, so a segment read can be sent back.
  query: z.string().check(z.trim(), z.maxLength(100_000)),
  factTableId: z.string().check(z.maxLength(256)),
  filters: stringList,
};

const updateBody = z.strictObject({
  name: z.optional(fields.name),
  owner: z.optional(fields.owner),
  description: z.optional(fields.description),
  datasourceId: z.optional(fields.datasourceId),
  identifierType: z.optional(fields.identifierType),
  projects: z.optional(fields.projects),
  managedBy: z.optional(fields.managedBy),
  type: z.optional(fields.type),
  query: z.optional(fields.query),
  factTableId: z.optional(fields.factTableId),
  filters: z.optional(fields.filters),
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
  projectScoped: true,
  query: z.extend(paginationQuery, { datasourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }),
  response: z.extend(z.object({ segments: z.array(segment) }), paginationFields.shape),
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
    owner: z.optional(fields.owner),
    description: z.optional(fields.description),
    datasourceId: fields.datasourceId,
    identifierType: fields.identifierType,
    projects: z.optional(fields.projects),
    managedBy: z.optional(fields.managedBy),
    type: fields.type,
    query: z.optional(fields.query),
    factTableId: z.optional(fields.factTableId),
    filters: z.optional(fields.filters),
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
  projectScoped: true,
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
