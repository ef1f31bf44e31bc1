import * as z from './zod';
import { defineEndpoint } from './spec';
import { safePatterns } from './condition-patterns';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

export const savedGroup = z.object({
  id: z.string(),
  type: z.enum(['condition', 'list']),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  owner: z.optional(z.string()),
  ownerEmail: z.optional(z.string()),
  condition: z.optional(z.string()),
  attributeKey: z.optional(z.string()),
  values: z.optional(z.array(z.string())),
  description: z.optional(z.string()),
  projects: z.optional(z.array(z.string())),
  archived: z.optional(z.boolean()),
  useEmptyListGroup: z.optional(z.boolean()),
});
export type SavedGroup = z.infer<typeof savedGroup>;

/** A JSON-encoded condition: must parse to an object; `""` means none and is stored as `"{}"`, as in GrowthBook. */
export const jsonCondition = z.string().check(
  z.overwrite((text) => (text.trim() === '' ? '{}' : text)),
  z.refine(
    (text) => {
      try {
        const parsed = JSON.parse(text);
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      } catch {
        return false;
      }
    },
    { message: 'must be a JSON-encoded object, e.g. {"country": "US"}', abort: true },
  ),
  safePatterns,
);

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const owner = z.string().check(z.maxLength(256));
const savedGroupResponse = z.object({ savedGroup });

const createBody = z.strictObject({
  name,
  type: z.optional(z.enum(['condition', 'list'])),
  condition: z.optional(jsonCondition),
  attributeKey: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  // Limited by size (1 MiB, as in GrowthBook), not by count; see assertValuesSize.
  values: z.optional(z.array(z.string())),
  owner: z.optional(owner),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  projects: z.optional(stringList),
  bypassApproval: z.optional(z.boolean()),
});

export const listSavedGroups = defineEndpoint({
  operationId: 'listSavedGroups',
  method: 'GET',
  path: '/saved-groups',
  summary: 'List saved groups',
  tag: 'saved-groups',
  permission: 'read',
  projectScoped: true,
  query: paginationQuery,
  response: z.extend(z.object({ savedGroups: z.array(savedGroup) }), paginationFields.shape),
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
  projectScoped: true,
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
  body: z.partial(z.omit(createBody, { type: true, attributeKey: true })),
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
