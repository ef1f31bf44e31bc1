import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams, queryBoolean } from './common';
import { experiment } from './experiments';

export const urlPattern = z.strictObject({
  include: z.optional(z.boolean()),
  type: z.enum(['simple', 'regex']),
  pattern: z.string().check(z.minLength(1), z.maxLength(2048)),
});

export const domMutation = z.strictObject({
  selector: z.string().check(z.minLength(1), z.maxLength(2048)),
  action: z.enum(['append', 'set', 'remove']),
  attribute: z.string().check(z.minLength(1), z.maxLength(256)),
  value: z.optional(z.string()),
  parentSelector: z.optional(z.string()),
  insertBeforeSelector: z.optional(z.string()),
});

/** What one variation changes on the page. */
const visualChangeFields = {
  description: z.optional(z.string().check(z.maxLength(10_000))),
  css: z.optional(z.string()),
  js: z.optional(z.string()),
  variation: z.string().check(z.minLength(1), z.maxLength(256)),
  domMutations: z.optional(z.array(domMutation).check(z.maxLength(1000))),
};

/** A visual change as stored: it keeps its id, which the API shape leaves out. */
export const storedVisualChange = z.strictObject({ id: z.string(), ...visualChangeFields, domMutations: z.array(domMutation) });
export type StoredVisualChange = z.infer<typeof storedVisualChange>;

export const visualChangeset = z.strictObject({
  id: z.string(),
  urlPatterns: z.array(urlPattern),
  editorUrl: z.string(),
  experiment: z.string(),
  visualChanges: z.array(z.omit(storedVisualChange, { id: true })),
});

/** A visual changeset as stored: its visual changes carry their ids. */
export type StoredVisualChangeset = Omit<z.infer<typeof visualChangeset>, 'visualChanges'> & {
  visualChanges: StoredVisualChange[];
  dateCreated: string;
  dateUpdated: string;
};

const visualChangeInput = z.strictObject({
  id: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  ...visualChangeFields,
});
export type VisualChangeInput = z.infer<typeof visualChangeInput>;

const urlPatterns = z.array(urlPattern).check(z.maxLength(100));
const editorUrl = z.string().check(z.minLength(1), z.maxLength(2048));
const visualChangeParams = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  visualChangeId: z.string().check(z.minLength(1), z.maxLength(256)),
});

export const listVisualChangesets = defineEndpoint({
  operationId: 'listVisualChangesets',
  method: 'GET',
  path: '/experiments/{id}/visual-changesets',
  summary: "List an experiment's visual changesets",
  tag: 'visual-changesets',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  // No filters: an unknown query parameter is refused like on every list.
  query: z.object({}),
  response: z.object({ visualChangesets: z.array(visualChangeset) }),
});

export const postVisualChangesets = defineEndpoint({
  operationId: 'postVisualChangesets',
  method: 'POST',
  path: '/experiments/{id}/visual-changesets',
  summary: 'Create a visual changeset for an experiment',
  tag: 'visual-changesets',
  permission: 'manageVisualChanges',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({ editorUrl, urlPatterns }),
  response: z.object({ visualChangeset }),
});

export const getVisualChangeset = defineEndpoint({
  operationId: 'getVisualChangeset',
  method: 'GET',
  path: '/visual-changesets/{id}',
  summary: 'Get a visual changeset',
  tag: 'visual-changesets',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  query: z.object({ includeExperiment: z.optional(queryBoolean) }),
  response: z.object({ visualChangeset, experiment: z.optional(experiment) }),
});

export const putVisualChangeset = defineEndpoint({
  operationId: 'putVisualChangeset',
  method: 'PUT',
  path: '/visual-changesets/{id}',
  summary: 'Update a visual changeset',
  tag: 'visual-changesets',
  permission: 'manageVisualChanges',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    editorUrl: z.optional(editorUrl),
    urlPatterns: z.optional(urlPatterns),
    visualChanges: z.optional(z.array(visualChangeInput).check(z.maxLength(100))),
  }),
  response: z.object({ nModified: z.number(), visualChangeset }),
});

export const postVisualChange = defineEndpoint({
  operationId: 'postVisualChange',
  method: 'POST',
  path: '/visual-changesets/{id}/visual-change',
  summary: 'Add a visual change to a visual changeset',
  tag: 'visual-changesets',
  permission: 'manageVisualChanges',
  projectScoped: true,
  params: idParams,
  body: visualChangeInput,
  response: z.object({ nModified: z.number(), visualChangeId: z.string() }),
});

export const putVisualChange = defineEndpoint({
  operationId: 'putVisualChange',
  method: 'PUT',
  path: '/visual-changesets/{id}/visual-change/{visualChangeId}',
  summary: 'Update one visual change of a visual changeset',
  tag: 'visual-changesets',
  permission: 'manageVisualChanges',
  projectScoped: true,
  params: visualChangeParams,
  body: z.partial(visualChangeInput),
  response: z.object({ nModified: z.number() }),
});

export const visualChangesetEndpoints = [
  listVisualChangesets,
  postVisualChangesets,
  getVisualChangeset,
  putVisualChangeset,
  postVisualChange,
  putVisualChange,
];
