import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, stringList } from './common';

// Custom fields: extra, organization-defined fields on features and experiments.

const fieldTypes = z.enum(['text', 'textarea', 'markdown', 'enum', 'multiselect', 'url', 'number', 'boolean', 'date', 'datetime']);
const section = z.enum(['feature', 'experiment']);
const date = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
const defaultValue = z.union([
  z.string().max(10_000),
  z.number(),
  z.boolean(),
  date,
  z.array(z.string().max(10_000)).max(1000),
  z.array(z.number()).max(1000),
  z.array(z.boolean()).max(1000),
]);

export const customField = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  description: z.string().optional(),
  placeholder: z.string().optional(),
  defaultValue: defaultValue.optional(),
  type: fieldTypes,
  values: z.string().optional(),
  required: z.boolean(),
  index: z.boolean().optional(),
  creator: z.string().optional(),
  projects: z.array(z.string()).optional(),
  section,
  active: z.boolean().optional(),
});
export type CustomField = z.infer<typeof customField>;

const createBody = z.strictObject({
  id: z.string().min(1).max(256),
  name: z.string().trim().min(1).max(256),
  description: z.string().max(10_000).optional(),
  placeholder: z.string().max(10_000).optional(),
  defaultValue: defaultValue.optional(),
  type: fieldTypes,
  values: z.string().max(100_000).optional(),
  required: z.boolean(),
  index: z.boolean().optional(),
  projects: stringList.optional(),
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
  query: z.strictObject({ projectId: z.string().min(1).max(256).optional() }),
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
  body: createBody.omit({ id: true }).partial(),
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
  query: z.strictObject({ index: z.coerce.number().int().min(0).optional() }),
  response: deletedResponse,
});

export const customFieldEndpoints = [listCustomFields, createCustomField, getCustomField, updateCustomField, deleteCustomField];
