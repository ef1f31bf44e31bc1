import * as z from './zod';
import { defineEndpoint } from './spec';
import { stringList } from './common';

export const attributeDatatypes = [
  'boolean',
  'string',
  'number',
  'secureString',
  'enum',
  'string[]',
  'number[]',
  'secureString[]',
] as const;
export const attributeFormats = ['', 'version', 'date', 'isoCountryCode'] as const;

export const attribute = z.object({
  property: z.string(),
  datatype: z.enum(attributeDatatypes),
  description: z.optional(z.string()),
  hashAttribute: z.optional(z.boolean()),
  archived: z.optional(z.boolean()),
  enum: z.optional(z.string()),
  format: z.optional(z.enum(attributeFormats)),
  projects: z.optional(z.array(z.string())),
  tags: z.optional(z.array(z.string())),
});
export type Attribute = z.infer<typeof attribute>;

const property = z.string().check(z.minLength(1), z.maxLength(256));

/** The fields of an attribute besides its property, all optional on update. */
const attributeFields = z.strictObject({
  datatype: z.enum(attributeDatatypes),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  archived: z.optional(z.boolean()),
  hashAttribute: z.optional(z.boolean()),
  enum: z.optional(z.string().check(z.maxLength(100_000))),
  format: z.optional(z.enum(attributeFormats)),
  projects: z.optional(stringList),
  tags: z.optional(stringList),
});

const attributeResponse = z.object({ attribute });
const propertyParams = z.object({ property });

export const listAttributes = defineEndpoint({
  operationId: 'listAttributes',
  method: 'GET',
  path: '/attributes',
  summary: 'List targeting attributes',
  tag: 'attributes',
  permission: 'read',
  projectScoped: true,
  // No filters: an unknown query parameter is refused like on every list.
  query: z.object({}),
  response: z.object({ attributes: z.array(attribute) }),
});

export const postAttribute = defineEndpoint({
  operationId: 'postAttribute',
  method: 'POST',
  path: '/attributes',
  summary: 'Create a targeting attribute',
  tag: 'attributes',
  permission: 'manageTargetingAttributes',
  projectScoped: true,
  body: z.extend(attributeFields, { property }),
  response: attributeResponse,
});

export const putAttribute = defineEndpoint({
  operationId: 'putAttribute',
  method: 'PUT',
  path: '/attributes/{property}',
  summary: 'Partially update a targeting attribute',
  tag: 'attributes',
  permission: 'manageTargetingAttributes',
  projectScoped: true,
  params: propertyParams,
  body: z.partial(attributeFields),
  response: attributeResponse,
});

export const deleteAttribute = defineEndpoint({
  operationId: 'deleteAttribute',
  method: 'DELETE',
  path: '/attributes/{property}',
  summary: 'Delete a targeting attribute',
  tag: 'attributes',
  permission: 'manageTargetingAttributes',
  projectScoped: true,
  params: propertyParams,
  response: z.object({ deletedProperty: z.string() }),
});

export const attributeEndpoints = [listAttributes, postAttribute, putAttribute, deleteAttribute];
