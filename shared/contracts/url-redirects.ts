import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams } from './common';

// URL redirect tests: each variation of an experiment sends visitors of one origin URL to its own destination.

const destinationURL = z.strictObject({
  url: z.string().max(2048),
  variation: z.string().min(1).max(256),
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
  experiment: z.string().min(1).max(256),
  urlPattern: z.string().min(1, 'A URL redirect needs an origin URL').max(2048),
  destinationURLs: z.array(destinationURL).max(100),
  persistQueryString: z.boolean().optional(),
});
export type CreateUrlRedirectBody = z.infer<typeof createBody>;

const updateBody = createBody.omit({ experiment: true }).partial();
export type UpdateUrlRedirectBody = z.infer<typeof updateBody>;

const urlRedirectResponse = z.object({ urlRedirect });

export const listUrlRedirects = defineEndpoint({
  operationId: 'listUrlRedirects',
  method: 'GET',
  path: '/url-redirects',
  summary: 'List URL redirects',
  tag: 'url-redirects',
  permission: 'read',
  query: z.strictObject({ experimentId: z.string().min(1).max(256).optional() }),
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
