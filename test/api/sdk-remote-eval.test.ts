import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { MAX_ATTRIBUTE_CHARS, MAX_REMOTE_EVAL_BODY_BYTES } from '../../shared/contracts/sdk-payload';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * Remote evaluation as a user of the real GrowthBook SDK (`remoteEval: true`) meets it: the
 * server answers resolved values for the user, experiments still reach the trackingCallback, and
 * the targeting itself is never served.
 */

let api: Api;
let org: TestOrg;
let remoteKey: string;
let experimentKey: string;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  const { experiment } = await ok('POST', '/experiments', {
    trackingKey: 'pricing-test',
    name: 'Pricing',
    status: 'running',
    hashAttribute: 'id',
    variations: [{ key: 'low', name: 'Low' }, { key: 'high', name: 'High' }],
    phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 1, variationWeights: [0.5, 0.5] }],
  });
  experimentKey = experiment.trackingKey;
  const [low, high] = experiment.variations.map((v: { variationId: string }) => v.variationId);
  const production = (rules: unknown[]) => ({ production: { enabled: true, rules } });
  await ok('POST', '/features', {
    id: 'secret-menu',
    valueType: 'boolean',
    defaultValue: 'false',
    environments: production([{ type: 'force', value: 'true', condition: '{"email":{"$regex":"@vip\\\\.example$"}}' }]),
  });
  await ok('POST', '/features', {
    id: 'price',
    valueType: 'number',
    defaultValue: '10',
    environments: production([{ type: 'experiment-ref', experimentId: experiment.id, variations: [{ variationId: low, value: '9' }, { variationId: high, value: '12' }] }]),
  });
  remoteKey = (await ok('POST', '/sdk-connections', { name: 'Remote', language: 'javascript', environment: 'production', remoteEvalEnabled: true }))
    .sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('remote evaluation', () => {
  it('gives the SDK the right values for each user, and follows its attributes', async () => {
    clearCache();
    const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey: remoteKey, remoteEval: true, attributes: { id: 'u-1', email: 'ann@vip.example' } });

    await gb.init({ timeout: 5000 });
    const vip = gb.isOn('secret-menu');
    await gb.setAttributes({ id: 'u-1', email: 'bob@else.example' });
    const other = gb.isOn('secret-menu');
    gb.destroy();

    expect(vip).toBe(true);
    expect(other).toBe(false);
  });

  it('fires the trackingCallback for an experiment the server ran, with the variation the value came from', async () => {
    clearCache();
    const tracked: Array<{ key: string; value: unknown }> = [];
    const gb = new GrowthBook({
      apiHost: api.baseUrl,
      clientKey: remoteKey,
      remoteEval: true,
      attributes: { id: 'u-42' },
      trackingCallback: (experiment, result) => void tracked.push({ key: experiment.key, value: result.value }),
    });

    await gb.init({ timeout: 5000 });
    const price = gb.getFeatureValue('price', 0);
    gb.destroy();

    expect([9, 12]).toContain(price);
    expect(tracked).toEqual([{ key: experimentKey, value: price }]);
  });

  it('honours forced variations and forced features', async () => {
    const forced = await api.request('POST', `/api/eval/${remoteKey}`, {
      body: { attributes: { id: 'u-42' }, forcedVariations: { [experimentKey]: 1 }, forcedFeatures: [['secret-menu', true]], url: '' },
    });

    expect(forced.body.features.price.defaultValue).toBe(12);
    expect(forced.body.features['secret-menu']).toEqual({ defaultValue: true });
  });

  it('answers with no-store and never the targeting, and refuses a plain GET of the payload', async () => {
    const evaluated = await api.request('POST', `/api/eval/${remoteKey}`, { body: { attributes: { id: 'u-1' } } });
    const plain = await api.request('GET', `/api/features/${remoteKey}`);

    expect(evaluated.status).toBe(200);
    expect(evaluated.headers.get('cache-control')).toBe('no-store');
    expect(evaluated.headers.get('access-control-allow-origin')).toBe('*');
    expect(JSON.stringify(evaluated.body)).not.toContain('vip');
    expect(plain.status).toBe(400);
    expect(plain.body.message).toMatch(/remote evaluation/);
  });

  it('answers a browser preflight for the POST', async () => {
    const preflight = await api.request('OPTIONS', `/api/eval/${remoteKey}`, {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });

    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
  });

  it('refuses remote evaluation for a connection without it, and a body that is not the SDK one', async () => {
    const { sdkConnection } = await ok('POST', '/sdk-connections', { name: 'Plain', language: 'javascript', environment: 'production' });

    const refused = await api.request('POST', `/api/eval/${sdkConnection.key}`, { body: { attributes: {} } });
    const malformed = await api.request('POST', `/api/eval/${remoteKey}`, { body: { attributes: 'everyone' } });
    const unknown = await api.request('POST', '/api/eval/sdk-nobody', { body: {} });

    expect(refused.status).toBe(400);
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/attributes/);
    expect(unknown.status).toBe(404);
  });

  it(`refuses an attribute string longer than ${MAX_ATTRIBUTE_CHARS} characters, at any depth, naming it; takes one of exactly that`, async () => {
    const long = 'a'.repeat(MAX_ATTRIBUTE_CHARS + 1);

    const top = await api.request('POST', `/api/eval/${remoteKey}`, { body: { attributes: { id: 'u-1', email: long } } });
    const nested = await api.request('POST', `/api/eval/${remoteKey}`, { body: { attributes: { id: 'u-1', profile: { emails: ['x', long] } } } });
    const fits = await api.request('POST', `/api/eval/${remoteKey}`, { body: { attributes: { id: 'u-1', email: `${'a'.repeat(MAX_ATTRIBUTE_CHARS - 12)}@vip.example` } } });

    expect(top.status).toBe(400);
    expect(top.body.message).toBe(`Request body: [attributes.email] is longer than ${MAX_ATTRIBUTE_CHARS} characters, the most remote evaluation takes`);
    expect(nested.status).toBe(400);
    expect(nested.body.message).toMatch(/^Request body: \[attributes\.profile\.emails\.1\] is longer than/);
    expect(fits.status).toBe(200);
    expect(fits.body.features['secret-menu']).toEqual({ defaultValue: true });
  });

  it(`refuses a body over ${MAX_REMOTE_EVAL_BODY_BYTES} bytes with 413, though keyed routes take 2 MB`, async () => {
    const attributes = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`a${i}`, 'x'.repeat(MAX_ATTRIBUTE_CHARS)]));

    const response = await api.request('POST', `/api/eval/${remoteKey}`, { body: { attributes } });

    expect(response.status).toBe(413);
    expect(response.body.message).toBe(`Request body is larger than ${MAX_REMOTE_EVAL_BODY_BYTES} bytes`);
  });
});
