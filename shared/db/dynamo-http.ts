import { createHash, createHmac, randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * DynamoDB's wire protocol, spoken directly: one signed JSON POST per call, retried as the AWS SDK
 * retries. The SDK's client does the same through a generic middleware stack, serializers per
 * command and a credential chain, which cost every cold start about 150 M instructions (a fifth of
 * it) and each call about as much CPU as the rest of a warm request. What the SDK does that matters
 * here, this file does too:
 * - signs with Signature Version 4 (test/db/dynamo-http.test.ts compares each signature with the
 *   SDK's own signer);
 * - retries throttling, server errors and dropped or silent connections, up to 4 attempts with exponential
 *   backoff and full jitter; a transaction keeps one ClientRequestToken across its attempts, so a
 *   retry of one that was applied is not applied twice;
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
const BASE_DELAY_MS = 100;
const MAX_DELAY_MS = 20_000;

/** Error types DynamoDB answers when a call may succeed if sent again a little later. */
const retryableTypes = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'TransactionInProgressException',
  'InternalServerError',
  'ServiceUnavailable',
]);
/** Connections dropped, refused or silent before an answer came back (a socket kept alive across a freeze, say). */
const retryableNetworkCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/**
 * A connection that stays silent this long is given up and the call sent again on a new one:
 * DynamoDB answers within milliseconds, so such silence means a connection lost without a word (one
 * kept alive while Lambda froze the container, say), which would otherwise hold the request until
 * the function times out.
 */
const silenceLimitMs = () => Number(process.env.DYNAMODB_SOCKET_TIMEOUT_MS ?? 5000);

const retryable = (error: Error & { code?: string; $metadata?: { httpStatusCode?: number } }) =>
  retryableTypes.has(error.name) || retryableNetworkCodes.has(error.code ?? '') || (error.$metadata?.httpStatusCode ?? 0) >= 500;

/** Where calls go: DYNAMODB_ENDPOINT (DynamoDB Local), else the region's endpoint. */
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

let lastTarget: (Target & { address: string }) | undefined;

export function target(): Target {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? (endpoint ? 'local' : '');
  if (!region) throw new Error('AWS_REGION is not set: DynamoDB needs a region');
  const address = endpoint ?? regionalEndpoint(region);
  // Read on every call (tests point it elsewhere), parsed again only when it changed.
  if (lastTarget?.address !== address || lastTarget.region !== region) lastTarget = { address, url: new URL(address), region, local: Boolean(endpoint) };
  return lastTarget;
}

let chain: (() => Promise<Credentials>) | undefined;

/**
 * The caller's credentials. Lambda puts its role's in the environment; DynamoDB Local takes any.
 * Elsewhere (an operator's script with a profile or SSO) the SDK's credential chain answers: it is
 * loaded only then, and in function bundles it is the environment alone (infra/lambda-credentials.ts).
 */
export async function credentials(local: boolean): Promise<Credentials> {
  if (local) return { accessKeyId: 'local', secretAccessKey: 'local' };
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = process.env;
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey, sessionToken };
  chain ??= (await import('@aws-sdk/credential-provider-node')).defaultProvider();
  return chain();
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

/** One signed POST of `operation` with `body`: its status and the answer's text. */
async function post(operation: string, body: string, to: Target): Promise<{ status: number; text: string }> {
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
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
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
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
 * Sends `operation` with `input` in DynamoDB's JSON form (attribute values as `{ S: … }`) and
 * returns the answer in the same form, retrying what may succeed later; `onRetry` is told of each
 * attempt sent again (the meter counts them). Throws a DynamoError.
 */
export async function callDynamo(operation: string, input: Record<string, unknown>, onRetry?: () => void): Promise<Record<string, unknown>> {
  const to = target();
  // The token makes a retried transaction idempotent: DynamoDB applies it once (the SDK sets one too).
  const body = JSON.stringify(operation === 'TransactWriteItems' && !input.ClientRequestToken ? { ...input, ClientRequestToken: randomUUID() } : input);
  for (let attempt = 1; ; attempt++) {
    let error: Error & { code?: string };
    try {
      const { status, text } = await post(operation, body, to);
      if (status === 200) return JSON.parse(text);
      error = answerError(status, text, attempt);
    } catch (failure) {
      error = failure as Error & { code?: string };
    }
    if (attempt >= MAX_ATTEMPTS || !retryable(error)) throw error;
    onRetry?.();
    await pause(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
  }
}
