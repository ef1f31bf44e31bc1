import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { InvalidInputError, NotFoundError } from '../errors';
import { etagMatches, sdkPayloadResponse } from '../domain/sdk-payload';
import { findSdkKey, type SdkKeyRecord } from '../store/sdk-connections';
import { loadSdkPayload, readPayloadVersions, type PayloadVersions } from '../store/sdk-payloads';
import { SDK_PAYLOAD_CACHE_CONTROL } from '../contracts/sdk-payload';
import { EncodedResponse } from './responses';
import { putRequestMetric } from '../metrics';

/**
 * Serving the SDK payload from a warm container. Per client key the container keeps the last body
 * it built, with its ETag and its compressed forms, and the payload versions of its environment
 * it was built at. A request reads those versions (one Query); when they are unchanged the body is
 * served as it is, and a matching `If-None-Match` gets a 304. Nothing is rebuilt per request.
 * When they moved, the key is read again and the body rebuilt (re-reading only changed shards).
 * With `PAYLOAD_CACHE_MS`, a body checked less than that long ago is served without any read.
 */

const baseHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': SDK_PAYLOAD_CACHE_CONTROL,
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
  vary: 'Accept-Encoding',
};

interface Served {
  record: SdkKeyRecord;
  /** The environment's payload versions the body was built at. */
  versions: string;
  /** When the body changes by itself (a scheduled rule's next step): rebuilt from then on. */
  validUntil: number;
  etag: string;
  json: string;
  /** Compressed forms, base64 as API Gateway takes them, made on first demand. */
  gzip?: string;
  br?: string;
  checkedAt: number;
}

const served = new Map<string, Served>();
const MAX_SERVED = 1000;

/** The encoding to answer with: br or gzip when `Accept-Encoding` accepts it (q > 0), br first; none otherwise. */
export function chooseEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...parameters] = part.split(';').map((piece) => piece.trim());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    weights.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  if (weight('br') > 0 && weight('br') >= weight('gzip')) return 'br';
  return weight('gzip') > 0 ? 'gzip' : undefined;
}

async function build(record: SdkKeyRecord, versions: PayloadVersions, now: number): Promise<Served> {
  const { key: _key, orgId: _org, connectionId: _id, encryptPayload, encryptionKey, ...scope } = record;
  const { payload, validUntil } = await loadSdkPayload({ orgId: record.orgId, ...scope }, new Date(now), versions);
  const { body, headers } = sdkPayloadResponse(payload, { encryptionKey: encryptPayload ? encryptionKey : undefined });
  return {
    record,
    versions: versions.token,
    validUntil: validUntil ? Date.parse(validUntil) : Infinity,
    etag: headers.etag,
    json: JSON.stringify(body),
    checkedAt: now,
  };
}

const notFound = (key: string) => new NotFoundError(`No SDK connection has the key ${key}`);

/**
 * The body for a key: the cached one while the versions of its environment hold, otherwise a new
 * build. Changes to a connection move those versions in their own transaction, so unchanged
 * versions also prove the key's settings unchanged: a warm request is that one Query.
 */
async function current(key: string, orgId: string | undefined): Promise<Served> {
  const cached = served.get(key);
  const now = Date.now();
  const cacheMs = Number(process.env.PAYLOAD_CACHE_MS ?? 0);
  const usable = cached && now < cached.validUntil ? cached : undefined;
  const fresh = usable && cacheMs > 0 && now - usable.checkedAt < cacheMs;
  let versions = cached && !fresh ? await readPayloadVersions(cached.record.orgId, cached.record.environment) : undefined;
  if (usable && (fresh || versions!.token === usable.versions)) {
    if (orgId && usable.record.orgId !== orgId) throw notFound(key);
    if (!fresh) usable.checkedAt = now;
    putRequestMetric('PayloadCacheHit', 1); // served from this container's cache: Average is the hit rate
    return usable;
  }
  const record = await findSdkKey(key);
  if (!record || (orgId && record.orgId !== orgId)) {
    served.delete(key);
    throw notFound(key);
  }
  const sameTarget = cached && cached.record.orgId === record.orgId && cached.record.environment === record.environment;
  if (!sameTarget || !versions) versions = await readPayloadVersions(record.orgId, record.environment);
  const next = await build(record, versions, now);
  putRequestMetric('PayloadCacheHit', 0);
  served.delete(key);
  served.set(key, next);
  if (served.size > MAX_SERVED) served.delete(served.keys().next().value!);
  return next;
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
  const body = await current(key, options.orgId);
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

/** Forgets every cached body and state (tests and benchmarks measuring a cold container). */
export function clearServedPayloads(): void {
  served.clear();
}
