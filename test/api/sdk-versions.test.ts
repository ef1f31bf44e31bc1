import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import { updateSdkConnection } from '../../shared/store/sdk-connections';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * SDK version gating as a user of the real GrowthBook SDK meets it: a connection says which SDK
 * (language and version) reads its payload, and the payload holds only what that SDK reads right.
 */

let api: Api;
let org: TestOrg;

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });

async function ok(method: string, path: string, body?: unknown) {
  const response = await admin(method, path, body);
  if (response.status !== 200) throw new Error(`${method} ${path} failed: ${JSON.stringify(response.body)}`);
  return response.body;
}

const connection = async (body: Record<string, unknown>) =>
  (await ok('POST', '/sdk-connections', { name: 'Web app', language: 'javascript', environment: 'production', ...body })).sdkConnection;

/** The real SDK, loading the connection's payload from the public route. */
async function sdk(clientKey: string, attributes: Record<string, unknown> = { id: 'u-1' }) {
  clearCache();
  const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey, attributes });
  await gb.init({ timeout: 5000 });
  return gb;
}

const payloadOf = async (key: string) => (await api.request('GET', `/api/features/${key}`)).body as FeatureApiResponse;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  const production = (rules: unknown[] = []) => ({ production: { enabled: true, rules } });
  // The parent is on for beta users only, so a child gated on it must be off for everyone else.
  await ok('POST', '/features', {
    id: 'new-checkout',
    valueType: 'boolean',
    defaultValue: 'false',
    environments: production([{ type: 'force', value: 'true', condition: '{"plan":"beta"}' }]),
  });
  await ok('POST', '/features', { id: 'express-pay', valueType: 'boolean', defaultValue: 'true', prerequisites: ['new-checkout'], environments: production() });
  await ok('POST', '/features', {
    id: 'promo-banner',
    valueType: 'string',
    defaultValue: 'none',
    environments: production([
      { type: 'force', value: 'checkout-promo', prerequisites: [{ id: 'new-checkout', condition: '{"value": false}' }] },
    ]),
  });
  // A parent with no rule is settled on the server: its gates need no SDK support.
  await ok('POST', '/features', { id: 'search-backend', valueType: 'boolean', defaultValue: 'true', environments: production() });
  await ok('POST', '/features', { id: 'search-v2', valueType: 'boolean', defaultValue: 'true', prerequisites: ['search-backend'], environments: production() });
  await ok('POST', '/features', {
    id: 'greeting',
    valueType: 'string',
    defaultValue: 'hello',
    environments: production([{ type: 'force', value: 'hi', prerequisites: [{ id: 'search-backend', condition: '{"value": true}' }] }]),
  });
  await ok('POST', '/features', {
    id: 'dark-mode',
    valueType: 'boolean',
    defaultValue: 'false',
    tags: ['ui'],
    environments: production([{ type: 'force', value: 'true', condition: '{"plan":"pro"}' }]),
  });
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('prerequisites and old SDKs', () => {
  it('never serves a gated feature ungated to an SDK without prerequisite support', async () => {
    const old = await connection({ sdkVersion: '0.33.0' });
    const current = await connection({ sdkVersion: '1.6.4' });

    const oldSdk = await sdk(old.key, { id: 'u-1', plan: 'pro' });
    const currentSdk = await sdk(current.key, { id: 'u-1', plan: 'pro' });

    // express-pay defaults to true behind its off parent: served ungated, an old SDK would say true.
    expect(oldSdk.isOn('express-pay')).toBe(false);
    expect(oldSdk.getFeatureValue('promo-banner', 'fallback')).toBe('fallback');
    expect(oldSdk.isOn('dark-mode')).toBe(true);
    // The current SDK evaluates the gates itself.
    expect(currentSdk.isOn('express-pay')).toBe(false);
    expect(currentSdk.getFeatureValue('promo-banner', 'fallback')).toBe('checkout-promo');
    expect(Object.keys((await payloadOf(old.key)).features ?? {}).sort()).toEqual(['dark-mode', 'greeting', 'new-checkout', 'search-backend', 'search-v2']);
    expect(Object.keys((await payloadOf(current.key)).features ?? {}).sort()).toEqual([
      'dark-mode',
      'express-pay',
      'greeting',
      'new-checkout',
      'promo-banner',
      'search-backend',
      'search-v2',
    ]);
    oldSdk.destroy();
    currentSdk.destroy();
  });

  it('settles the gates of a parent without rules on the server, so an old SDK answers as a current one', async () => {
    const old = await connection({ sdkVersion: '0.33.0' });
    const current = await connection({ sdkVersion: '1.6.4' });

    const [oldSdk, currentSdk] = [await sdk(old.key), await sdk(current.key)];

    for (const gb of [oldSdk, currentSdk]) {
      expect(gb.isOn('search-v2')).toBe(true);
      expect(gb.getFeatureValue('greeting', 'none')).toBe('hi');
    }
    // The old SDK's copy has no gate left to misread; the current one keeps its gates, as written.
    expect((await payloadOf(old.key)).features?.['search-v2']).toEqual({ defaultValue: true });
    expect((await payloadOf(current.key)).features?.['search-v2'].rules?.[0].parentConditions).toHaveLength(1);
    oldSdk.destroy();
    currentSdk.destroy();
  });

  it('serves what a connection names once its version is changed, as the next request shows', async () => {
    const { id, key } = await connection({ sdkVersion: '1.6.4' });
    const before = await api.request('GET', `/api/features/${key}`);

    await ok('PUT', `/sdk-connections/${id}`, { sdkVersion: '0.33.0' });
    const after = await api.request('GET', `/api/features/${key}`);

    expect(Object.keys(before.body.features)).toContain('express-pay');
    expect(Object.keys(after.body.features)).not.toContain('express-pay');
    expect(after.headers.get('etag')).toBeTruthy();
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('gives two connections of one environment with different SDKs different bodies', async () => {
    const a = await connection({ language: 'react', sdkVersion: '0.23.0' });
    const b = await connection({ language: 'react', sdkVersion: '0.24.0' });

    const [first, second] = await Promise.all([api.request('GET', `/api/features/${a.key}`), api.request('GET', `/api/features/${b.key}`)]);

    expect(first.headers.get('etag')).toBeTruthy();
    expect(first.headers.get('etag')).not.toBe(second.headers.get('etag'));
    expect(first.body.features['express-pay']).toBeUndefined();
    expect(second.body.features['express-pay']).toBeDefined();
  });

  it('intersects the languages of a multi-language connection (here: javascript and python at their defaults)', async () => {
    const { id, key } = await connection({ sdkVersion: '1.6.4' });
    // The v1 API sets one language; a connection made elsewhere (GrowthBook's UI) may list several.
    await updateSdkConnection(org.orgId, id, (current) => ({ ...current, languages: ['javascript', 'python'] }));

    const body = await payloadOf(key);

    // python's default version (1.0.0) has no prerequisites.
    expect(body.features?.['express-pay']).toBeUndefined();
    expect(body.features?.['dark-mode']).toBeDefined();
  });
});

describe('SDKs that refuse unknown keys', () => {
  it('get only the keys they read: python 1.0.0 gets no metadata even when the connection asks for tags', async () => {
    const python = await connection({ language: 'python', sdkVersion: '1.0.0', includeTagsInMetadata: true, includeRuleIds: true });
    const latest = await connection({ language: 'python', includeTagsInMetadata: true });

    const old = (await payloadOf(python.key)).features?.['dark-mode'];
    const current = (await payloadOf(latest.key)).features?.['dark-mode'] as { metadata?: unknown };

    expect(old).toEqual({ defaultValue: false, rules: [{ id: expect.any(String), condition: { plan: 'pro' }, force: true }] });
    expect(current.metadata).toEqual({ tags: ['ui'] });
    // The real SDK still reads the scrubbed payload.
    const gb = new GrowthBook({ attributes: { plan: 'pro' } }).initSync({ payload: await payloadOf(python.key) });
    expect(gb.isOn('dark-mode')).toBe(true);
  });
});

describe('validation of language and sdkVersion', () => {
  const create = (body: Record<string, unknown>) =>
    admin('POST', '/sdk-connections', { name: 'Web app', language: 'javascript', environment: 'production', ...body });

  it('stores the newest version of the language when none is given, as GrowthBook does', async () => {
    const response = await create({ language: 'python' });

    expect(response.status).toBe(200);
    expect(response.body.sdkConnection).toMatchObject({ languages: ['python'], sdkVersion: '1.4.5' });
  });

  it.each([
    ['an unknown language', { language: 'cobol' }, /\[language\] language cobol is not supported/],
    ['a language in the wrong case', { language: 'JavaScript' }, /\[language\] language JavaScript is not supported/],
    ['an unknown version of the language', { sdkVersion: '9.9.9' }, /\[sdkVersion\] SDK version 9\.9\.9 does not exist for javascript/],
    ['a version of another language', { language: 'python', sdkVersion: '1.6.4' }, /SDK version 1\.6\.4 does not exist for python/],
    ['encryption for a version without it', { sdkVersion: '0.0.0', encryptPayload: true }, /\[encryptPayload\] needs encryption/],
    ['remote evaluation for an SDK without it', { language: 'nodejs', remoteEvalEnabled: true }, /\[remoteEvalEnabled\] needs remoteEval/],
    ['a name of 2 characters', { name: 'ab' }, /Name length must be at least 3 characters/],
  ])('answers 400 for %s, storing nothing', async (_case, body, message) => {
    const before = (await admin('GET', '/sdk-connections?limit=100')).body.total;

    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((await admin('GET', '/sdk-connections?limit=100')).body.total).toBe(before);
  });

  it('counts spaces in the name, as GrowthBook does', async () => {
    expect((await create({ name: ' ab' })).status).toBe(200);
  });

  it('on update checks a new language against the kept version and leaves the connection unchanged when refused', async () => {
    const { id } = await connection({ sdkVersion: '1.6.4' });

    const refused = await admin('PUT', `/sdk-connections/${id}`, { language: 'python' });
    const kept = await admin('PUT', `/sdk-connections/${id}`, { language: '' });
    const moved = await admin('PUT', `/sdk-connections/${id}`, { language: 'python', sdkVersion: '1.2.1' });

    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/SDK version 1\.6\.4 does not exist for python/);
    expect(kept.status).toBe(200);
    expect(kept.body.sdkConnection).toMatchObject({ languages: ['javascript'], sdkVersion: '1.6.4' });
    expect(moved.body.sdkConnection).toMatchObject({ languages: ['python'], sdkVersion: '1.2.1' });
  });
});
