import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { buildOpenApiDocument } from '../../shared/api/openapi';
import { setOpenApiDocumentSource } from '../../shared/api/openapi-document';
import { setDocsAssetSource } from '../../shared/api/docs-assets';
import { routes, unknownRouteHandler, type Route } from '../../shared/contracts/registry';
import { fullPath } from '../../shared/contracts/spec';
import { preflightHeaders } from '../cors';
import { tableAccessOf } from '../grants';
import { asFunction } from './iam';

const root = join(__dirname, '..', '..');

// Handlers run from source here, with no bundle to ship a prebuilt openapi.json: generate it on first use.
setOpenApiDocumentSource(() => buildOpenApiDocument(routes));
// Nor the reference page's files: they are read from node_modules and the repository.
setDocsAssetSource(root);

/** API Gateway's own payload limit; larger bodies never reach a Lambda. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

interface CompiledRoute {
  route: Route;
  routeKey: string;
  pattern: RegExp;
  names: string[];
  staticSegments: number;
  segments: number;
}

function compile(route: Route): CompiledRoute {
  const path = fullPath(route.spec);
  const names: string[] = [];
  const segments = path.split('/').filter(Boolean);
  const source = segments
    .map((segment) => {
      const match = /^\{(\w+)\}$/.exec(segment);
      if (!match) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(match[1]);
      return '([^/]+)';
    })
    .join('/');
  return {
    route,
    routeKey: `${route.spec.method} ${path}`,
    pattern: new RegExp(`^/${source}/?$`),
    names,
    staticSegments: segments.length - names.length,
    segments: segments.length,
  };
}

// API Gateway prefers the most specific route: more literal segments win over parameters.
const compiled = routes.map(compile).sort((a, b) => b.staticSegments - a.staticSegments);

/**
 * The routes by method and number of path segments, in order of preference: a path can only match
 * a route with as many segments, so a request tries those few patterns rather than all of them.
 */
const candidates = new Map<string, CompiledRoute[]>();
for (const route of compiled) {
  const key = `${route.route.spec.method} ${route.segments}`;
  candidates.set(key, [...(candidates.get(key) ?? []), route]);
}

const segmentCount = (path: string) => path.split('/').filter(Boolean).length;

/** The route and path parameters for a request, as API Gateway would pick them. */
export function matchRoute(method: string, path: string) {
  for (const candidate of candidates.get(`${method} ${segmentCount(path)}`) ?? []) {
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    try {
      const pathParameters = Object.fromEntries(candidate.names.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
      return { ...candidate, pathParameters };
    } catch {
      return undefined; // malformed percent-encoding: no route, as API Gateway would answer
    }
  }
  return undefined;
}

const loaded = new Map<string, unknown>();

/** The `handler` a module (path from the repository root) exports, loaded once, as Lambda loads it. */
export function handlerFor<H = Handler>(file: string): H {
  let handler = loaded.get(file);
  if (!handler) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    handler = require(join(root, file)).handler;
    loaded.set(file, handler);
  }
  return handler as H;
}

function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > GATEWAY_MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const isText = (contentType: string | undefined) =>
  !contentType || /^(text\/|application\/([a-z0-9.+-]*\+)?(json|xml|x-www-form-urlencoded|javascript))/i.test(contentType);

/** What the emulator needs of an HTTP request. */
export interface LocalRequest {
  method: string;
  /** Path and query string, e.g. `/api/v1/features?limit=5`. */
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer;
  sourceIp?: string;
  httpVersion?: string;
}

/** An API Gateway HTTP API (payload format 2.0) event for a request. */
function toEvent(request: LocalRequest, url: URL, routeKey: string, pathParameters?: Record<string, string>): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = new Date();
  const body = request.body ?? Buffer.alloc(0);
  const text = isText(headers['content-type']);
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion ?? '1.1'}`,
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? body.toString(text ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: body.length > 0 && !text,
  };
}

const remainingTime = () => 29_000;
const ignored = () => undefined;

/** The Lambda context a local invocation of `functionName` gets. */
export function lambdaContext(functionName: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: remainingTime,
    done: ignored,
    fail: ignored,
    succeed: ignored,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const body = result.body === undefined ? '' : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  response.writeHead(result.statusCode ?? 200, { ...(result.headers as Record<string, string>), 'content-length': body.length });
  response.end(body);
}

/**
 * Routes a request as API Gateway would and calls the handler module Lambda runs, in this process.
 * The local server uses it for every request; benchmarks call it directly.
 */
export async function invoke(request: LocalRequest): Promise<APIGatewayProxyStructuredResultV2> {
  const { handler: file, event, context } = lambdaInvocation(request);
  try {
    // Held to its function's IAM grant, as in AWS (infra/local/iam.ts).
    return await asFunction(tableAccessOf(file), context.functionName, () => handlerFor(file)(event, context));
  } catch (error) {
    // A handler that throws past its own error handler is what API Gateway reports as a 500.
    console.error('handler crashed', error);
    return { statusCode: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Internal Server Error' }) };
  }
}

/** The handler file, API Gateway event and Lambda context a request becomes. */
export function lambdaInvocation(request: LocalRequest) {
  // A request target is a path: read relative to a base, `//evil.example.com/` would be another host's root.
  const url = new URL(`http://localhost${request.url.startsWith('/') ? '' : '/'}${request.url}`);
  const method = request.method.toUpperCase();
  const match = matchRoute(method, url.pathname);
  const event = toEvent({ ...request, method }, url, match?.routeKey ?? '$default', match?.pathParameters);
  return {
    handler: match ? match.route.handler : unknownRouteHandler,
    event,
    context: lambdaContext(match?.route.spec.operationId ?? 'unknown-route', event.requestContext.requestId),
  };
}

async function serve(request: IncomingMessage, response: ServerResponse, log: boolean) {
  const started = Date.now();
  const body = await readBody(request);
  if (body === 'too-large') {
    send(response, { statusCode: 413, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Request body too large' }) });
    return;
  }
  // API Gateway answers CORS preflights itself, from the API's CORS configuration.
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
    send(response, { statusCode: 204, headers: preflightHeaders(request.headers as Record<string, string | undefined>) });
    return;
  }
  const result = await invoke({
    method: request.method ?? 'GET',
    url: request.url ?? '/',
    headers: request.headers,
    body,
    sourceIp: request.socket.remoteAddress,
    httpVersion: request.httpVersion,
  });
  send(response, result);
  if (log) console.log(`${request.method} ${request.url?.split('?')[0]} ${result.statusCode} ${Date.now() - started}ms`);
}

/** API Gateway's HTTP API quota on the request line and header values together. */
export const MAX_REQUEST_LINE_AND_HEADERS_BYTES = 10240;

/**
 * Serves every registry route on `port` by turning each request into the API Gateway event the
 * same handler module receives in Lambda.
 */
export function startApiServer(options: { port: number; host?: string; log?: boolean }): Promise<Server> {
  // API Gateway's HTTP APIs refuse a request whose request line and headers pass 10,240 bytes: so does this server.
  const server = createServer({ maxHeaderSize: MAX_REQUEST_LINE_AND_HEADERS_BYTES }, (request, response) => {
    serve(request, response, options.log ?? false).catch((error) => {
      console.error('local server error', error);
      if (!response.headersSent) send(response, { statusCode: 500, body: JSON.stringify({ message: 'Internal Server Error' }) });
    });
  });
  // Longer than any client's idle timeout (fetch's is 4 s), so a client never reuses a socket the
  // server is closing at that moment, which it would see as ECONNRESET on a loaded machine.
  server.keepAliveTimeout = 65_000;
  // A request Node cannot parse (headers too large, malformed) gets a JSON error too, never an empty answer.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return;
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      tooLarge
        ? { message: `The request line and headers exceed ${MAX_REQUEST_LINE_AND_HEADERS_BYTES} bytes`, code: 'request_too_large' }
        : { message: 'The request could not be parsed as HTTP', code: 'invalid_request' },
    );
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve(server));
  });
}
