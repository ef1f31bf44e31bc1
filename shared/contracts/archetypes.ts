import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, stringList } from './common';

export const archetype = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  description: z.optional(z.string()),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  isPublic: z.boolean(),
  attributes: z.record(z.string(), z.unknown()),
  projects: z.optional(z.array(z.string())),
});
export type Archetype = z.infer<typeof archetype>;

/** Parses a string as JSON, leaving anything else (and a string that is not JSON) as it is. */
function parsedIfJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Attribute values: an object, or (as GrowthBook's own sample sends it) a JSON-encoded object. */
const attributeValues = z.pipe(
  z.transform(parsedIfJson),
  z.record(z.string(), z.unknown(), { error: 'must be an object or a JSON-encoded object, e.g. {"country": "US"}' }),
);

const archetypeFields = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.string().check(z.maxLength(10_000)),
  isPublic: z.boolean(),
  attributes: attributeValues,
  projects: stringList,
  owner: z.string().check(z.maxLength(256)),
};
const archetypeResponse = z.object({ archetype });

export const listArchetypes = defineEndpoint({
  operationId: 'listArchetypes',
  method: 'GET',
  path: '/archetypes',
  summary: 'List archetypes',
  tag: 'archetypes',
  permission: 'read',
  projectScoped: true,
  // No filters: an unknown query parameter is refused like on every list.
  query: z.object({}),
  response: z.object({ archetypes: z.array(archetype) }),
});

export const postArchetype = defineEndpoint({
  operationId: 'postArchetype',
  method: 'POST',
  path: '/archetypes',
  summary: 'Create an archetype',
  tag: 'archetypes',
  permission: 'manageArchetype',
  projectScoped: true,
  body: z.required(z.partial(z.strictObject(archetypeFields)), { name: true, isPublic: true }),
  response: archetypeResponse,
});

export const getArchetype = defineEndpoint({
  operationId: 'getArchetype',
  method: 'GET',
  path: '/archetypes/{id}',
  summary: 'Get an archetype',
  tag: 'archetypes',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: archetypeResponse,
});

export const putArchetype = defineEndpoint({
  operationId: 'putArchetype',
  method: 'PUT',
  path: '/archetypes/{id}',
  summary: 'Partially update an archetype',
  tag: 'archetypes',
  permission: 'manageArchetype',
  projectScoped: true,
  params: idParams,
  body: z.partial(z.strictObject(archetypeFields)),
  response: archetypeResponse,
});

export const deleteArchetype = defineEndpoint({
  operationId: 'deleteArchetype',
  method: 'DELETE',
  path: '/archetypes/{id}',
  summary: 'Delete an archetype',
  tag: 'archetypes',
  permission: 'manageArchetype',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const archetypeEndpoints = [listArchetypes, postArchetype, getArchetype, putArchetype, deleteArchetype];
