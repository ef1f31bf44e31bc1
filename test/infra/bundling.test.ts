import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildSync } from 'esbuild';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { analysisOnlyPackagesIn, bundleFile, bundleHandlers, bundleInputs, esbuildOptions, formParserFile, packageOf, repoRoot, schemaValidatorFile } from '../../infra/bundling';
import { defaultProvider } from '../../infra/lambda-credentials';
import { allHandlers, analyseSnapshotHandler, eventPublisherHandler, failSnapshotHandler, planSnapshotHandler } from '../../infra/lambda';
import { lambdaInvocation, type LocalRequest } from '../../infra/local/server';
import { buildOpenApiDocument } from '../../shared/api/openapi';
import { routes, unknownRouteHandler } from '../../shared/contracts/registry';
import { MAX_ATTEMPTS } from '../../shared/db/dynamo-http';
import { savedGroups } from '../../shared/store/saved-groups';
import { runBundle } from '../../bench/run-bundle';
import { createTestOrg, type TestOrg } from '../support/api';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

/**
 * The bundles the stack deploys, built as the stack builds them and each run in a fresh Node
 * process against DynamoDB Local, as Lambda would run them: a broken ES module build fails here.
 */
const getHandler = 'functions/saved-groups/get-saved-group.ts';
const postHandler = 'functions/saved-groups/post-saved-group.ts';
const documentHandler = 'functions/system/get-open-api-document.ts';
const yamlHandler = 'functions/system/get-open-api-yaml.ts';
const docsPageHandler = 'functions/system/get-api-docs.ts';
const docsAssetHandler = 'functions/system/get-api-docs-asset.ts';
const snapshotHandler = 'functions/snapshots/post-experiment-snapshot.ts';
const postFeatureHandler = 'functions/features/post-feature.ts';
const updateFeatureHandler = 'functions/features/update-feature.ts';
/** Ajv's own message, in its code and in no function's main bundle. */
const ajvMarker = 'must NOT have additional properties';
/** The Step Functions workflow's functions: they alone may carry the statistics and the Athena client. */
const analysisHandlers = [planSnapshotHandler, analyseSnapshotHandler, failSnapshotHandler];
const outdir = mkdtempSync(join(tmpdir(), 'switchyard-bundling-test-'));
const bundleOf = (handler: string) => bundleFile(outdir, handler);

let org: TestOrg;

/** Runs a request through the bundle of the handler that serves it. */
async function invoke(request: LocalRequest, env: Record<string, string> = {}) {
  const { handler, ...invocation } = lambdaInvocation(request);
  return runBundle(bundleOf(handler), invocation, { env: { LOG_LEVEL: 'INFO', ...env } });
}

const postSavedGroup = (key: string, body: unknown): LocalRequest => ({
  method: 'POST',
  url: '/api/v1/saved-groups',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});
const logged = (lines: string[]) => lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));

/**
 * A proxy in front of DynamoDB Local that answers the first `failing` requests with DynamoDB's
 * transient InternalServerError and forwards the rest, so the bundle's own client retry is what gets it through.
 */
async function failingProxy(failing: number): Promise<FaultProxy> {
  const proxy = await startFaultProxy(process.env.DYNAMODB_ENDPOINT!);
  Object.assign(proxy.faults, { kind: 'unavailable', remaining: failing });
  return proxy;
}

describe('the bundles the stack deploys', () => {
  beforeAll(async () => {
    bundleHandlers(
      [unknownRouteHandler, getHandler, postHandler, documentHandler, yamlHandler, docsPageHandler, docsAssetHandler, eventPublisherHandler, ...analysisHandlers, snapshotHandler, postFeatureHandler, updateFeatureHandler],
      outdir,
    );
    org = await createTestOrg('Bundles');
  }, 60_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('are minified ES modules with a source map, whose import statements name only Node modules', () => {
    const code = readFileSync(bundleOf(getHandler), 'utf8');

    expect(existsSync(`${bundleOf(getHandler)}.map`)).toBe(true);
    expect(code.endsWith('//# sourceMappingURL=index.mjs.map\n')).toBe(true);
    // Import statements only (at the start of a statement), not the SDK's messages that quote one.
    const statements = code.matchAll(/(?:^|[;\n])import(?:[\w*{}\s,$]*from)?\s*["']([^"']+)["']/g);
    const imported = [...new Set([...statements].map((match) => match[1]))];
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((name) => !name.startsWith('node:'))).toEqual([]);
  });

  it('answer an unknown route with 404 Unknown API endpoint', async () => {
    const { first } = await invoke({ method: 'GET', url: '/api/v1/nope', headers: {} });

    expect(first.statusCode).toBe(404);
    expect(JSON.parse(first.body!)).toEqual({ message: 'Unknown API endpoint' });
  });

  it('read from DynamoDB through the whole middleware stack, retrying failed calls', async () => {
    const group = await savedGroups.create(org.orgId, { id: 'grp_bundle', name: 'Bundled', type: 'list', attributeKey: 'id', values: ['a'] });
    const proxy = await failingProxy(2);

    try {
      const { first } = await invoke(
        { method: 'GET', url: `/api/v1/saved-groups/${group.id}`, headers: { authorization: `Bearer ${org.keys.readonly}` } },
        { DYNAMODB_ENDPOINT: proxy.endpoint },
      );

      expect(first.statusCode).toBe(200);
      expect(JSON.parse(first.body!).savedGroup).toMatchObject({ id: group.id, name: 'Bundled', values: ['a'] });
      expect(proxy.requests.length).toBeGreaterThan(2); // two failed answers, then the calls that got through
    } finally {
      await proxy.close();
    }
  });

  it('write to DynamoDB', async () => {
    const { first } = await invoke(
      postSavedGroup(org.keys.admin, { name: 'Written by a bundle', type: 'list', attributeKey: 'id', values: ['x'] }),
    );

    expect(first.statusCode).toBe(200);
    const { id } = JSON.parse(first.body!).savedGroup;
    expect(await savedGroups.get(org.orgId, id)).toMatchObject({ name: 'Written by a bundle', values: ['x'] });
  });

  it('read a form-encoded body with the form parser they load on first use, shipped next to the bundle', async () => {
    // qs's own option name: the parser's code is in its file, not compiled with the bundle at every cold start.
    expect(readFileSync(bundleOf(postHandler), 'utf8')).not.toContain('allowPrototypes');
    expect(readFileSync(join(dirname(bundleOf(postHandler)), formParserFile), 'utf8')).toContain('allowPrototypes');

    const { first } = await invoke({
      method: 'POST',
      url: '/api/v1/saved-groups',
      headers: { authorization: `Bearer ${org.keys.admin}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from('name=From+a+form&type=list&attributeKey=id&values[]=u1&values[]=u2'),
    });

    expect(first.statusCode).toBe(200);
    expect(JSON.parse(first.body!).savedGroup).toMatchObject({ name: 'From a form', values: ['u1', 'u2'] });
  });

  it('ship Ajv next to the feature functions, outside their main bundles, and only there', () => {
    for (const handler of [postFeatureHandler, updateFeatureHandler]) {
      // Booleans, not the files: a failure would print a whole bundle.
      expect(readFileSync(bundleOf(handler), 'utf8').includes(ajvMarker)).toBe(false);
      expect(readFileSync(join(dirname(bundleOf(handler)), schemaValidatorFile), 'utf8').includes(ajvMarker)).toBe(true);
    }
    expect(existsSync(join(dirname(bundleOf(getHandler)), schemaValidatorFile))).toBe(false);
  });

  it('load Ajv on a feature with a JSON schema, and refuse a value GrowthBook refuses with a 400 naming it', async () => {
    const create = (id: string, defaultValue: string): LocalRequest => ({
      method: 'POST',
      url: '/api/v1/features',
      headers: { authorization: `Bearer ${org.keys.admin}`, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ id, valueType: 'json', defaultValue, jsonSchema: JSON.stringify({ type: 'array', uniqueItems: true }) })),
    });

    const refused = await invoke(create('bundle-schema-refused', '[{"a":1,"b":2},{"b":2,"a":1}]'));
    const accepted = await invoke(create('bundle-schema-accepted', '[{"a":1},{"a":2}]'));

    expect(refused.first.statusCode).toBe(400);
    expect(JSON.parse(refused.first.body!).message).toBe(
      'Request body: [defaultValue] does not match jsonSchema: $: must NOT have duplicate items (items ## 0 and 1 are identical)',
    );
    expect(accepted.first.statusCode).toBe(200);
    expect(JSON.parse(accepted.first.body!).feature).toMatchObject({ id: 'bundle-schema-accepted', defaultValue: '[{"a":1},{"a":2}]' });
  });

  it('answer invalid input with a 400 naming the field, in the English messages zod/mini does not load by itself', async () => {
    const { first } = await invoke(postSavedGroup(org.keys.admin, { type: 'list', attributeKey: 'id', values: [] }));

    expect(first.statusCode).toBe(400);
    expect(JSON.parse(first.body!).message).toMatch(/name/);
    expect(JSON.parse(first.body!).message).toContain('Request body: [name] Invalid input: expected string, received undefined');
  });

  it('log JSON lines with the request id when DynamoDB keeps failing, and answer 503 after the client retries', async () => {
    const proxy = await failingProxy(Number.MAX_SAFE_INTEGER);

    try {
      const { first, logLines } = await invoke(
        { method: 'GET', url: '/api/v1/saved-groups/grp_x', headers: { authorization: `Bearer ${org.keys.readonly}` } },
        { DYNAMODB_ENDPOINT: proxy.endpoint },
      );

      expect(first.statusCode).toBe(503);
      expect(proxy.requests).toHaveLength(MAX_ATTEMPTS);
      expect(logged(logLines)).toContainEqual(
        expect.objectContaining({ level: 'WARN', message: 'DynamoDB unavailable after retries', service: 'switchyard', function_request_id: expect.any(String) }),
      );
    } finally {
      await proxy.close();
    }
  });

  it('log an unexpected error with a stack trace mapped to the TypeScript sources', async () => {
    const { first, logLines } = await invoke(
      { method: 'GET', url: '/api/v1/saved-groups/grp_x', headers: { authorization: `Bearer ${org.keys.readonly}` } },
      { TABLE_NAME: 'switchyard-no-such-table' },
    );

    expect(first.statusCode).toBe(500);
    const [entry] = logged(logLines).filter((line) => line.message === 'Unhandled error');
    expect(entry).toMatchObject({ level: 'ERROR', error: { name: 'ResourceNotFoundException' } });
    // Mapped by the logger from the bundle's source map (Lambda runs without --enable-source-maps), to
    // paths in the repository, from the DynamoDB client's frame up, none left in the bundle or the build's folders.
    expect(entry.error.stack).toMatch(/ \(shared\/db\/dynamo-http\.ts:\d+:\d+\)/);
    expect(entry.error.stack).toMatch(/ \(shared\/api\/auth\.ts:\d+:\d+\)/);
    expect(entry.error.stack).not.toMatch(/index\.mjs|\.\.\/|\/tmp\//);
    expect(entry.error.location).toMatch(/^node_modules\/|^shared\//);
  });

  it('serve the OpenAPI document generated at bundle time, as a fresh generation gives it', async () => {
    const { first } = await invoke({ method: 'GET', url: '/api/v1/openapi.json', headers: {} });

    expect(first.statusCode).toBe(200);
    expect(JSON.parse(first.body!)).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(routes))));
  });

  it('bundle only the endpoint specs and schemas a function reaches, not the rest of its contract file', () => {
    const code = readFileSync(bundleOf(getHandler), 'utf8');

    expect(code).toContain('"getSavedGroup"');
    expect(code).not.toContain('"listSavedGroups"');
    expect(code).not.toContain('"postSavedGroup"');
  });

  it('serve the YAML document generated at bundle time, the same document', async () => {
    const { first } = await invoke({ method: 'GET', url: '/api/v1/openapi.yaml', headers: {} });

    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({ 'content-type': 'text/yaml; charset=utf-8' });
    expect(parse(first.body!)).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(routes))));
  });

  it("serve the reference page's files from copies shipped next to the asset function alone, precompressed, read on request", async () => {
    const renderer = readFileSync(join(repoRoot, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'));
    const request = (acceptEncoding: string): LocalRequest => ({ method: 'GET', url: '/api/v1/docs/swagger-ui-bundle.js?v=1', headers: { 'accept-encoding': acceptEncoding } });

    const [br, gzip, plain] = await Promise.all(['gzip, deflate, br', 'gzip', 'identity'].map(async (encoding) => (await invoke(request(encoding))).first));

    expect(readdirSync(join(dirname(bundleOf(docsAssetHandler)), 'docs')).sort()).toEqual(
      ['favicon-32x32.png', 'swagger-ui-bundle.js', 'swagger-ui-init.js', 'swagger-ui.css'].flatMap((name) => [name, `${name}.br`, `${name}.gz`]).sort(),
    );
    for (const other of [docsPageHandler, documentHandler, getHandler]) expect(existsSync(join(dirname(bundleOf(other)), 'docs'))).toBe(false);
    expect(br).toMatchObject({ statusCode: 200, isBase64Encoded: true, headers: { 'content-encoding': 'br', 'content-type': 'text/javascript; charset=utf-8' } });
    expect(brotliDecompressSync(Buffer.from(br.body!, 'base64')).equals(renderer)).toBe(true);
    expect(gzip.headers).toMatchObject({ 'content-encoding': 'gzip' });
    expect(gunzipSync(Buffer.from(gzip.body!, 'base64')).equals(renderer)).toBe(true);
    expect(plain.headers).not.toHaveProperty('content-encoding');
    expect(Buffer.from(plain.body!, 'base64').equals(renderer)).toBe(true);
    // Within Lambda's 6 MB response even uncompressed and in base64.
    expect(plain.body!.length).toBeLessThan(6 * 1024 * 1024);
  });

  it('serve the reference page naming files the asset function has, and no file it lacks', async () => {
    const { first } = await invoke({ method: 'GET', url: '/api/v1/docs', headers: {} });

    expect(first).toMatchObject({ statusCode: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
    const named = [...first.body!.matchAll(/(?:src|href)="\/api\/v1\/docs\/([^"?]+)/g)].map((match) => match[1]);
    expect(named.sort()).toEqual(readdirSync(join(dirname(bundleOf(docsAssetHandler)), 'docs')).filter((file) => !/\.(br|gz)$/.test(file)).sort());
    const { first: missing } = await invoke({ method: 'GET', url: '/api/v1/docs/index.mjs', headers: {} });
    expect(missing.statusCode).toBe(404);
  });

  it('run the event publisher with its EventBridge client', async () => {
    const { first } = await runBundle(bundleOf(eventPublisherHandler), {
      event: { Records: [] },
      context: { awsRequestId: 'r1', functionName: 'publisher' },
    }, { env: { EVENT_BUS_NAME: 'switchyard-test' } });

    expect(first).toEqual({ batchItemFailures: [] });
  });

  it.each([...analysisHandlers, snapshotHandler])('leave DuckDB out of %s, which never runs it in Lambda', (handler) => {
    const code = readFileSync(bundleOf(handler), 'utf8');

    expect(code).not.toContain('@duckdb/node-api');
    expect(code).not.toMatch(/duckdb[-_.a-z]*\.node/);
  });
});

/** One esbuild run over `entryPoints`, shared code split into chunks so it is emitted once, nothing written. */
const moduleGraph = (entryPoints: Parameters<typeof buildSync>[0]['entryPoints']) =>
  buildSync({ ...esbuildOptions, minify: false, sourcemap: false, splitting: true, write: false, metafile: true, absWorkingDir: repoRoot, entryPoints, outdir }).metafile;

describe('credentials in a bundle', () => {
  it("come from Lambda's environment variables only: the rest of the SDK's default chain is left out", () => {
    const packages = new Set((bundleInputs(moduleGraph([getHandler])).get(getHandler) ?? []).map(packageOf));

    expect(packages).toContain('@aws-sdk/credential-provider-env');
    for (const unused of ['@aws-sdk/credential-provider-node', '@aws-sdk/credential-provider-sso', '@aws-sdk/credential-provider-ini', '@aws-sdk/nested-clients']) {
      expect(packages).not.toContain(unused);
    }
  });

  it('are the role credentials Lambda puts in the environment, and a clear error without them', async () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
      await expect(defaultProvider()()).resolves.toMatchObject({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });

      delete process.env.AWS_ACCESS_KEY_ID;
      await expect(defaultProvider()()).rejects.toThrow(/environment variable credentials/);
    } finally {
      process.env = saved;
    }
  });
});

describe('packages in the functions', () => {
  const handlers = [...new Set(allHandlers())].filter((handler) => existsSync(join(repoRoot, handler)) && !analysisHandlers.includes(handler));
  let graph: ReturnType<typeof moduleGraph>;
  let inputs: Map<string, string[]>;
  beforeAll(() => {
    graph = moduleGraph(handlers);
    inputs = bundleInputs(graph);
  }, 60_000);

  it('leave analysis-only packages out of every API, scheduler and event function', () => {
    const found = handlers.map((handler) => [handler, analysisOnlyPackagesIn(inputs.get(handler) ?? [])] as const);
    expect(handlers.filter((handler) => !inputs.get(handler)?.includes(handler))).toEqual([]);
    const offending = found.filter(([, packages]) => packages.length > 0);
    expect(offending).toEqual([]);
  });

  it('leave Ajv out of every main bundle: it is reached only through its import on first use', () => {
    // The files each function loads at cold start: its own and the chunks it imports statically.
    const statically = (entry: string) => {
      const [file] = Object.entries(graph.outputs).find(([, output]) => output.entryPoint === entry) ?? [];
      const files: string[] = [];
      for (let queue = file ? [file] : []; queue.length > 0; ) {
        const next = queue.pop()!;
        if (files.includes(next)) continue;
        files.push(next);
        queue.push(...graph.outputs[next].imports.filter((i) => i.kind === 'import-statement' && graph.outputs[i.path]).map((i) => i.path));
      }
      return files.flatMap((output) => Object.keys(graph.outputs[output].inputs));
    };
    const withAjv = (inputsOf: (handler: string) => string[]) => handlers.filter((handler) => inputsOf(handler).some((input) => packageOf(input) === 'ajv'));

    expect(withAjv((handler) => inputs.get(handler) ?? [])).toEqual(expect.arrayContaining([postFeatureHandler, updateFeatureHandler]));
    expect(withAjv(statically)).toEqual([]);
  });

  it("leave the reference page's renderer out of every function: only the page's two read its package.json, for the version", () => {
    const rendererInputs = handlers
      .map((handler) => [handler, (inputs.get(handler) ?? []).filter((file) => packageOf(file) === 'swagger-ui-dist')] as const)
      .filter(([, files]) => files.length > 0);

    expect(handlers).toContain(docsAssetHandler);
    expect(rendererInputs.sort()).toEqual([docsAssetHandler, docsPageHandler].map((handler) => [handler, ['node_modules/swagger-ui-dist/package.json']]));
  });

  it("validate with zod/mini: zod's classic API, several times its cost at cold start, enters no function", () => {
    const uses = (handler: string, folder: string) => (inputs.get(handler) ?? []).some((file) => file.startsWith(`node_modules/zod/v4/${folder}/`));

    expect(uses(getHandler, 'mini')).toBe(true);
    expect(handlers.filter((handler) => uses(handler, 'classic'))).toEqual([]);
  });
});

describe('analysis-only packages', () => {
  it('are found in a bundle that imports one', () => {
    const entry = join(repoRoot, 'shared', 'analysis-only-import.ts'); // never written: esbuild reads it from stdin

    const metafile = buildSync({
      ...esbuildOptions, write: false, metafile: true, absWorkingDir: repoRoot, outdir,
      stdin: { contents: "export { default } from '@stdlib/stats-base-dists-normal-cdf';", resolveDir: repoRoot, sourcefile: entry },
    }).metafile;

    const [files] = [...bundleInputs(metafile).values()];
    expect(analysisOnlyPackagesIn(files)).toContain('@stdlib/stats-base-dists-normal-cdf');
  });
});
