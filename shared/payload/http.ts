import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { InvalidInputError } from '../errors';
import { SDK_PAYLOAD_CACHE_CONTROL } from '../contracts/sdk-payload';
import { chooseEncoding } from '../api/encoding';
import { EncodedResponse, HttpResponse } from '../api/responses';
import { servedPayload } from './serve';
import type { SdkPayload } from './types';

/**
 * The SDK payload over HTTP, the one place that knows it: the headers every payload answer carries
 * (Cache-Control, CORS, Vary), ETag revalidation (304), gzip and brotli, and which route may serve
 * which connection. The bodies come from serve.ts, which reads the stores; nothing here does.
 */

const baseHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': SDK_PAYLOAD_CACHE_CONTROL,
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
  vary: 'Accept-Encoding',
};

/** A remote evaluation answers for one user: no cache may keep it. */
const remoteEvalHeaders = { 'cache-control': 'no-store', 'access-control-allow-origin': '*' };

/** Whether an `If-None-Match` header names this ETag (a list, weak validators and `*` included). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * The HTTP answer for a client key: 304 when `If-None-Match` names the current ETag, otherwise the
 * payload, compressed when the client accepts it. 404 when no connection has the key (or, with
 * `orgId`, when the connection belongs to another organization).
 */
export async function serveSdkPayload(
  key: string,
  headers: Record<string, string | undefined> | undefined,
  options: { orgId?: string } = {},
): Promise<EncodedResponse> {
  const body = await servedPayload(key, options.orgId);
  // As GrowthBook: a remote-evaluation connection keeps its targeting on the server, so the public route does not serve it.
  if (!options.orgId && body.record.remoteEvalEnabled) {
    throw new InvalidInputError(`The SDK connection ${key} uses remote evaluation: POST /api/eval/${key} with the user's attributes`);
  }
  const responseHeaders = { ...baseHeaders, etag: body.etag };
  if (etagMatches(headers?.['if-none-match'], body.etag)) return new EncodedResponse(304, '', responseHeaders);
  const encoding = chooseEncoding(headers?.['accept-encoding']);
  if (encoding === 'br') {
    body.br ??= brotliCompressSync(body.json, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }).toString('base64');
    return new EncodedResponse(200, body.br, { ...responseHeaders, 'content-encoding': 'br' }, true);
  }
  if (encoding === 'gzip') {
    body.gzip ??= gzipSync(body.json).toString('base64');
    return new EncodedResponse(200, body.gzip, { ...responseHeaders, 'content-encoding': 'gzip' }, true);
  }
  return new EncodedResponse(200, body.json, responseHeaders);
}

/** The HTTP answer of a remote evaluation: the payload resolved for one user. */
export function remoteEvalResponse(resolved: SdkPayload): HttpResponse {
  return new HttpResponse(200, resolved, remoteEvalHeaders);
}
