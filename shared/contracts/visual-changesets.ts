import * as z from 'zod';
import { defineEndpoint } from './spec';
import { idParams, queryBoolean } from './common';
import { experiment } from './experiments';

export const urlPattern = z.strictObject({
  include: z.boolean().optional(),
  type: z.enum(['simple', 'regex']),
  pattern: z.string().min(1).max(2048),
});

export const domMutation = z.strictObject({
  selector: z.string().min(1).max(2048),
  action: z.enum(['append', 'set', 'remove']),
  attribute: z.string().min(1).max(256),
  value: z.string().optional(),
  parentSelector: z.string().optional(),
  insertBeforeSelector: z.string().optional(),
});

/** What one variation changes on the page. */
const visualChangeFields = {
  description: z.string().max(10_000).optional(),
  css: z.string().optional(),
  js: z.string().optional(),
  variation: z.string().min(1).max(256),
  domMutations: z.array(domMutation).max(1000).optional(),
};

/** A visual change as stored: it keeps its id, which the API shape leaves out. */
export const storedVisualChange = z.strictObject({ id: z.string(), ...visualChangeFields, domMutations: z.array(domMutation) });
export type StoredVisualChange = z.infer<typeof storedVisualChange>;

export const visualChangeset = z.strictObject({
  id: z.string(),
  urlPatterns: z.array(urlPattern),
  editorUrl: z.string(),
  experiment: z.string(),
  visualChanges: z.array(storedVisualChange.omit({ id: true })),
});

/** A visual changeset as stored: its visual changes carry their ids. */
export type StoredVisualChangeset = Omit<z.infer<typeof visualChangeset>, 'visualChanges'> & {
  visualChanges: StoredVisualChange[];
  dateCreated: string;
  dateUpdated: string;
};

const visualChangeInput = z.strictObject({ id: z.string().min(1).max(256).optional(), ...visualChangeFields });
export type VisualChangeInput = z.infer<typeof visualChangeInput>;

const urlPatterns = z.array(urlPattern).max(100);
const editorUrl = z.string().min(1).max(2048);
const visualChangeParams = z.object({ id: z.string().min(1).max(256), visualChangeId: z.string().min(1).max(256) });

export const listVisualChangesets = defineEndpoint({
  operationId: 'listVisualChangesets',
  method: 'GET',
  path: '/experiments/{id}/visual-changesets',
  summary: "List an experiment's visual changesets",
  tag: 'visual-changesets',
  permission: 'read',
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
  params: idParams,
  query: z.object({ includeExperiment: queryBoolean.optional() }),
  response: z.object({ visualChangeset, experiment: experiment.optional() }),
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
    editorUrl: editorUrl.optional(),
    urlPatterns: urlPatterns.optional(),
    visualChanges: z.array(visualChangeInput).max(100).optional(),
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
  body: visualChangeInput.partial(),
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
