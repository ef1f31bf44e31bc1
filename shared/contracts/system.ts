import * as z from './zod';
import { defineEndpoint } from './spec';

export const getOpenApiDocument = defineEndpoint({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  summary: 'The OpenAPI 3.1 document of this API',
  tag: 'system',
  permission: 'public',
  response: z.record(z.string(), z.unknown()),
});

export const getOpenApiYaml = defineEndpoint({
  operationId: 'getOpenApiYaml',
  method: 'GET',
  path: '/openapi.yaml',
  summary: 'The OpenAPI 3.1 document of this API, as YAML (the same document as openapi.json)',
  tag: 'system',
  permission: 'public',
  response: z.string(),
});

/** Which build is serving: the commit and date it was built from (empty when unknown), and the release. */
export const build = z.object({ sha: z.string(), date: z.string(), lastVersion: z.string() });

export const getApiInfo = defineEndpoint({
  operationId: 'getApiInfo',
  method: 'GET',
  path: '',
  summary: 'Health check: the name, API version and build of the service',
  tag: 'system',
  permission: 'public',
  response: z.object({ name: z.string(), apiVersion: z.literal(1), build }),
});

export const getVersion = defineEndpoint({
  operationId: 'getVersion',
  method: 'GET',
  path: '/version',
  summary: 'The release of the service and the build serving it',
  tag: 'system',
  permission: 'public',
  response: z.object({ version: z.string(), apiVersion: z.literal(1), build }),
});

export const getApiDocs = defineEndpoint({
  operationId: 'getApiDocs',
  method: 'GET',
  path: '/docs',
  summary: 'The API reference page: openapi.json rendered by Swagger UI, in HTML',
  tag: 'system',
  permission: 'public',
  openApi: false,
  response: z.string(),
});

export const getApiDocsAsset = defineEndpoint({
  operationId: 'getApiDocsAsset',
  method: 'GET',
  path: '/docs/{asset}',
  summary: "A script, style sheet or icon of the API reference page, from the page's own origin",
  tag: 'system',
  permission: 'public',
  openApi: false,
  params: z.object({ asset: z.string() }),
  response: z.string(),
});


/**
 * GrowthBook's health check, at the root as GrowthBook serves it: GrowthBook Proxy calls it to report
 * the API's health. As GrowthBook's, it says the service answers, without touching the database.
 */
export const getHealthcheck = defineEndpoint({
  operationId: 'getHealthcheck',
  method: 'GET',
  basePath: '',
  path: '/healthcheck',
  summary: "Health check at GrowthBook's path, for GrowthBook Proxy: the service is answering",
  tag: 'system',
  permission: 'public',
  response: z.object({ status: z.literal(200), healthy: z.literal(true) }),
});

export const systemEndpoints = [getOpenApiDocument, getOpenApiYaml, getApiInfo, getVersion, getHealthcheck, getApiDocs, getApiDocsAsset];
