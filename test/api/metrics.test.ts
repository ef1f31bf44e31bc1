import { dynamoMeter } from '../../shared/db/client';
import { createTestOrg, startApi, type Api, type ApiResponse, type TestOrg } from '../support/api';
import { captureOutput } from '../support/capture-output';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * With METRICS=emf (as every function runs in AWS), each request through the same handlers writes
 * one EMF line with what the DynamoDB meter saw during it, its latency and status class, and no
 * secret. The local server runs in this process, so the meter the test reads is the handlers' own.
 */
let api: Api;
let org: TestOrg;
let proxy: FaultProxy;
let realEndpoint: string;

beforeAll(async () => {
  process.env.METRICS = 'emf';
  process.env.METRICS_NAMESPACE = 'Switchyard/api-test';
  api = await startApi();
  org = await createTestOrg('Metrics');
  realEndpoint = process.env.DYNAMODB_ENDPOINT!;
  proxy = await startFaultProxy(realEndpoint);
});
afterEach(() => {
  process.env.DYNAMODB_ENDPOINT = realEndpoint;
  proxy.reset();
});
afterAll(async () => {
  delete process.env.METRICS;
  delete process.env.METRICS_NAMESPACE;
  await proxy.close();
  await api.close();
});

const emfLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, any>);

/** A request whose lines are not the test's subject: kept out of the test output. */
const quietly = async (method: string, path: string, options: { key?: string; body?: unknown } = {}) => {
  let response!: ApiResponse;
  await captureOutput(async () => {
    response = await api.request(method, path, options);
  });
  return response;
};

/** One request, with the EMF lines written while it ran and what the meter counted meanwhile. */
async function measured(method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  let response!: ApiResponse;
  const before = { ...dynamoMeter.snapshot(), retries: dynamoMeter.retries };
  const output = await captureOutput(async () => {
    response = await api.request(method, path, options);
  });
  const after = { ...dynamoMeter.snapshot(), retries: dynamoMeter.retries };
  const used = { calls: after.calls - before.calls, readUnits: after.readUnits - before.readUnits, writeUnits: after.writeUnits - before.writeUnits, retries: after.retries - before.retries };
  return { response, lines: emfLines(output), used, output };
}

describe('request metrics', () => {
  it('writes one EMF line per request with the calls and capacity units the meter saw', async () => {
    await quietly('GET', '/api/v1/saved-groups', { key: org.keys.admin }); // the key is cached from here on

    const written = await measured('POST', '/api/v1/saved-groups', { key: org.keys.admin, body: { name: 'metered', condition: '{"id":"1"}' } });
    const read = await measured('GET', `/api/v1/saved-groups/${written.response.body.savedGroup.id}`, { key: org.keys.admin });

    for (const { response, lines, used } of [written, read]) {
      expect(response.status).toBe(200);
      expect(lines).toHaveLength(1);
      expect(used.calls).toBeGreaterThan(0);
      expect(lines[0]).toMatchObject({ DynamoCalls: used.calls, ReadUnits: used.readUnits, WriteUnits: used.writeUnits, DynamoRetries: 0, StatusClass: '2xx', Requests: 1 });
      expect(lines[0].Latency).toBeGreaterThan(0);
    }
    expect(written.lines[0]).toMatchObject({ Operation: 'postSavedGroup', Service: 'switchyard' });
    expect(written.used.writeUnits).toBeGreaterThan(0);
    expect(read.lines[0]).toMatchObject({ Operation: 'getSavedGroup', WriteUnits: 0 });
    expect(read.used.readUnits).toBeGreaterThan(0);
    expect(read.lines[0]._aws.CloudWatchMetrics.map((directive: { Namespace: string }) => directive.Namespace)).toEqual(
      expect.arrayContaining(['Switchyard/api-test']),
    );
  });

  it('names the status class of refused requests too, 4xx and 5xx', async () => {
    const missing = await measured('GET', '/api/v1/saved-groups/grp_missing', { key: org.keys.admin });
    const unauthorized = await measured('GET', '/api/v1/saved-groups', { key: 'secret_admin_not-a-key' });
    await quietly('GET', '/api/v1/saved-groups', { key: org.keys.admin });
    process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9'; // out of reach: the handler's error is not an ApiError
    const failing = await measured('GET', '/api/v1/saved-groups/grp_any', { key: org.keys.admin });

    expect(missing.lines).toEqual([expect.objectContaining({ Operation: 'getSavedGroup', StatusClass: '4xx' })]);
    expect(unauthorized.lines).toEqual([expect.objectContaining({ Operation: 'listSavedGroups', StatusClass: '4xx' })]);
    expect(failing.response.status).toBeGreaterThanOrEqual(500);
    expect(failing.lines).toEqual([expect.objectContaining({ Operation: 'getSavedGroup', StatusClass: '5xx' })]);
  });

  it('counts the attempts our client sent again, while the call still counts once', async () => {
    await quietly('GET', '/api/v1/saved-groups', { key: org.keys.admin });
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
    Object.assign(proxy.faults, { kind: 'throttle', remaining: 2, only: 'Query' });

    const { response, lines, used } = await measured('GET', '/api/v1/saved-groups', { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(proxy.faults.seen).toBe(2);
    expect(used.retries).toBe(2);
    expect(lines).toEqual([expect.objectContaining({ DynamoRetries: 2, DynamoCalls: used.calls, StatusClass: '2xx' })]);
  });

  it("says whether the SDK payload came from the container's cache", async () => {
    const created = await quietly('POST', '/api/v1/sdk-connections', {
      key: org.keys.admin,
      body: { name: 'Web', language: 'javascript', environment: 'production' },
    });
    const clientKey = created.body.sdkConnection.key;

    const first = await measured('GET', `/api/features/${clientKey}`);
    const second = await measured('GET', `/api/features/${clientKey}`);

    expect(first.lines).toEqual([expect.objectContaining({ Operation: 'getFeaturesForSdk', PayloadCacheHit: 0 })]);
    expect(second.lines).toEqual([expect.objectContaining({ Operation: 'getFeaturesForSdk', PayloadCacheHit: 1 })]);
    expect(second.lines[0]._aws.CloudWatchMetrics).toContainEqual({
      Namespace: 'Switchyard/api-test',
      Dimensions: [['Service', 'Operation']],
      Metrics: [{ Name: 'PayloadCacheHit', Unit: 'Count' }],
    });
  });

  it('holds no secret key, no organization and no path in any metric line', async () => {
    const keys = [org.keys.admin, org.keys.readonly, org.admin.token];
    const requests = [
      await measured('GET', '/api/v1/saved-groups', { key: org.keys.admin }),
      await measured('GET', '/api/v1/saved-groups', { key: org.keys.readonly }),
      await measured('POST', '/api/v1/saved-groups', { key: org.keys.readonly, body: { name: 'x', condition: '{"id":"1"}' } }),
      await measured('GET', '/api/v1/saved-groups', { headers: { authorization: `Basic ${Buffer.from(`${org.admin.token}:`).toString('base64')}` } }),
    ];

    const lines = requests.flatMap((request) => request.lines.map((line) => JSON.stringify(line)));
    expect(lines).toHaveLength(requests.length);
    const secrets = [...keys, ...keys.map((key) => key.replace(/^secret_[a-z]+_/, '')), org.orgId, '/api/v1'];
    expect(secrets.filter((secret) => lines.some((line) => line.includes(secret)))).toEqual([]);
  });
});
