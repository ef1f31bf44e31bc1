import { createHash, createHmac, randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isThrottling, isTransient } from './transient';

/**
 * DynamoDB's wire protocol, spoken directly: one signed JSON POST per call, retried as the AWS SDK
 * retries. The SDK's client does the same through a generic middleware stack, serializers per
 * command and a credential chain, which cost every cold start about 150 M instructions (a fifth of
 * it) and each call about as much CPU as the rest of a warm request. What the SDK does that matters
 * here, this file does too:
 * - signs with Signature Version 4 (test/db/dynamo-http.test.ts compares each signature with the
 *   SDK's own signer);
 * - retries what `isTransient` (transient.ts) calls transient as the SDK's standard retry strategy
 *   does: up to 4 attempts, exponential backoff with full jitter from a base of 25 ms (1 s after
 *   throttling), and a retry quota shared by every call of the container, so an outage does not
 *   multiply the load; a transaction keeps one ClientRequestToken across its attempts, so a retry of
 *   one that was applied is not applied twice;
 * - corrects its clock from DynamoDB's `Date` header, and sends a call refused for a skewed clock
 *   again, signed with the corrected time;
 * - takes its endpoint from AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL, and its credentials from
 *   the SDK's default chain when AWS_PROFILE names a profile, as the SDK does;
 * - makes a conditional Put or Delete idempotent across its attempts: sent again after an attempt
 *   whose answer was lost (or was a server error), it asks for the item its condition failed on, and
 *   when that is the item it wrote (a Delete: no item), its own earlier attempt was applied, and it
 *   answers success instead of a failed condition;
 * - turns an error answer into an Error named after DynamoDB's error type, with its other fields
 *   (`CancellationReasons`, say) and `$metadata.httpStatusCode`.
 * Binary attributes (B, BS) are not converted to and from base64: the store writes none. One written
 * by mistake is refused by DynamoDB, not stored wrong.
 */

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** An error DynamoDB answered, named after its type (`ConditionalCheckFailedException`, …). */
export interface DynamoError extends Error {
  $metadata: { httpStatusCode?: number; attempts: number };
  CancellationReasons?: Array<{ Code?: string; Message?: string; Item?: unknown }>;
}

export const MAX_ATTEMPTS = 4;

/**
 * The SDK's standard retry strategy as installed (@smithy/core submodules/retry/util-retry, with
 * its `retries-2026-config`): DynamoDB's client sets a base delay of 25 ms; throttling waits from
 * 1 s; no pause is longer than 20 s.
 */
export const RETRY_DELAY_BASE_MS = 25;
export const THROTTLING_RETRY_DELAY_BASE_MS = 1000;
const MAXIMUM_RETRY_DELAY_MS = 20_000;

/**
 * The retry quota, a token bucket as the SDK's StandardRetryStrategy keeps one per client: every
 * retry takes tokens (5 after throttling, 14 after another transient error), every success puts
 * back what its retry took (1 when it needed none), and with too few tokens left a failure is not
 * retried. While DynamoDB is out, a container soon stops tripling its calls.
 */
export const retryQuota = {
  INITIAL_TOKENS: 500,
  THROTTLING_COST: 5,
  COST: 14,
  NO_RETRY_INCREMENT: 1,
  tokens: 500,
  reset() {
    this.tokens = this.INITIAL_TOKENS;
  },
};

/**
 * A call refused for its signature's time is sent again when the `Date` of the refusal moved the
 * clock offset by at least this much (the SDK's skew threshold, 4 min; DynamoDB accepts 5 min either way).
 */
const CLOCK_SKEW_THRESHOLD_MS = 240_000;
/** What this container's clock is off by, from the last answer's `Date` header: added to the time a request is signed at. */
export const clock = { offsetMs: 0 };
/** The error types DynamoDB (and other AWS services) answer for a signature made at the wrong time (the SDK's CLOCK_SKEW_ERROR_CODES). */
const clockSkewTypes = new Set(['AccessDeniedException', 'AuthFailure', 'InvalidSignatureException', 'RequestExpired', 'RequestInTheFuture', 'RequestTimeTooSkewed', 'SignatureDoesNotMatch']);

/**
 * A connection that stays silent this long is given up and the call sent again on a new one:
 * DynamoDB answers within milliseconds, so such silence means a connection lost without a word (one
 * kept alive while Lambda froze the container, say), which would otherwise hold the request until
 * the function times out.
 */
const silenceLimitMs = () => Number(process.env.DYNAMODB_SOCKET_TIMEOUT_MS ?? 5000);

/** Where calls go: DYNAMODB_ENDPOINT (DynamoDB Local), else a configured endpoint, else the region's. */
export interface Target {
  url: URL;
  region: string;
  local: boolean;
}

/**
 * The region's DynamoDB endpoint, FIPS when AWS_USE_FIPS_ENDPOINT asks for it (GovCloud's regular
 * endpoints are FIPS already; China's regions have their own domain).
 */
export function regionalEndpoint(region: string, fips = process.env.AWS_USE_FIPS_ENDPOINT === 'true'): string {
  const suffix = fips && !region.startsWith('us-gov-') ? '-fips' : '';
  return `https://dynamodb${suffix}.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

/**
 * An endpoint configured as the SDK reads it from the environment: AWS_ENDPOINT_URL_DYNAMODB, else
 * AWS_ENDPOINT_URL, neither when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true. (The SDK also reads
 * `endpoint_url` from the shared config file; this client reads no file.)
 */
export function configuredEndpoint(env = process.env): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() === 'true') return undefined;
  return env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL || undefined;
}

let lastTarget: (Target & { address: string }) | undefined;

/** Where the next call goes; DynamoDB Local (DYNAMODB_ENDPOINT) alone takes placeholder credentials. */
export function target(): Target {
  const local = process.env.DYNAMODB_ENDPOINT;
  const endpoint = local ?? configuredEndpoint();
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? (local ? 'local' : '');
  if (!region) throw new Error('AWS_REGION is not set: DynamoDB needs a region');
  const address = endpoint ?? regionalEndpoint(region);
  // Read on every call (tests point it elsewhere), parsed again only when it changed.
  if (lastTarget?.address !== address || lastTarget.region !== region || lastTarget.local !== Boolean(local)) {
    lastTarget = { address, url: new URL(address), region, local: Boolean(local) };
  }
  return lastTarget;
}

let chain: (() => Promise<Credentials>) | undefined;

/**
 * The caller's credentials. Lambda puts its role's in the environment; DynamoDB Local takes any.
 * Elsewhere (an operator's script with a profile or SSO) the SDK's credential chain answers: it is
 * loaded only then, and in function bundles it is the environment alone (infra/lambda-credentials.ts).
 * As in the SDK's chain, AWS_PROFILE wins over keys in the environment: an operator who names a
 * profile reaches that profile's account, not the one some exported keys belong to.
 */
export async function credentials(local: boolean): Promise<Credentials> {
  if (local) return { accessKeyId: 'local', secretAccessKey: 'local' };
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken, AWS_PROFILE: profile } = process.env;
  if (accessKeyId && secretAccessKey && !profile) return { accessKeyId, secretAccessKey, sessionToken };
  chain ??= (await import('@aws-sdk/credential-provider-node')).defaultProvider();
  return chain();
}

/** Forgets the credential chain (it remembers what it found), so the next call reads the environment again. */
export function resetCredentials(): void {
  chain = undefined;
}

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** The signing key of a day, region and secret: four HMACs, kept while the day lasts. */
let signingKey: { scope: string; secret: string; key: Buffer } | undefined;

/**
 * Signature Version 4 of a POST to `/` with `headers` (names in lower case, `host` among them) and
 * `body`, at `amzDate` (YYYYMMDD'T'HHMMSS'Z'). Returns the Authorization header's value.
 */
export function sign(headers: Record<string, string>, body: string, amzDate: string, region: string, credentials: Credentials): string {
  const names = Object.keys(headers).sort();
  const canonicalRequest = ['POST', '/', '', ...names.map((name) => `${name}:${headers[name].trim()}`), '', names.join(';'), sha256(body)].join('\n');
  const scope = `${amzDate.slice(0, 8)}/${region}/dynamodb/aws4_request`;
  if (signingKey?.scope !== scope || signingKey.secret !== credentials.secretAccessKey) {
    const dateKey = hmac(`AWS4${credentials.secretAccessKey}`, amzDate.slice(0, 8));
    signingKey = { scope, secret: credentials.secretAccessKey, key: hmac(hmac(hmac(dateKey, region), 'dynamodb'), 'aws4_request') };
  }
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signature = hmac(signingKey.key, stringToSign).toString('hex');
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 50 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 50 });

/** An answer: its status, its `Date` and `Age` headers, and its text. */
interface Answer {
  status: number;
  date?: string;
  age?: string;
  text: string;
}

/** One signed POST of `operation` with `body`, signed at this container's clock corrected by `clock.offsetMs`. */
async function post(operation: string, body: string, to: Target): Promise<Answer> {
  const amzDate = new Date(Date.now() + clock.offsetMs).toISOString().replace(/[-:]|\.\d{3}/g, '');
  const creds = await credentials(to.local);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    host: to.url.host,
    'x-amz-date': amzDate,
    'x-amz-target': `DynamoDB_20120810.${operation}`,
    ...(creds.sessionToken ? { 'x-amz-security-token': creds.sessionToken } : {}),
  };
  headers.authorization = sign(headers, body, amzDate, to.region, creds);
  headers['content-length'] = String(Buffer.byteLength(body));
  // Lambda's trace id, passed on as the SDK passes it (AWS uses it to spot request loops).
  if (process.env._X_AMZN_TRACE_ID) headers['x-amzn-trace-id'] = process.env._X_AMZN_TRACE_ID;
  const secure = to.url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      { hostname: to.url.hostname, port: to.url.port || undefined, path: '/', method: 'POST', headers, agent: secure ? httpsAgent : httpAgent },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, date: response.headers.date, age: response.headers.age, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    request.on('error', reject);
    request.setTimeout(silenceLimitMs(), () =>
      request.destroy(Object.assign(new Error(`DynamoDB sent nothing for ${silenceLimitMs()} ms`), { name: 'TimeoutError', code: 'ETIMEDOUT' })),
    );
    request.end(body);
  });
}

/** An error answer as an Error named after its type: `{"__type":"com.amazonaws.dynamodb.v20120810#Name","message":"…"}`. */
function answerError(status: number, text: string, attempts: number): DynamoError {
  let answer: Record<string, unknown> = {};
  try {
    answer = JSON.parse(text);
  } catch {
    // not JSON (a proxy's page, say): the status alone tells what happened
  }
  const { __type, message, Message, ...fields } = answer;
  const name = typeof __type === 'string' ? __type.slice(__type.lastIndexOf('#') + 1) : status >= 500 ? 'InternalServerError' : 'UnknownError';
  const error = new Error(String(message ?? Message ?? `DynamoDB answered ${status}`)) as DynamoError;
  return Object.assign(error, fields, { name, $metadata: { httpStatusCode: status, attempts } });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Learns the clock offset from an answer's `Date` header, as the SDK's signer does after every
 * call: not from a cached answer (`Age`), nor from one that took so long (15 min) that its date says
 * nothing. Returns whether the offset moved by the skew threshold or more: a request refused for its
 * clock is then worth sending again; refused again with the clock as corrected, it is not (the SDK
 * compares the offsets exactly, so a Date a second later would count as a correction there).
 */
function sampleClock(answer: Answer, sentAt: number): boolean {
  const serverTime = answer.date === undefined || answer.age !== undefined ? NaN : Date.parse(answer.date);
  const receivedAt = Date.now();
  if (Number.isNaN(serverTime) || receivedAt - sentAt > 900_000) return false;
  const before = clock.offsetMs;
  clock.offsetMs = serverTime - receivedAt;
  return Math.abs(clock.offsetMs - before) >= CLOCK_SKEW_THRESHOLD_MS;
}

/** Network failures that happen before a request is sent: it cannot have been applied. */
const unsentCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether an attempt that failed so may have been applied all the same: its answer was lost or was a server error. */
const mayHaveApplied = (error: { code?: string; $metadata?: { httpStatusCode?: number } }) => {
  const status = error.$metadata?.httpStatusCode;
  return status === undefined ? !unsentCodes.has(error.code ?? '') : status >= 500;
};

type WireValue = Record<string, unknown>;

/** An attribute value in one spelling: map keys and set members sorted, numbers as numbers. */
function canonical(value: WireValue): unknown {
  const [[type, inner]] = Object.entries(value);
  if (type === 'N') return { N: Number(inner) };
  if (type === 'NS') return { NS: (inner as string[]).map(Number).sort((a, b) => a - b) };
  if (type === 'SS' || type === 'BS') return { [type]: [...(inner as string[])].sort() };
  if (type === 'L') return { L: (inner as WireValue[]).map(canonical) };
  if (type === 'M') return { M: canonicalItem(inner as Record<string, WireValue>) };
  return value;
}
const canonicalItem = (item: Record<string, WireValue>) =>
  Object.fromEntries(Object.keys(item).sort().map((name) => [name, canonical(item[name])]));

/**
 * Whether the failed condition of a single write sent again met that same write, applied by an
 * earlier attempt whose answer was lost: a Put finds exactly the item it wrote (its version and
 * dateUpdated make it one no other write makes); a Delete finds no item at all.
 */
function metItself(operation: string, input: Record<string, unknown>, found: Record<string, WireValue> | undefined): boolean {
  if (operation === 'DeleteItem') return found === undefined;
  return found !== undefined && JSON.stringify(canonicalItem(found)) === JSON.stringify(canonicalItem(input.Item as Record<string, WireValue>));
}

/** The pause before retry `retry` (1 for the first): full jitter over an exponential, from the throttling base after throttling. */
export function retryDelay(retry: number, throttled: boolean): number {
  const base = throttled ? THROTTLING_RETRY_DELAY_BASE_MS : RETRY_DELAY_BASE_MS;
  return Math.floor(Math.random() * Math.min(base * 2 ** (retry - 1), MAXIMUM_RETRY_DELAY_MS));
}

/**
 * Sends `operation` with `input` in DynamoDB's JSON form (attribute values as `{ S: … }`) and
 * returns the answer in the same form, retrying what `isTransient` calls transient while the retry
 * quota lasts; `onRetry` is told of each attempt sent again (the meter counts them). Throws a DynamoError,
 * or the network error of the last attempt.
 */
export async function callDynamo(operation: string, input: Record<string, unknown>, onRetry?: () => void): Promise<Record<string, unknown>> {
  const to = target();
  // The token makes a retried transaction idempotent: DynamoDB applies it once (the SDK sets one too).
  const body = JSON.stringify(operation === 'TransactWriteItems' && !input.ClientRequestToken ? { ...input, ClientRequestToken: randomUUID() } : input);
  // A conditional Put or Delete sent again after an attempt that may have been applied asks for the
  // item its condition met, to tell its own earlier write from another's (a transaction has its token instead).
  const checksItself = (operation === 'PutItem' || operation === 'DeleteItem') && typeof input.ConditionExpression === 'string';
  const askedForItem = input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD';
  let resend = body;
  let outcomeUnknown = false;
  let retryCost = 0;
  for (let attempt = 1; ; attempt++) {
    let error: Error & { code?: string; $metadata?: DynamoError['$metadata'] & { clockSkewCorrected?: boolean } };
    const sentAt = Date.now();
    try {
      const answer = await post(operation, resend, to);
      const corrected = sampleClock(answer, sentAt);
      if (answer.status === 200) {
        retryQuota.tokens = Math.min(retryQuota.INITIAL_TOKENS, retryQuota.tokens + (retryCost || retryQuota.NO_RETRY_INCREMENT));
        return JSON.parse(answer.text);
      }
      error = answerError(answer.status, answer.text, attempt);
      if (outcomeUnknown && error.name === 'ConditionalCheckFailedException') {
        const found = (error as DynamoError & { Item?: Record<string, WireValue> }).Item;
        // Our own write, applied by an attempt whose answer was lost: it succeeded.
        if (metItself(operation, input, found)) {
          retryQuota.tokens = Math.min(retryQuota.INITIAL_TOKENS, retryQuota.tokens + retryCost);
          return {};
        }
        if (!askedForItem) delete (error as { Item?: unknown }).Item;
      }
      // Refused for a clock this far off: the next attempt is signed at the corrected time.
      if (corrected && clockSkewTypes.has(error.name)) error.$metadata!.clockSkewCorrected = true;
    } catch (failure) {
      error = failure as typeof error;
    }
    const throttled = isThrottling(error);
    const cost = throttled ? retryQuota.THROTTLING_COST : retryQuota.COST;
    if (attempt >= MAX_ATTEMPTS || !isTransient(error) || retryQuota.tokens < cost) {
      error.$metadata = { ...error.$metadata, attempts: attempt };
      throw error;
    }
    retryQuota.tokens -= cost;
    retryCost = cost;
    if (checksItself && !outcomeUnknown && mayHaveApplied(error)) {
      outcomeUnknown = true;
      resend = JSON.stringify({ ...input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    }
    onRetry?.();
    await pause(retryDelay(attempt, throttled));
  }
}
