import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  callDynamo,
  clock,
  configuredEndpoint,
  credentials,
  MAX_ATTEMPTS,
  regionalEndpoint,
  resetCredentials,
  retryDelay,
  retryQuota,
  sign,
  target,
  type DynamoError,
} from '../../shared/db/dynamo-http';
import { isThrottling, isTransient } from '../../shared/db/transient';
import { db, tableName } from '../../shared/db/client';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * Our DynamoDB wire client: its signatures are the SDK signer's, byte for byte; against DynamoDB
 * Local (through a proxy that injects faults) it names errors as DynamoDB does and retries only
 * what may succeed later, with one idempotency token per transaction.
 */

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);

/** node:crypto as the SDK signer's hash: SHA-256, or HMAC-SHA-256 when given a key. */
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

describe('the request signature', () => {
  const cases = [
    { name: 'long-term keys', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' } },
    {
      name: 'a session (a Lambda role)',
      credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'c2VjcmV0/+=', sessionToken: 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ==' },
    },
  ];
  for (const { name, credentials } of cases) {
    it(`is the SDK signer's, with ${name}`, async () => {
      const body = JSON.stringify({ TableName: 'switchyard', Key: { PK: { S: 'ORG#é✓' }, SK: { S: 'A  B' } } });
      const headers: Record<string, string> = {
        'content-type': 'application/x-amz-json-1.0',
        host: 'dynamodb.eu-west-1.amazonaws.com',
        'x-amz-date': '20261124T190102Z',
        'x-amz-target': 'DynamoDB_20120810.GetItem',
        ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
      };
      // applyChecksum: false, else the SDK also signs an x-amz-content-sha256 header, which DynamoDB does not ask for.
      const signer = new SignatureV4({ credentials, region: 'eu-west-1', service: 'dynamodb', sha256: Sha256, applyChecksum: false });
      const signed = await signer.sign(
        { method: 'POST', protocol: 'https:', hostname: headers.host, path: '/', query: {}, headers: { ...headers }, body },
        { signingDate: new Date('2026-11-24T19:01:02Z') },
      );

      expect(sign(headers, body, '20261124T190102Z', 'eu-west-1', credentials)).toBe(signed.headers.authorization);
    });
  }
});

describe('the credentials', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("are Lambda's, from the environment, session token included", async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });

    expect(await credentials(false)).toEqual({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('are the named profile\'s when AWS_PROFILE is set, not the keys in the environment (as the SDK chooses)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-credentials-'));
    writeFileSync(join(dir, 'credentials'), '[operator]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n');
    writeFileSync(join(dir, 'config'), '');
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'AKIDENVIRONMENT',
      AWS_SECRET_ACCESS_KEY: 'environment-secret',
      AWS_PROFILE: 'operator',
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
      AWS_CONFIG_FILE: join(dir, 'config'),
    });
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    resetCredentials();
    try {
      expect(await credentials(false)).toMatchObject({ accessKeyId: 'AKIDPROFILE', secretAccessKey: 'profile-secret' });
    } finally {
      warn.mockRestore();
      resetCredentials();
    }
  });

  it("are DynamoDB Local's placeholder whatever the environment holds", async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });

    expect(await credentials(true)).toEqual({ accessKeyId: 'local', secretAccessKey: 'local' });
  });
});

describe("a region's endpoint", () => {
  it.each([
    ['eu-west-1', false, 'https://dynamodb.eu-west-1.amazonaws.com'],
    ['us-gov-west-1', false, 'https://dynamodb.us-gov-west-1.amazonaws.com'],
    ['cn-north-1', false, 'https://dynamodb.cn-north-1.amazonaws.com.cn'],
    ['us-east-1', true, 'https://dynamodb-fips.us-east-1.amazonaws.com'],
    ['us-gov-west-1', true, 'https://dynamodb.us-gov-west-1.amazonaws.com'],
  ])('of %s (FIPS: %s) is %s', (region, fips, endpoint) => {
    expect(regionalEndpoint(region, fips)).toBe(endpoint);
  });
});

describe('a configured endpoint', () => {
  it('is AWS_ENDPOINT_URL_DYNAMODB before AWS_ENDPOINT_URL, and neither when configured endpoints are ignored', () => {
    const both = { AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamodb.internal:8000', AWS_ENDPOINT_URL: 'http://all.internal' };

    expect(configuredEndpoint(both)).toBe('http://dynamodb.internal:8000');
    expect(configuredEndpoint({ AWS_ENDPOINT_URL: 'http://all.internal' })).toBe('http://all.internal');
    expect(configuredEndpoint({ ...both, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' })).toBeUndefined();
    expect(configuredEndpoint({})).toBeUndefined();
  });
});

describe('what is transient', () => {
  const named = (name: string, fields: object = {}) => Object.assign(new Error(name), { name, ...fields });

  it.each([
    ['throttling', named('ProvisionedThroughputExceededException', { $metadata: { httpStatusCode: 400 } })],
    ['a control-plane limit', named('LimitExceededException', { $metadata: { httpStatusCode: 400 } })],
    ['a server error', named('InternalServerError', { $metadata: { httpStatusCode: 500 } })],
    ['a 503 of any name', named('UnknownError', { $metadata: { httpStatusCode: 503 } })],
    ['a silent connection', named('TimeoutError', { code: 'ETIMEDOUT' })],
    ['a dropped connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['a name that does not resolve', Object.assign(new Error('getaddrinfo'), { code: 'EAI_AGAIN' })],
    ['a transaction cancelled for throttling', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }] })],
    ['a transaction cancelled for capacity', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ProvisionedThroughputExceeded' }] })],
    ['a request refused while its clock was corrected', named('InvalidSignatureException', { $metadata: { httpStatusCode: 400, clockSkewCorrected: true } })],
  ])('includes %s', (_, error) => {
    expect(isTransient(error)).toBe(true);
  });

  it.each([
    ['a failed condition', named('ConditionalCheckFailedException', { $metadata: { httpStatusCode: 400 } })],
    ['a transaction lost to another (a race, retried by re-reading)', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'TransactionConflict' }] })],
    ['a transaction with a failed condition', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] })],
    ['an item collection over 10 GB', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ItemCollectionSizeLimitExceeded' }] })],
    ['an invalid request', named('ValidationException', { $metadata: { httpStatusCode: 400 } })],
    ['a 501', named('UnknownError', { $metadata: { httpStatusCode: 501 } })],
    ['a skewed signature not yet corrected', named('InvalidSignatureException', { $metadata: { httpStatusCode: 400 } })],
    ['a bug', new TypeError('x is undefined')],
  ])('excludes %s', (_, error) => {
    expect(isTransient(error)).toBe(false);
  });

  it('calls throttling what waits the longer pause', () => {
    expect(isThrottling(named('ThrottlingException'))).toBe(true);
    expect(isThrottling(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ThrottlingError' }] }))).toBe(true);
    expect(isThrottling(named('InternalServerError', { $metadata: { httpStatusCode: 500 } }))).toBe(false);
  });
});

describe('the pause before a retry', () => {
  afterEach(() => jest.restoreAllMocks());

  it("grows as the SDK's standard strategy: from 25 ms, from 1 s after throttling, never past 20 s", () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.9999);

    expect([1, 2, 3].map((retry) => retryDelay(retry, false))).toEqual([24, 49, 99]);
    expect([1, 2, 3].map((retry) => retryDelay(retry, true))).toEqual([999, 1999, 3999]);
    expect(retryDelay(10, true)).toBe(19998);
  });

  it('is fully jittered: anything from no pause up to the ceiling', () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);

    expect(retryDelay(3, true)).toBe(0);
  });
});

describe('calls to DynamoDB', () => {
  let proxy: FaultProxy;
  let realEndpoint: string;
  const key = (id: string) => ({ PK: { S: `WIRE#${id}` }, SK: { S: 'ITEM' } });

  beforeAll(async () => {
    realEndpoint = process.env.DYNAMODB_ENDPOINT!;
    proxy = await startFaultProxy(realEndpoint);
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  });
  afterEach(() => {
    proxy.reset();
    retryQuota.reset();
    clock.offsetMs = 0;
  });
  afterAll(async () => {
    process.env.DYNAMODB_ENDPOINT = realEndpoint;
    await proxy.close();
  });

  it('returns the answer in attribute values', async () => {
    await callDynamo('PutItem', { TableName: tableName(), Item: { ...key('a'), n: { N: '7' } } });

    const answer = await callDynamo('GetItem', { TableName: tableName(), Key: key('a'), ConsistentRead: true });

    expect(answer.Item).toEqual({ ...key('a'), n: { N: '7' } });
  });

  it('names a failed condition as DynamoDB does and does not send it again', async () => {
    const error = (await callDynamo('PutItem', {
      TableName: tableName(),
      Item: key('a'),
      ConditionExpression: 'attribute_not_exists(PK)',
    }).catch((e) => e)) as DynamoError;

    expect(error.name).toBe('ConditionalCheckFailedException');
    expect(error.message).toMatch(/conditional request failed/i);
    expect(error.$metadata).toEqual({ httpStatusCode: 400, attempts: 1 });
    expect(proxy.requests).toHaveLength(1);
  });

  it("gives a cancelled transaction's reasons, in the order of its items", async () => {
    const error = (await callDynamo('TransactWriteItems', {
      TransactItems: [
        { Put: { TableName: tableName(), Item: key('b') } },
        { ConditionCheck: { TableName: tableName(), Key: key('a'), ConditionExpression: 'attribute_not_exists(PK)' } },
      ],
    }).catch((e) => e)) as DynamoError;

    expect(error.name).toBe('TransactionCanceledException');
    expect(error.CancellationReasons?.map((reason) => reason.Code)).toEqual(['None', 'ConditionalCheckFailed']);
  });

  it('does not retry an invalid request', async () => {
    const error = (await callDynamo('GetItem', { TableName: tableName(), Key: { PK: { S: 'only half a key' } } }).catch((e) => e)) as DynamoError;

    expect(error.name).toBe('ValidationException');
    expect(proxy.requests).toHaveLength(1);
  });

  it('retries throttling and keeps one idempotency token across the attempts of a transaction', async () => {
    Object.assign(proxy.faults, { kind: 'throttle', remaining: 2 });

    await callDynamo('TransactWriteItems', { TransactItems: [{ Put: { TableName: tableName(), Item: { ...key('c'), n: { N: '1' } } } }] });

    expect(proxy.requests.map((request) => request.faulted)).toEqual([true, true, false]);
    const tokens = new Set(proxy.requests.map((request) => JSON.parse(request.body).ClientRequestToken));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('applies a transaction once when an attempt it already applied is sent again', async () => {
    const input = {
      TransactItems: [{ Update: { TableName: tableName(), Key: key('d'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } } }],
      ClientRequestToken: 'the-same-change',
    };
    await callDynamo('TransactWriteItems', input);
    await callDynamo('TransactWriteItems', input);

    const answer = await callDynamo('GetItem', { TableName: tableName(), Key: key('d'), ConsistentRead: true });
    expect(answer.Item).toMatchObject({ n: { N: '1' } });
  });

  it('retries a server error and a dropped connection', async () => {
    Object.assign(proxy.faults, { kind: 'unavailable', remaining: 1 });
    await callDynamo('GetItem', { TableName: tableName(), Key: key('a') });
    Object.assign(proxy.faults, { kind: 'reset', remaining: 1 });
    await callDynamo('GetItem', { TableName: tableName(), Key: key('a') });

    expect(proxy.requests.map((request) => request.faulted)).toEqual([true, false, true, false]);
  });

  it('sends a call again on a new connection when the first stays silent', async () => {
    process.env.DYNAMODB_SOCKET_TIMEOUT_MS = '200';
    try {
      Object.assign(proxy.faults, { kind: 'silence', remaining: 1 });

      const answer = await callDynamo('GetItem', { TableName: tableName(), Key: key('a'), ConsistentRead: true });

      expect(answer.Item).toMatchObject(key('a'));
      expect(proxy.requests.map((request) => request.faulted)).toEqual([true, false]);
    } finally {
      delete process.env.DYNAMODB_SOCKET_TIMEOUT_MS;
    }
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts with the last error`, async () => {
    Object.assign(proxy.faults, { kind: 'throttle', remaining: 100 });

    const error = (await callDynamo('GetItem', { TableName: tableName(), Key: key('a') }).catch((e) => e)) as DynamoError;

    expect(error.name).toBe('ProvisionedThroughputExceededException');
    expect(error.$metadata.attempts).toBe(MAX_ATTEMPTS);
    expect(proxy.requests).toHaveLength(MAX_ATTEMPTS);
  });

  it('retries a transaction cancelled for throttling, with its token, and applies it once', async () => {
    Object.assign(proxy.faults, { kind: 'cancel-throttled', remaining: 1, only: 'TransactWriteItems' });

    await callDynamo('TransactWriteItems', {
      TransactItems: [{ Update: { TableName: tableName(), Key: key('e'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } } }],
    });

    const writes = proxy.requests.filter((request) => request.target === 'TransactWriteItems');
    expect(writes.map((request) => request.faulted)).toEqual([true, false]);
    expect(new Set(writes.map((request) => JSON.parse(request.body).ClientRequestToken)).size).toBe(1);
    expect((await callDynamo('GetItem', { TableName: tableName(), Key: key('e'), ConsistentRead: true })).Item).toMatchObject({ n: { N: '1' } });
  });

  it('gives up on a transaction still cancelled for throttling with that error, which is transient', async () => {
    Object.assign(proxy.faults, { kind: 'cancel-throttled', remaining: 100 });

    const error = (await callDynamo('TransactWriteItems', { TransactItems: [{ Put: { TableName: tableName(), Item: key('f') } }] }).catch((e) => e)) as DynamoError;

    expect(error.name).toBe('TransactionCanceledException');
    expect(error.CancellationReasons?.[0].Code).toBe('ThrottlingError');
    expect(error.$metadata.attempts).toBe(MAX_ATTEMPTS);
    expect(isTransient(error)).toBe(true);
  });

  it('stops retrying when the retry quota is spent, and refills it with successes', async () => {
    retryQuota.tokens = retryQuota.THROTTLING_COST; // one throttling retry left
    Object.assign(proxy.faults, { kind: 'throttle', remaining: 100 });

    const error = (await callDynamo('GetItem', { TableName: tableName(), Key: key('a') }).catch((e) => e)) as DynamoError;

    expect(error.name).toBe('ProvisionedThroughputExceededException');
    expect(proxy.requests).toHaveLength(2);
    expect(retryQuota.tokens).toBe(0);

    proxy.reset();
    await callDynamo('GetItem', { TableName: tableName(), Key: key('a') });
    expect(retryQuota.tokens).toBe(retryQuota.NO_RETRY_INCREMENT);
  });

  it('a server error costs more of the quota than throttling, and a success after a retry gives its cost back', async () => {
    Object.assign(proxy.faults, { kind: 'unavailable', remaining: 1 });
    retryQuota.tokens = 100;

    const pending = callDynamo('GetItem', { TableName: tableName(), Key: key('a') });
    await pending;

    expect(proxy.requests.map((request) => request.faulted)).toEqual([true, false]);
    expect(retryQuota.tokens).toBe(100); // 14 taken for the retry, 14 given back by its success
    retryQuota.tokens = retryQuota.COST - 1;
    Object.assign(proxy.faults, { kind: 'unavailable', remaining: 1 });
    await expect(callDynamo('GetItem', { TableName: tableName(), Key: key('a') })).rejects.toMatchObject({ name: 'InternalServerError' });
  });

  it("corrects its clock from DynamoDB's Date when refused for a skewed one, and signs the retry with it", async () => {
    proxy.faults.clockOffsetMs = 60 * 60_000; // DynamoDB's clock is an hour ahead

    const answer = await callDynamo('GetItem', { TableName: tableName(), Key: key('a'), ConsistentRead: true });

    expect(answer.Item).toMatchObject(key('a'));
    expect(proxy.requests).toHaveLength(2);
    const [refused, accepted] = proxy.requests.map((request) => String(request.headers['x-amz-date']));
    const signedAt = (date: string) => Date.parse(date.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    expect(signedAt(accepted) - signedAt(refused)).toBeGreaterThan(59 * 60_000);
    expect(clock.offsetMs).toBeGreaterThan(59 * 60_000);

    // The next call is signed right the first time.
    await callDynamo('GetItem', { TableName: tableName(), Key: key('a') });
    expect(proxy.requests).toHaveLength(3);
  });

  it('sends a call refused for a skewed clock again once, not when the corrected clock is refused too', async () => {
    Object.assign(proxy.faults, { clockOffsetMs: 60 * 60_000, kind: 'signature-refused', remaining: 100 });

    const error = (await callDynamo('GetItem', { TableName: tableName(), Key: key('a') }).catch((e) => e)) as DynamoError;

    expect(error.name).toBe('InvalidSignatureException');
    expect(error.message).toMatch(/Signature expired/);
    expect(proxy.requests).toHaveLength(2);
    expect(error.$metadata.attempts).toBe(2);
  });

  describe('a conditional single write sent again after an attempt whose outcome is unknown', () => {
    const put = (id: string, n: string) =>
      callDynamo('PutItem', { TableName: tableName(), Item: { ...key(id), n: { N: n }, tags: { SS: ['b', 'a'] } }, ConditionExpression: 'attribute_not_exists(PK)' });
    const asksForItem = () => proxy.requests.map((request) => JSON.parse(request.body).ReturnValuesOnConditionCheckFailure);

    it('succeeds when the condition met the very item an attempt whose answer was lost wrote', async () => {
      Object.assign(proxy.faults, { kind: 'lost-answer', remaining: 1 });

      expect(await put('lost-put', '1.50')).toEqual({});
      expect(proxy.requests.map((request) => request.faulted)).toEqual([true, false]);
      expect(asksForItem()).toEqual([undefined, 'ALL_OLD']);
      expect((await callDynamo('GetItem', { TableName: tableName(), Key: key('lost-put'), ConsistentRead: true })).Item).toMatchObject({ n: { N: '1.5' } });
    });

    it("still fails when the condition met another writer's item", async () => {
      await put('taken', '1');
      proxy.reset();
      Object.assign(proxy.faults, { kind: 'reset', remaining: 1 }); // dropped: the client cannot know it was never applied

      const error = (await put('taken', '2').catch((e) => e)) as DynamoError & { Item?: unknown };

      expect(error.name).toBe('ConditionalCheckFailedException');
      expect(error.Item).toBeUndefined(); // asked for by the client, not by the caller
      expect(asksForItem()).toEqual([undefined, 'ALL_OLD']);
    });

    it('succeeds for a delete whose item an attempt whose answer was lost deleted', async () => {
      await put('lost-delete', '1');
      proxy.reset();
      Object.assign(proxy.faults, { kind: 'lost-answer', remaining: 1 });

      const answer = await callDynamo('DeleteItem', { TableName: tableName(), Key: key('lost-delete'), ConditionExpression: 'attribute_exists(PK)' });

      expect(answer).toEqual({});
      expect(proxy.requests.map((request) => request.faulted)).toEqual([true, false]);
    });

    it('does not ask after an attempt known not to be applied (throttled), and fails as before', async () => {
      await put('throttled', '1');
      proxy.reset();
      Object.assign(proxy.faults, { kind: 'throttle', remaining: 1 });

      await expect(put('throttled', '2')).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
      expect(asksForItem()).toEqual([undefined, undefined]);
    });
  });

  it('refuses a binary attribute, which it does not encode, rather than storing it wrong', async () => {
    const put = db.put({ TableName: tableName(), Item: { PK: 'WIRE#bin', SK: 'ITEM', data: new Uint8Array([1, 2, 3]) } });

    // DynamoDB Local answers 500 to the malformed value (retried, then thrown); what matters is that nothing is stored.
    await expect(put).rejects.toMatchObject({ $metadata: { httpStatusCode: expect.any(Number) } });
    expect((await db.get({ TableName: tableName(), Key: { PK: 'WIRE#bin', SK: 'ITEM' } })).Item).toBeUndefined();
  });

  it('goes to AWS_ENDPOINT_URL_DYNAMODB, signed with real credentials, when no DynamoDB Local is set', async () => {
    const saved = { ...process.env };
    delete process.env.DYNAMODB_ENDPOINT;
    Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDENDPOINT', AWS_SECRET_ACCESS_KEY: 'secret' });
    delete process.env.AWS_PROFILE;
    try {
      expect(target()).toMatchObject({ region: 'eu-west-1', local: false });
      await callDynamo('ListTables', {}).catch(() => undefined);
    } finally {
      process.env = saved;
    }

    expect(proxy.requests[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDENDPOINT\/\d{8}\/eu-west-1\/dynamodb\/aws4_request,/);
  });

  it('signs every request it sends', async () => {
    await callDynamo('GetItem', { TableName: tableName(), Key: key('a') });

    const { headers } = proxy.requests[0];
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/local\/dynamodb\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/);
  });

  it("passes Lambda's trace id on, unsigned, as the SDK does, and tells of each attempt it sends again", async () => {
    const traceId = 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1';
    process.env._X_AMZN_TRACE_ID = traceId;
    proxy.faults.remaining = 2;
    let retries = 0;
    try {
      await callDynamo('GetItem', { TableName: tableName(), Key: key('a') }, () => (retries += 1));
    } finally {
      delete process.env._X_AMZN_TRACE_ID;
    }

    expect(proxy.requests.map((request) => request.headers['x-amzn-trace-id'])).toEqual([traceId, traceId, traceId]);
    expect(proxy.requests[0].headers.authorization).not.toContain('x-amzn-trace-id');
    expect(retries).toBe(2);
  });
});
