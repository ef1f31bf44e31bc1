import * as z from 'zod';
import type { Route } from '../contracts/registry';
import { fullPath } from '../contracts/spec';

type JsonSchema = Record<string, unknown>;

const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  return rest;
};

const errorResponse = {
  description: 'Error',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { message: { type: 'string' }, code: { type: 'string' }, details: { type: 'object' } },
        required: ['message'],
      },
    },
  },
};

/** Path and query parameters from an object schema, as OpenAPI parameter objects. */
function parametersOf(location: 'path' | 'query', schema: z.ZodType | undefined) {
  if (!schema) return [];
  const json = schemaOf(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

/** The OpenAPI 3.1 document of every route in the registry. */
export function openApiDocument(routes: Route[], version = '1.0.0') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of routes) {
    const operation: Record<string, unknown> = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.permission === 'public' ? { security: [] } : {}),
      parameters: [...parametersOf('path', spec.params), ...parametersOf('query', spec.query)],
      ...(spec.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(spec.body, 'input') } } } }
        : {}),
      responses: {
        '200': { description: 'Success', content: { 'application/json': { schema: schemaOf(spec.response, 'output') } } },
        ...Object.fromEntries(['400', '401', '403', '404', '409'].map((status) => [status, errorResponse])),
      },
    };
    (paths[fullPath(spec)] ??= {})[spec.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Switchyard API', version, description: 'Feature flags and experimentation, compatible with GrowthBook /api/v1.' },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { basicAuth: [] }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        basicAuth: { type: 'http', scheme: 'basic' },
      },
    },
    paths,
  };
}
