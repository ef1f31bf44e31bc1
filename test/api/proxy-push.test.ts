import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Api, TestOrg } from '../support/api';
import { captureOutput } from '../support/capture-output';
import { startFaultProxy } from '../support/fault-proxy';

/**
 * GrowthBook Proxy push: a payload change, as the table's stream reports it, reaches every proxied
 * connection it affects as a signed POST to `<proxyHost>/proxy/features`, checked here by a small
 * HTTP receiver. The stream records are the version items the API's writes really moved, read back
 * from DynamoDB Local, in the shape Lambda delivers them: the handler alone, with the records known
 * (test/api/local-streams.test.ts runs it from the table's stream under `npm start`).
 */

type Pusher = typeof import('../../functions/events/push-to-proxies');
type Store = typeof import('../../shared/db/repository') & typeof import('../../shared/db/keys');

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let api: Api;
let org: TestOrg;
let support: typeof import('../support/api');
let pusher: Pusher;
let store: Store;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  // Logs at DEBUG, set before any module loads (as LOG_LEVEL is in Lambda), so the secrets check below sees everything.
  process.env.LOG_LEVEL = 'DEBUG';
  // The receiver is on loopback over http: only the local-development setting lets pushes (and proxyHost) go there.
  process.env.PROXY_PUSH_ALLOW_LOCAL = 'true';
  support = await import('../support/api');
  pusher = await import('../../functions/events/push-to-proxies');
  store = { ...(await import('../../shared/db/repository')), ...(await import('../../shared/db/keys')) };
  api = await support.startApi();
  org = await support.createTestOrg('Proxy push');
  // Every path answers 200 except under /broken/, which answers 500.
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.statusCode = request.url?.startsWith('/broken/') ? 500 : 200;
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  delete process.env.PROXY_PUSH_ALLOW_LOCAL;
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await api.close();
});

async function ok(method: string, path: string, body?: unknown) {
  const response = await api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
  if (response.status !== 200) throw new Error(`${method} ${path} failed: ${JSON.stringify(response.body)}`);
  return response.body;
}

async function connection(name: string, settings: Record<string, unknown>, key = org.keys.admin) {
  const response = await api.request('POST', '/api/v1/sdk-connections', { key, body: { name, language: 'javascript', environment: 'production', ...settings } });
  if (response.status !== 200) throw new Error(`POST /sdk-connections failed: ${JSON.stringify(response.body)}`);
  return response.body.sdkConnection;
}

/** The payload version items of the organization's environment, and its organization-wide references versions, by key. */
async function versionItems(environment: string, orgId = org.orgId): Promise<Map<string, Record<string, unknown>>> {
  const items = await store.queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': store.orgPk(orgId), ':prefix': store.keys.sdkAllVersionsPrefix() },
    ConsistentRead: true,
  });
  const ours = (SK: string) => SK.startsWith(store.keys.sdkVersionPrefix(environment)) || SK.startsWith(store.keys.sdkReferencesVersionPrefix());
  return new Map(items.filter((item) => ours(item.SK as string)).map((item) => [item.SK as string, item]));
}

let sequence = 0;

/** Runs `change`, and returns the stream records of the version items it moved in `environment`. */
async function recordsOf(change: () => Promise<unknown>, environment = 'production', orgId = org.orgId): Promise<DynamoDBRecord[]> {
  const before = await versionItems(environment, orgId);
  await change();
  const after = await versionItems(environment, orgId);
  return [...after.values()]
    .filter((item) => before.get(item.SK as string)?.version !== item.version)
    .map((item) => ({
      eventName: before.has(item.SK as string) ? 'MODIFY' : 'INSERT',
      dynamodb: { SequenceNumber: String(++sequence), NewImage: marshall(item) as never },
    }));
}

const to = (prefix: string) => received.filter((request) => request.path === `/${prefix}/proxy/features`);
const hmac = (body: string, key: string) => createHmac('sha256', key).update(body).digest('hex');

describe('pushing payload changes to GrowthBook Proxy', () => {
  it('POSTs the payload to each affected proxy, signed with its key, and to nobody else', async () => {
    const pushed = await connection('Pushed', { proxyEnabled: true, proxyHost: `${receiverUrl}/pushed/` });
    await connection('No proxy', { proxyEnabled: false, proxyHost: `${receiverUrl}/off` });
    await connection('Other project', { proxyEnabled: true, proxyHost: `${receiverUrl}/other-project`, projects: [(await ok('POST', '/projects', { name: 'Elsewhere' })).project.id] });
    await ok('POST', '/sdk-connections', { name: 'Dev', language: 'javascript', environment: 'dev', proxyEnabled: true, proxyHost: `${receiverUrl}/dev` });
    const records = await recordsOf(() =>
      ok('POST', '/features', { id: 'pushed-flag', valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true, rules: [] } } }),
    );
    received.length = 0;

    const result = await pusher.pushPayloadChanges(records, { retryDelayMs: 0 });

    expect(records.length).toBeGreaterThan(0);
    expect(result).toEqual({ pushed: 1, failed: 0, retry: [] });
    const [request] = to('pushed');
    expect(to('pushed')).toHaveLength(1);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-growthbook-api-key']).toBe(pushed.key);
    expect(request.headers['x-growthbook-signature']).toBe(hmac(request.body, pushed.proxySigningKey));
    const publicPayload = (await api.request('GET', `/api/features/${pushed.key}`)).body;
    expect(JSON.parse(request.body)).toEqual(publicPayload);
    expect(JSON.parse(request.body).features['pushed-flag']).toEqual({ defaultValue: true });
    expect(received.map((r) => r.path)).toEqual(['/pushed/proxy/features']);
  });

  it('reaches a connection of the project the changed feature belongs to', async () => {
    const project = (await ok('POST', '/projects', { name: 'Checkout' })).project.id;
    const scoped = await connection('Checkout only', { proxyEnabled: true, proxyHost: `${receiverUrl}/checkout`, projects: [project] });
    const records = await recordsOf(() =>
      ok('POST', '/features', { id: 'checkout-flag', project, valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true, rules: [] } } }),
    );
    received.length = 0;

    await pusher.pushPayloadChanges(records, { retryDelayMs: 0 });

    expect(to('checkout')).toHaveLength(1);
    expect(JSON.parse(to('checkout')[0].body).features).toHaveProperty('checkout-flag');
    expect(to('checkout')[0].headers['x-growthbook-signature']).toBe(hmac(to('checkout')[0].body, scoped.proxySigningKey));
    // The organization-wide connection of the first test serves every project, so it is pushed too.
    expect(to('pushed')).toHaveLength(1);
    expect(to('other-project')).toHaveLength(0);
  });

  it('pushes a change that is not a feature (here an experiment) to every proxy of the organization, in every environment', async () => {
    const { experiment } = await ok('POST', '/experiments', { trackingKey: 'pushed-exp', name: 'Pushed', variations: [{ key: '0', name: 'A' }, { key: '1', name: 'B' }] });
    const records = await recordsOf(() => ok('POST', `/experiments/${experiment.id}`, { name: 'Renamed' }));
    received.length = 0;

    await pusher.pushPayloadChanges(records, { retryDelayMs: 0 });

    expect(records.length).toBeGreaterThan(0);
    expect(to('pushed')).toHaveLength(1);
    expect(to('other-project')).toHaveLength(1);
    expect(to('checkout')).toHaveLength(1);
    expect(to('off')).toHaveLength(0);
    // An experiment is the organization's: every environment's payload reads it.
    expect(to('dev')).toHaveLength(1);
  });

  it('retries a failing proxy once, still pushes to the others, and logs no signing key', async () => {
    const broken = await connection('Broken', { proxyEnabled: true, proxyHost: `${receiverUrl}/broken` });
    const unreachable = await connection('Unreachable', { proxyEnabled: true, proxyHost: 'http://127.0.0.1:9' });
    const records = await recordsOf(() =>
      ok('POST', '/features', { id: 'during-outage', valueType: 'boolean', defaultValue: 'false', environments: { production: { enabled: true, rules: [] } } }),
    );
    received.length = 0;

    const output = await captureOutput(async () => {
      const result = await pusher.pushPayloadChanges(records, { retryDelayMs: 0, timeoutMs: 2000 });
      expect(result).toEqual({ pushed: 1, failed: 2, retry: [] });
    });

    expect(received.filter((r) => r.path === '/broken/proxy/features')).toHaveLength(2);
    expect(to('pushed')).toHaveLength(1);
    expect(output).toContain('The proxy refused a payload push');
    expect(output).toContain('A payload push did not reach the proxy');
    for (const secret of [broken.proxySigningKey, unreachable.proxySigningKey]) expect(output).not.toContain(secret);
  });

  it('ignores stream records of other items and removals', () => {
    const record = (eventName: DynamoDBRecord['eventName'], item: Record<string, unknown>): DynamoDBRecord => ({
      eventName,
      dynamodb: { SequenceNumber: '1', NewImage: marshall(item) as never },
    });

    expect(pusher.changeOf(record('INSERT', { PK: 'ORG#o', SK: 'FEATURE#f', entityType: 'FEATURE' }))).toBeUndefined();
    expect(pusher.changeOf({ eventName: 'REMOVE', dynamodb: { SequenceNumber: '2' } })).toBeUndefined();
    expect(pusher.changeOf(record('MODIFY', { PK: 'ORG#o', SK: 'SDK_VERSION#production#refs', entityType: 'SDK_VERSION' }))).toEqual({
      orgId: 'o',
      environment: 'production',
    });
    expect(pusher.changeOf(record('MODIFY', { PK: 'ORG#o', SK: 'SDK_VERSION#dev#07', entityType: 'SDK_VERSION', changedProjects: ['p'] }))).toEqual({
      orgId: 'o',
      environment: 'dev',
      projects: ['p'],
    });
  });
});

/** A flag created in `target`'s production environment, as stream records. */
const flagRecords = (id: string, target: TestOrg = org) =>
  recordsOf(
    async () => {
      const response = await api.request('POST', '/api/v1/features', {
        key: target.keys.admin,
        body: { id, valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true, rules: [] } } },
      });
      if (response.status !== 200) throw new Error(JSON.stringify(response.body));
    },
    'production',
    target.orgId,
  );

describe('where a push may go', () => {
  it('refuses at push time a host name that resolves to loopback, without connecting', async () => {
    const target = await support.createTestOrg('Rebound');
    await connection('Resolves home', { proxyEnabled: true, proxyHost: 'https://proxy.example.com' }, target.keys.admin);
    const records = await flagRecords('resolves-home', target);
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }];
    };
    process.env.PROXY_PUSH_ALLOW_LOCAL = 'false';

    const output = await captureOutput(async () => {
      const result = await pusher.pushPayloadChanges(records, { retryDelayMs: 0, resolve });
      expect(result).toEqual({ pushed: 0, failed: 1, retry: [] });
    });

    process.env.PROXY_PUSH_ALLOW_LOCAL = 'true';
    // Refused once, not tried again: it would be refused again.
    expect(asked).toEqual(['proxy.example.com']);
    expect(output).toContain('resolves to a blocked address (127.0.0.1)');
  });

  it('connects to the address it checked, not to a second resolution of the name', async () => {
    const target = await support.createTestOrg('Checked address');
    const port = new URL(receiverUrl).port;
    await connection('Made-up name', { proxyEnabled: true, proxyHost: `http://switchyard-proxy.invalid:${port}/checked` }, target.keys.admin);
    const records = await flagRecords('checked-address', target);
    received.length = 0;

    // `.invalid` never resolves: the push reaches the receiver only through the address checked here.
    const result = await pusher.pushPayloadChanges(records, { retryDelayMs: 0, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });

    expect(result).toEqual({ pushed: 1, failed: 0, retry: [] });
    expect(to('checked')).toHaveLength(1);
  });

  it('does not follow a redirect: the proxy it points to receives nothing', async () => {
    const target = await support.createTestOrg('Redirected');
    const redirector = createServer((request, response) => {
      request.resume();
      response.writeHead(302, { location: `${receiverUrl}/redirected/proxy/features` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    await connection('Redirects', { proxyEnabled: true, proxyHost: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}` }, target.keys.admin);
    const records = await flagRecords('redirected', target);
    received.length = 0;

    const output = await captureOutput(async () => {
      const result = await pusher.pushPayloadChanges(records, { retryDelayMs: 0 });
      expect(result).toEqual({ pushed: 0, failed: 1, retry: [] });
    });

    await new Promise<void>((resolve) => redirector.close(() => resolve()));
    expect(to('redirected')).toHaveLength(0);
    expect(output).toContain('"status":302');
  });
});

describe('how many pushes run at once', () => {
  it('keeps at most 4 pushes of one organization in flight, and gives each a time limit', async () => {
    const target = await support.createTestOrg('Many proxies');
    let inFlight = 0;
    let most = 0;
    const slow = createServer((request, response) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      request.resume();
      // The last path never answers: the push's time limit gives up on it.
      if (request.url?.startsWith('/silent/')) return;
      setTimeout(() => {
        inFlight -= 1;
        response.end('{}');
      }, 300);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    for (let i = 0; i < 7; i++) await connection(`Slow ${i}`, { proxyEnabled: true, proxyHost: `${slowUrl}/slow-${i}` }, target.keys.admin);
    await connection('Silent', { proxyEnabled: true, proxyHost: `${slowUrl}/silent` }, target.keys.admin);
    const records = await flagRecords('many-proxies', target);

    const result = await pusher.pushPayloadChanges(records, { retryDelayMs: 0, timeoutMs: 1000 });

    slow.closeAllConnections();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
    expect(result).toEqual({ pushed: 7, failed: 1, retry: [] });
    expect(most).toBe(4);
  });
});

describe('a failing table read', () => {
  it("sends back only the records whose connection's payload could not be read, and still pushes the others", async () => {
    const healthy = await support.createTestOrg('Healthy');
    const throttled = await support.createTestOrg('Throttled');
    await connection('Healthy proxy', { proxyEnabled: true, proxyHost: `${receiverUrl}/healthy` }, healthy.keys.admin);
    await connection('Throttled proxy', { proxyEnabled: true, proxyHost: `${receiverUrl}/throttled` }, throttled.keys.admin);
    const healthyRecords = await flagRecords('healthy-flag', healthy);
    const throttledRecords = await flagRecords('throttled-flag', throttled);
    const records = [...throttledRecords, ...healthyRecords];
    received.length = 0;
    const realEndpoint = process.env.DYNAMODB_ENDPOINT!;
    const faults = await startFaultProxy(realEndpoint);
    // Reading the throttled organization's payload versions is throttled, past the client's own retries; listing its connections is not.
    Object.assign(faults.faults, { kind: 'throttle', remaining: 1000, matching: (body: string) => body.includes(`ORG#${throttled.orgId}"`) && body.includes('SDK_VERSION') });
    process.env.DYNAMODB_ENDPOINT = faults.endpoint;

    let result: Awaited<ReturnType<Pusher['pushPayloadChanges']>>;
    try {
      result = await pusher.pushPayloadChanges(records, { retryDelayMs: 0 });
    } finally {
      process.env.DYNAMODB_ENDPOINT = realEndpoint;
      await faults.close();
    }

    expect(faults.faults.seen).toBeGreaterThan(0);
    expect(result).toEqual({ pushed: 1, failed: 1, retry: throttledRecords.map((record) => record.dynamodb!.SequenceNumber) });
    expect(to('healthy')).toHaveLength(1);
    expect(to('throttled')).toHaveLength(0);
  });

  it('answers the records to retry as batch item failures', async () => {
    const throttled = await support.createTestOrg('Throttled handler');
    await connection('Throttled proxy', { proxyEnabled: true, proxyHost: `${receiverUrl}/throttled-handler` }, throttled.keys.admin);
    const records = await flagRecords('throttled-handler-flag', throttled);
    const realEndpoint = process.env.DYNAMODB_ENDPOINT!;
    const faults = await startFaultProxy(realEndpoint);
    Object.assign(faults.faults, { kind: 'throttle', remaining: 1000, matching: (body: string) => body.includes(`ORG#${throttled.orgId}"`) });
    process.env.DYNAMODB_ENDPOINT = faults.endpoint;

    let response: Awaited<ReturnType<Pusher['handler']>>;
    try {
      response = await pusher.handler({ Records: records }, { functionName: 'ProxyPusher', awsRequestId: 'test' } as never);
    } finally {
      process.env.DYNAMODB_ENDPOINT = realEndpoint;
      await faults.close();
    }

    expect(response.batchItemFailures).toEqual(records.map((record) => ({ itemIdentifier: record.dynamodb!.SequenceNumber })));
  });
});
