import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { callDynamo, credentials, MAX_ATTEMPTS, regionalEndpoint, sign, type DynamoError } from '../../shared/db/dynamo-http';
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

describe('calls to DynamoDB', () => {
  let proxy: FaultProxy;
  let realEndpoint: string;
  const key = (id: string) => ({ PK: { S: `WIRE#${id}` }, SK: { S: 'ITEM' } });

  beforeAll(async () => {
    realEndpoint = process.env.DYNAMODB_ENDPOINT!;
    proxy = await startFaultProxy(realEndpoint);
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  });
  afterEach(() => proxy.reset());
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

  it('refuses a binary attribute, which it does not encode, rather than storing it wrong', async () => {
    const put = db.put({ TableName: tableName(), Item: { PK: 'WIRE#bin', SK: 'ITEM', data: new Uint8Array([1, 2, 3]) } });

    // DynamoDB Local answers 500 to the malformed value (retried, then thrown); what matters is that nothing is stored.
    await expect(put).rejects.toMatchObject({ $metadata: { httpStatusCode: expect.any(Number) } });
    expect((await db.get({ TableName: tableName(), Key: { PK: 'WIRE#bin', SK: 'ITEM' } })).Item).toBeUndefined();
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
