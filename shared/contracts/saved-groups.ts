import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

export const savedGroup = z.object({
  id: z.string(),
  type: z.enum(['condition', 'list']),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  owner: z.string().optional(),
  ownerEmail: z.string().optional(),
  condition: z.string().optional(),
  attributeKey: z.string().optional(),
  values: z.array(z.string()).optional(),
  description: z.string().optional(),
  projects: z.array(z.string()).optional(),
  archived: z.boolean().optional(),
  useEmptyListGroup: z.boolean().optional(),
});
export type SavedGroup = z.infer<typeof savedGroup>;

/** A JSON-encoded condition: must parse to an object; `""` means none and is stored as `"{}"`, as in GrowthBook. */
export const jsonCondition = z.string().overwrite((text) => (text.trim() === '' ? '{}' : text)).refine(
  (text) => {
    try {
      const parsed = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    } catch {
      return false;
    }
  },
  { message: 'must be a JSON-encoded object, e.g. {"country": "US"}' },
);

const name = z.string().trim().min(1).max(256);
const owner = z.string().max(256);
const savedGroupResponse = z.object({ savedGroup });

const createBody = z.strictObject({
  name,
  type: z.enum(['condition', 'list']).optional(),
  condition: jsonCondition.optional(),
  attributeKey: z.string().min(1).max(256).optional(),
  // Limited by size (1 MiB, as in GrowthBook), not by count; see assertValuesSize.
  values: z.array(z.string()).optional(),
  owner: owner.optional(),
  description: z.string().max(10_000).optional(),
  projects: stringList.optional(),
  bypassApproval: z.boolean().optional(),
});

export const listSavedGroups = defineEndpoint({
  operationId: 'listSavedGroups',
  method: 'GET',
  path: '/saved-groups',
  summary: 'List saved groups',
  tag: 'saved-groups',
  permission: 'read',
  query: paginationQuery,
  response: z.object({ savedGroups: z.array(savedGroup) }).extend(paginationFields.shape),
});

export const postSavedGroup = defineEndpoint({
  operationId: 'postSavedGroup',
  method: 'POST',
  path: '/saved-groups',
  summary: 'Create a saved group',
  tag: 'saved-groups',
  permission: 'manageSavedGroups',
  projectScoped: true,
  body: createBody,
  response: savedGroupResponse,
});

export const getSavedGroup = defineEndpoint({
  operationId: 'getSavedGroup',
  method: 'GET',
  path: '/saved-groups/{id}',
  summary: 'Get a saved group',
  tag: 'saved-groups',
  permission: 'read',
  params: idParams,
  response: savedGroupResponse,
});

export const updateSavedGroup = defineEndpoint({
  operationId: 'updateSavedGroup',
  method: 'POST',
  path: '/saved-groups/{id}',
  summary: 'Partially update a saved group',
  tag: 'saved-groups',
  permission: 'manageSavedGroups',
  projectScoped: true,
  params: idParams,
  // A group's type and attribute are fixed at creation; everything else may change.
  body: createBody.omit({ type: true, attributeKey: true }).partial(),
  response: savedGroupResponse,
});

export const deleteSavedGroup = defineEndpoint({
  operationId: 'deleteSavedGroup',
  method: 'DELETE',
  path: '/saved-groups/{id}',
  summary: 'Delete a saved group',
  tag: 'saved-groups',
  permission: 'manageSavedGroups',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const savedGroupEndpoints = [listSavedGroups, postSavedGroup, getSavedGroup, updateSavedGroup, deleteSavedGroup];
