import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import type { EndpointSpec, UseCaseInput } from '../contracts/spec';
import { authenticate } from './auth';
import { ForbiddenError, InvalidInputError, UnavailableError } from '../errors';
import { ApiError, PayloadTooLargeError, toApiError, UnsupportedMediaTypeError } from './errors';
import { isTransient } from '../db/transient';
import { logger } from '../logger';
import { dynamoMeter } from '../db/client';
import { emitMetrics, metricsEnabled, takeRequestMetrics } from '../metrics';
import { can, canSomewhere, type Principal } from '../permissions';
import { EncodedResponse, HttpResponse, jsonHeaders } from './responses';
import { parseInput, validationError } from './validation';

export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** What a handler receives: validated input and the caller (what its use case takes), and the raw event. */
export interface EndpointRequest<Spec extends EndpointSpec> extends UseCaseInput<Spec> {
  event: APIGatewayProxyEventV2;
}

type Result<Spec extends EndpointSpec> = z.input<Spec['response']> | HttpResponse | EncodedResponse;

interface State {
  auth?: Principal;
  body?: unknown;
  /** When the request began and what the DynamoDB meter said then, while metrics are on. */
  measure?: { started: number; before: DynamoUse };
}
type ApiContext = Context & State;
type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext>;
type Middleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext>;

const isJson = (contentType: string) => /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType);
const isForm = (contentType: string) => /^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType);

/**
 * A form body as GrowthBook's API reads it (body-parser's extended mode): `a[b]=1&c[]=x` nests, and
 * every value is a string, so a field that needs a number or boolean is refused by validation.
 * qs (with its dependencies) is loaded on the first form body: JSON requests, nearly all of them,
 * never pay for it at cold start. In a bundle it is a file of its own (see infra/esbuild-build.mjs).
 */
const parseForm = async (text: string) => (await import('qs')).parse(text, { depth: 32, parameterLimit: 1000, arrayLimit: 100 });

/** Reads the body: JSON or a form; 413 over 2 MB, 415 for another content type, 400 for malformed JSON. */
const jsonBody = (): Middleware => ({
  before: async (request: Request) => {
    const { event } = request;
    if (event.body === undefined || event.body === null || event.body === '') return;
    const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
    if (raw.byteLength > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    const contentType = event.headers?.['content-type'];
    if (contentType && isForm(contentType)) {
      request.context.body = await parseForm(raw.toString('utf8'));
      return;
    }
    if (contentType && !isJson(contentType)) throw new UnsupportedMediaTypeError(contentType);
    try {
      request.context.body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new InvalidInputError('Request body: is not valid JSON');
    }
  },
});

/** Resolves the key and checks the spec's permission against the caller's roles (globally, or in some project when project-scoped). */
const authorize = (spec: EndpointSpec): Middleware => ({
  before: async (request: Request) => {
    if (spec.permission === 'public') return;
    const auth = await authenticate(request.event.headers?.authorization);
    const allowed = spec.projectScoped ? canSomewhere(auth, spec.permission) : can(auth, spec.permission);
    if (!allowed) throw new ForbiddenError(`This key's role does not grant the ${spec.permission} permission`);
    request.context.auth = auth;
  },
});

/**
 * One EMF line per request (shared/metrics.ts), when metrics are on: latency, the DynamoDB calls,
 * capacity units and retries the meter counted during the request, the status class, and what the
 * request's code recorded (the SDK payload's cache hit). Latency and capacity units are kept per
 * operation; calls, retries and status classes only for the whole service, to keep custom metrics few.
 */
/** What the meter has counted so far, retries included. */
const dynamoUse = () => ({ ...dynamoMeter.snapshot(), retries: dynamoMeter.retries });
type DynamoUse = ReturnType<typeof dynamoUse>;

const requestMetrics = (spec: EndpointSpec): Middleware => {
  const emit = (request: Request, statusCode: number) => {
    const { started, before } = request.context.measure!;
    const used = dynamoUse();
    emitMetrics({ Operation: spec.operationId, StatusClass: `${Math.floor(statusCode / 100)}xx` }, [
      {
        dimensions: [['Service', 'Operation'], ['Service']],
        metrics: [
          { name: 'Latency', unit: 'Milliseconds', value: Math.round((performance.now() - started) * 100) / 100 },
          { name: 'ReadUnits', unit: 'None', value: used.readUnits - before.readUnits },
          { name: 'WriteUnits', unit: 'None', value: used.writeUnits - before.writeUnits },
        ],
      },
      {
        dimensions: [['Service']],
        metrics: [
          { name: 'DynamoCalls', unit: 'Count', value: used.calls - before.calls },
          { name: 'DynamoRetries', unit: 'Count', value: used.retries - before.retries },
        ],
      },
      { dimensions: [['Service', 'StatusClass']], metrics: [{ name: 'Requests', unit: 'Count', value: 1 }] },
      { dimensions: [['Service', 'Operation']], metrics: takeRequestMetrics() },
    ]);
  };
  return {
    before: (request: Request) => {
      if (!metricsEnabled()) return;
      request.context.measure = { started: performance.now(), before: dynamoUse() };
      takeRequestMetrics(); // nothing left over from work done between requests
    },
    after: (request: Request) => {
      if (request.context.measure) emit(request, request.response?.statusCode ?? 200);
    },
    onError: (request: Request) => {
      if (request.context.measure) emit(request, request.response?.statusCode ?? 500);
    },
  };
};

function errorResponse(error: ApiError): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { ...jsonHeaders };
  if (error.status === 401) headers['www-authenticate'] = 'Bearer';
  if (error.status === 503) headers['retry-after'] = '1';
  const body = { message: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) };
  return { statusCode: error.status, headers, body: JSON.stringify(body) };
}

/** Last in the stack: every error becomes JSON; only a bug is a 500, and its details go to the log only. */
const jsonErrors = (spec: EndpointSpec): Middleware => ({
  onError: (request: Request) => {
    const error = request.error as Error & { $metadata?: unknown };
    const known = toApiError(error);
    if (known) {
      request.response = errorResponse(known);
    } else if (error?.name === 'ZodError') {
      request.response = errorResponse(toApiError(validationError('body', (error as unknown as z.core.$ZodError).issues))!);
    } else if (isTransient(error)) {
      // Throttled, timed out, dropped or failing past the client's retries: the caller may retry later.
      logger.warn('DynamoDB unavailable after retries', { operationId: spec.operationId, error: error.name, code: (error as { code?: string }).code });
      request.response = errorResponse(toApiError(new UnavailableError())!);
    } else {
      logger.error('Unhandled error', { operationId: spec.operationId, error });
      request.response = errorResponse(new ApiError(500, 'internal', 'Internal server error'));
    }
  },
});

function toResult(result: unknown): APIGatewayProxyStructuredResultV2 {
  if (result instanceof EncodedResponse) {
    const { statusCode, body, headers, isBase64Encoded } = result;
    return { statusCode, headers, body, isBase64Encoded };
  }
  if (result instanceof HttpResponse) {
    return {
      statusCode: result.statusCode,
      headers: { ...(result.body === undefined ? {} : jsonHeaders), ...result.headers },
      body: result.body === undefined ? '' : JSON.stringify(result.body),
    };
  }
  return { statusCode: 200, headers: jsonHeaders, body: JSON.stringify(result) };
}

/** An object schema that refuses keys it does not name, as zod's `.strict()` makes it. */
const strict = (schema: z.core.$ZodType) => {
  if (schema._zod.def.type !== 'object') return schema;
  const object = schema as z.core.$ZodObject;
  return z.clone(object, { ...object._zod.def, catchall: z.never() });
};

/**
 * The one middy stack every endpoint uses: log context, request metrics, header normaliser, JSON body (2 MB), auth, permission,
 * zod validation of params, query and body, and the JSON error handler. `fn` holds only what is
 * special about the endpoint.
 */
export function endpoint<Spec extends EndpointSpec>(
  spec: Spec,
  fn: (request: EndpointRequest<Spec>) => Promise<Result<Spec>>,
) {
  // Query strings are strict, as GrowthBook's: a misspelt filter (`?projectID=`) is a 400, not the whole list.
  const query = spec.query && strict(spec.query);
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext>()
    .use({ before: (request: Request) => logger.addContext(request.context) }) // every log line carries the request id
    .use(requestMetrics(spec)) // first in, so its after and onError run last, on the final response
    .use(httpHeaderNormalizer({ canonical: false }))
    .use(jsonBody())
    .use(authorize(spec))
    .use(jsonErrors(spec))
    .handler(async (event, context) => {
      const result = await fn({
        params: (spec.params ? parseInput('params', spec.params, event.pathParameters ?? {}) : undefined) as never,
        query: (query ? parseInput('query', query, event.queryStringParameters ?? {}) : undefined) as never,
        body: (spec.body ? parseInput('body', spec.body, context.body ?? {}) : undefined) as never,
        auth: context.auth as Principal,
        event,
      });
      return toResult(result);
    });
}
