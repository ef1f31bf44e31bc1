import * as z from 'zod';
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

export const systemEndpoints = [getOpenApiDocument];
