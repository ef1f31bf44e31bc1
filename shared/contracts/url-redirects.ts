import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams } from './common';

// URL redirect tests: each variation of an experiment sends visitors of one origin URL to its own destination.

const destinationURL = z.strictObject({
  url: z.string().check(z.maxLength(2048)),
  variation: z.string().check(z.minLength(1), z.maxLength(256)),
});

export const urlRedirect = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  experiment: z.string(),
  urlPattern: z.string(),
  destinationURLs: z.array(destinationURL),
  persistQueryString: z.boolean(),
});
export type UrlRedirect = z.infer<typeof urlRedirect>;

const createBody = z.strictObject({
  experiment: z.string().check(z.minLength(1), z.maxLength(256)),
  urlPattern: z.string().check(z.minLength(1, 'A URL redirect needs an origin URL'), z.maxLength(2048)),
  destinationURLs: z.array(destinationURL).check(z.maxLength(100)),
  persistQueryString: z.optional(z.boolean()),
});
export type CreateUrlRedirectBody = z.infer<typeof createBody>;

const updateBody = z.partial(z.omit(createBody, { experiment: true }));
export type UpdateUrlRedirectBody = z.infer<typeof updateBody>;

const urlRedirectResponse = z.object({ urlRedirect });

export const listUrlRedirects = defineEndpoint({
  operationId: 'listUrlRedirects',
  method: 'GET',
  path: '/url-redirects',
  summary: 'List URL redirects',
  tag: 'url-redirects',
  permission: 'read',
  projectScoped: true,
  query: z.strictObject({ experimentId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }),
  response: z.object({ urlRedirects: z.array(urlRedirect) }),
});

export const createUrlRedirect = defineEndpoint({
  operationId: 'createUrlRedirect',
  method: 'POST',
  path: '/url-redirects',
  summary: 'Create a URL redirect for an experiment',
  tag: 'url-redirects',
  permission: 'manageVisualChanges',
  projectScoped: true,
  body: createBody,
  response: urlRedirectResponse,
});

export const getUrlRedirect = defineEndpoint({
  operationId: 'getUrlRedirect',
  method: 'GET',
  path: '/url-redirects/{id}',
  summary: 'Get a URL redirect',
  tag: 'url-redirects',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: urlRedirectResponse,
});

export const updateUrlRedirect = defineEndpoint({
  operationId: 'updateUrlRedirect',
  method: 'PUT',
  path: '/url-redirects/{id}',
  summary: 'Update a URL redirect',
  tag: 'url-redirects',
  permission: 'manageVisualChanges',
  projectScoped: true,
  params: idParams,
  body: updateBody,
  response: urlRedirectResponse,
});

export const deleteUrlRedirect = defineEndpoint({
  operationId: 'deleteUrlRedirect',
  method: 'DELETE',
  path: '/url-redirects/{id}',
  summary: 'Delete a URL redirect',
  tag: 'url-redirects',
  permission: 'manageVisualChanges',
  projectScoped: true,
  params: idParams,
  response: deletedResponse,
});

export const urlRedirectEndpoints = [listUrlRedirects, createUrlRedirect, getUrlRedirect, updateUrlRedirect, deleteUrlRedirect];
