import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { bundleHandlers } from '../../infra/bundling';
import { analyseSnapshotHandler, eventPublisherHandler, failSnapshotHandler, planSnapshotHandler } from '../../infra/lambda';
import { unknownRouteHandler } from '../../shared/contracts/registry';

const endpointHandler = 'functions/saved-groups/get-saved-group.ts';
const snapshotHandler = 'functions/snapshots/post-experiment-snapshot.ts';
const analysisHandlers = [planSnapshotHandler, analyseSnapshotHandler, failSnapshotHandler];
const outdir = mkdtempSync(join(tmpdir(), 'switchyard-bundling-test-'));
const bundleOf = (handler: string) => join(outdir, handler.replace(/\.ts$/, ''), 'index.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = (handler: string) => require(bundleOf(handler)).handler;

const request = (path: string): APIGatewayProxyEventV2 =>
  ({ rawPath: path, headers: {}, requestContext: { http: { method: 'GET', path } }, isBase64Encoded: false }) as unknown as APIGatewayProxyEventV2;

describe('the bundles the stack deploys', () => {
  beforeAll(() => {
    bundleHandlers([unknownRouteHandler, endpointHandler, eventPublisherHandler, ...analysisHandlers, snapshotHandler], outdir);
  }, 60_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('are single minified files with a source map and the AWS SDK inside', () => {
    const code = readFileSync(bundleOf(endpointHandler), 'utf8');

    expect(existsSync(`${bundleOf(endpointHandler)}.map`)).toBe(true);
    const required = [...new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]))];

    expect(code.endsWith('//# sourceMappingURL=index.js.map\n')).toBe(true);
    // Only Node's own modules stay outside, and the CRT signer the SDK tries to load for SigV4a only.
    expect(required.filter((name) => !name.startsWith('node:'))).toEqual(['@aws-sdk/signature-v4-crt']);
  });

  it('answer an unknown route with 404 Unknown API endpoint', async () => {
    const response = await load(unknownRouteHandler)(request('/api/v1/nope'));

    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ message: 'Unknown API endpoint' });
  });

  it('run an endpoint through its whole middleware stack', async () => {
    const event = { ...request('/api/v1/saved-groups/grp_1'), pathParameters: { id: 'grp_1' } };

    const response = await load(endpointHandler)(event, {} as Context);

    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ code: expect.any(String), message: expect.stringMatching(/API key/) });
  });

  it('load the event publisher with its EventBridge client', async () => {
    process.env.EVENT_BUS_NAME = 'switchyard-test';

    const result = await load(eventPublisherHandler)({ Records: [] }, { awsRequestId: 'r1', functionName: 'publisher' } as Context);

    expect(result).toEqual({ batchItemFailures: [] });
  });

  it.each([...analysisHandlers, snapshotHandler])('leave DuckDB out of %s, which never runs it in Lambda', (handler) => {
    const code = readFileSync(bundleOf(handler), 'utf8');

    expect(code).not.toContain('@duckdb/node-api');
    expect(code).not.toMatch(/duckdb[-_.a-z]*\.node/);
  });
});
