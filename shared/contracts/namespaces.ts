import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery } from './common';

// Namespaces: mutually exclusive traffic ranges experiments claim (phases' `namespace.namespaceId`).

export const namespace = z.object({
  id: z.string(),
  displayName: z.string(),
  description: z.string(),
  status: z.enum(['active', 'inactive']),
  format: z.enum(['legacy', 'multiRange']),
  hashAttribute: z.optional(z.string()),
  seed: z.optional(z.string()),
});
export type Namespace = z.infer<typeof namespace>;
/** A namespace as stored, with the dates the store keeps. */
export type StoredNamespace = Namespace & { dateCreated: string; dateUpdated: string };

const displayName = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const namespaceResponse = z.object({ namespace });

export const listNamespaces = defineEndpoint({
  operationId: 'listNamespaces',
  method: 'GET',
  path: '/namespaces',
  summary: 'List namespaces',
  tag: 'namespaces',
  permission: 'read',
  query: z.strictObject(paginationQuery.shape),
  response: z.extend(z.object({ namespaces: z.array(namespace) }), paginationFields.shape),
});

export const getNamespace = defineEndpoint({
  operationId: 'getNamespace',
  method: 'GET',
  path: '/namespaces/{id}',
  summary: 'Get a namespace',
  tag: 'namespaces',
  permission: 'read',
  params: idParams,
  response: namespaceResponse,
});

export const postNamespace = defineEndpoint({
  operationId: 'postNamespace',
  method: 'POST',
  path: '/namespaces',
  summary: 'Create a namespace (multiRange by default, which needs a hashAttribute)',
  tag: 'namespaces',
  permission: 'manageNamespaces',
  body: z.strictObject({
    displayName,
    description: z.optional(z.string().check(z.maxLength(10_000))),
    status: z.optional(z.enum(['active', 'inactive'])),
    format: z.optional(z.enum(['legacy', 'multiRange'])),
    hashAttribute: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
  response: namespaceResponse,
});

export const putNamespace = defineEndpoint({
  operationId: 'putNamespace',
  method: 'PUT',
  path: '/namespaces/{id}',
  summary: 'Update a namespace',
  tag: 'namespaces',
  permission: 'manageNamespaces',
  params: idParams,
  body: z.strictObject({
    displayName: z.optional(displayName),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    status: z.optional(z.enum(['active', 'inactive'])),
    hashAttribute: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
  response: namespaceResponse,
});

export const deleteNamespace = defineEndpoint({
  operationId: 'deleteNamespace',
  method: 'DELETE',
  path: '/namespaces/{id}',
  summary: 'Delete a namespace no experiment uses',
  tag: 'namespaces',
  permission: 'manageNamespaces',
  params: idParams,
  response: deletedResponse,
});

export const postNamespaceRotateSeed = defineEndpoint({
  operationId: 'postNamespaceRotateSeed',
  method: 'POST',
  path: '/namespaces/{id}/rotateSeed',
  summary: "Give a multiRange namespace a new seed (the given one, or a random one), reshuffling which users fall in its experiments' ranges",
  tag: 'namespaces',
  permission: 'manage',
  params: idParams,
  body: z.strictObject({ seed: z.optional(z.string().check(z.maxLength(256))) }),
  response: namespaceResponse,
});

/** An experiment whose latest phase claims ranges of the namespace. */
export const namespaceExperimentMember = z.object({
  id: z.string(),
  name: z.string(),
  trackingKey: z.string(),
  status: z.string(),
  ranges: z.array(z.tuple([z.number(), z.number()])),
});
export type NamespaceExperimentMember = z.infer<typeof namespaceExperimentMember>;

export const getNamespaceMemberships = defineEndpoint({
  operationId: 'getNamespaceMemberships',
  method: 'GET',
  path: '/namespaces/{id}/memberships',
  summary: 'List the experiments whose latest phase uses the namespace, with the ranges they claim',
  tag: 'namespaces',
  permission: 'read',
  params: idParams,
  query: z.strictObject(paginationQuery.shape),
  response: z.extend(z.object({ experiments: z.array(namespaceExperimentMember) }), paginationFields.shape),
});

export const namespaceEndpoints = [
  listNamespaces,
  getNamespace,
  postNamespace,
  putNamespace,
  deleteNamespace,
  postNamespaceRotateSeed,
  getNamespaceMemberships,
];
