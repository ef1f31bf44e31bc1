import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, stringList } from './common';

// Custom fields: extra, organization-defined fields on features and experiments.

const fieldTypes = z.enum(['text', 'textarea', 'markdown', 'enum', 'multiselect', 'url', 'number', 'boolean', 'date', 'datetime']);
const section = z.enum(['feature', 'experiment']);
const date = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
const defaultValue = z.union([
  z.string().check(z.maxLength(10_000)),
  z.number(),
  z.boolean(),
  date,
  z.array(z.string().check(z.maxLength(10_000))).check(z.maxLength(1000)),
  z.array(z.number()).check(z.maxLength(1000)),
  z.array(z.boolean()).check(z.maxLength(1000)),
]);

export const customField = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  description: z.optional(z.string()),
  placeholder: z.optional(z.string()),
  defaultValue: z.optional(defaultValue),
  type: fieldTypes,
  values: z.optional(z.string()),
  required: z.boolean(),
  index: z.optional(z.boolean()),
  creator: z.optional(z.string()),
  projects: z.optional(z.array(z.string())),
  section,
  active: z.optional(z.boolean()),
});
export type CustomField = z.infer<typeof customField>;

const createBody = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  placeholder: z.optional(z.string().check(z.maxLength(10_000))),
  defaultValue: z.optional(defaultValue),
  type: fieldTypes,
  values: z.optional(z.string().check(z.maxLength(100_000))),
  required: z.boolean(),
  index: z.optional(z.boolean()),
  projects: z.optional(stringList),
  section,
});
const customFieldResponse = z.object({ customField });

export const listCustomFields = defineEndpoint({
  operationId: 'listCustomFields',
  method: 'GET',
  path: '/custom-fields',
  summary: 'List custom fields (with projectId: those of that project and those of every project)',
  tag: 'custom-fields',
  permission: 'read',
  query: z.strictObject({ projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }),
  response: z.array(customField),
});

export const createCustomField = defineEndpoint({
  operationId: 'createCustomField',
  method: 'POST',
  path: '/custom-fields',
  summary: 'Create a custom field',
  tag: 'custom-fields',
  permission: 'manageCustomFields',
  body: createBody,
  response: customFieldResponse,
});

export const getCustomField = defineEndpoint({
  operationId: 'getCustomField',
  method: 'GET',
  path: '/custom-fields/{id}',
  summary: 'Get a custom field',
  tag: 'custom-fields',
  permission: 'read',
  params: idParams,
  response: customFieldResponse,
});

export const updateCustomField = defineEndpoint({
  operationId: 'updateCustomField',
  method: 'PUT',
  path: '/custom-fields/{id}',
  summary: 'Update a custom field',
  tag: 'custom-fields',
  permission: 'manageCustomFields',
  params: idParams,
  body: z.partial(z.omit(createBody, { id: true })),
  response: customFieldResponse,
});

export const deleteCustomField = defineEndpoint({
  operationId: 'deleteCustomField',
  method: 'DELETE',
  path: '/custom-fields/{id}',
  summary: 'Delete a custom field',
  tag: 'custom-fields',
  permission: 'manageCustomFields',
  params: idParams,
  // GrowthBook's delete takes the field's position too; the id alone names it here.
  query: z.strictObject({ index: z.optional(z.coerce.number().check(z.int(), z.gte(0))) }),
  response: deletedResponse,
});

export const customFieldEndpoints = [listCustomFields, createCustomField, getCustomField, updateCustomField, deleteCustomField];
