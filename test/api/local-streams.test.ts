import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/dynamodb';

/**
 * `npm start` runs the table stream's consumers: the very start script, on the jest DynamoDB Local
 * with a table of its own (so no other test's writes reach its stream), takes changes through the
 * API, and its event publisher appends the events to the local sink while its proxy pusher POSTs
 * the payload to a receiver standing in for GrowthBook Proxy.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const root = join(__dirname, '..', '..');
const directory = mkdtempSync(join(tmpdir(), 'switchyard-start-'));
const eventsFile = join(directory, 'events.jsonl');
const received: Received[] = [];
let proxy: Server;
let proxyUrl: string;
let child: ChildProcess;
let output = '';
let baseUrl: string;
let adminKey: string;

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms; the server said:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  const port = await freePort();
  child = spawn(process.execPath, ['--import', 'tsx', join(root, 'infra', 'local', 'start.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      TABLE_NAME: `switchyard-start-${randomUUID().slice(0, 8)}`,
      LOCAL_EVENTS_FILE: eventsFile,
      RAMP_TICK_SECONDS: '3600',
      // The receiver is on loopback over http: the local-development setting lets pushes go there.
      PROXY_PUSH_ALLOW_LOCAL: 'true',
      // Whatever AWS configuration the machine has, the local sink takes any signature.
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(
    'the start',
    () => {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
      return /Streams: +events to/.test(output) ? true : undefined;
    },
    90_000,
  );
  baseUrl = `http://127.0.0.1:${port}`;
  adminKey = /Admin key: +(\S+)/.exec(output)![1];
}, 120_000);

afterAll(async () => {
  child?.kill('SIGTERM');
  await new Promise<void>((resolve) => (child?.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  rmSync(directory, { recursive: true, force: true });
});

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
  return parsed;
}

const events = () =>
  existsSync(eventsFile)
    ? readFileSync(eventsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

describe('npm start with the table stream consumers', () => {
  it('answers /healthcheck as GrowthBook does', async () => {
    const response = await fetch(`${baseUrl}/healthcheck`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 200, healthy: true });
  });

  it('pushes a changed payload to the GrowthBook Proxy of an SDK connection, signed with its key', async () => {
    const { sdkConnection } = await ok('POST', '/sdk-connections', {
      name: 'Proxied',
      language: 'javascript',
      environment: 'production',
      proxyEnabled: true,
      proxyHost: `${proxyUrl}/`,
    });
    received.length = 0;

    await ok('POST', '/features', { id: 'streamed-flag', valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true, rules: [] } } });

    const push = await until('a push with the new flag', () =>
      received.find((request) => request.path === '/proxy/features' && 'streamed-flag' in (JSON.parse(request.body).features ?? {})),
    );
    expect(push.headers['x-growthbook-api-key']).toBe(sdkConnection.key);
    expect(push.headers['x-growthbook-signature']).toBe(createHmac('sha256', sdkConnection.proxySigningKey).update(push.body).digest('hex'));
    expect(JSON.parse(push.body).features['streamed-flag']).toEqual({ defaultValue: true });
  });

  it('publishes an event the API recorded to the local sink, one JSON line as a bus target receives it', async () => {
    const dataSource = (
      await ok('POST', '/data-sources', {
        name: 'Local',
        type: 'duckdb',
        identifierTypes: [{ id: 'user_id' }],
        assignmentQueries: [{ id: 'q', name: 'q', identifierType: 'user_id', sql: "SELECT user_id, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')" }],
      })
    ).dataSource;
    const table = (await ok('POST', '/fact-tables', { name: 'Events', datasource: dataSource.id, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events.csv')" })).factTable;
    const metric = (await ok('POST', '/fact-metrics', { name: 'Purchased', metricType: 'proportion', numerator: { factTableId: table.id, column: '$$distinctUsers' } })).factMetric;
    const experiment = (
      await ok('POST', '/experiments', {
        trackingKey: 'streamed',
        name: 'Streamed',
        variations: [
          { key: '0', name: 'A' },
          { key: '1', name: 'B' },
        ],
        status: 'running',
        datasourceId: dataSource.id,
        assignmentQueryId: 'q',
        metrics: [metric.id],
      })
    ).experiment;

    const { snapshot } = await ok('POST', `/experiments/${experiment.id}/snapshot`, { triggeredBy: 'schedule' });

    const event = await until('the scheduled event in the sink', () => events().find((line) => line['detail-type'] === 'experiment.snapshot.scheduled'));
    expect(event).toMatchObject({
      version: '0',
      source: 'switchyard',
      id: expect.any(String),
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      detail: {
        id: expect.stringMatching(/^evt_/),
        orgId: 'org_default',
        event: 'experiment.snapshot.scheduled',
        object: { type: 'experiment', id: experiment.id },
        data: expect.objectContaining({ snapshotId: snapshot.id }),
      },
    });
    // Only event items reach the publisher: the features, connections and experiments written above made no line.
    expect(events().every((line) => line.source === 'switchyard' && line['detail-type'].startsWith('experiment.snapshot.'))).toBe(true);
  });
});
