import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * An application using the real GrowthBook SDK against this service: flags are set up through the
 * management API, the SDK loads them from the public payload route, and its answers follow changes.
 */

let api: Api;
let org: TestOrg;
let clientKey: string;

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });

async function ok(method: string, path: string, body?: unknown) {
  const response = await admin(method, path, body);
  if (response.status !== 200) throw new Error(`${method} ${path} failed: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** What the SDK answers for one user, from a payload fetched over HTTP. */
function sdkFor(payload: FeatureApiResponse, attributes: Record<string, unknown>) {
  return new GrowthBook({ attributes }).initSync({ payload });
}

const fetchPayload = async () => (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  const beta = (await ok('POST', '/saved-groups', { name: 'Beta testers', attributeKey: 'id', values: ['beta-1', 'beta-2'] })).savedGroup.id;
  const us = (await ok('POST', '/saved-groups', { name: 'US', condition: '{"country":"US"}' })).savedGroup.id;
  const production = (rules: unknown[]) => ({ production: { enabled: true, rules } });

  await ok('POST', '/features', {
    id: 'dark-mode',
    valueType: 'boolean',
    defaultValue: 'false',
    environments: production([{ id: 'pro-users', type: 'force', value: 'true', condition: '{"plan":"pro"}' }]),
  });
  await ok('POST', '/features', {
    id: 'welcome-text',
    valueType: 'string',
    defaultValue: 'Hello',
    environments: production([
      { type: 'force', value: 'Hi, tester', savedGroupTargeting: [{ matchType: 'any', savedGroups: [beta] }] },
      { type: 'force', value: 'Howdy', savedGroupTargeting: [{ matchType: 'all', savedGroups: [us] }] },
    ]),
  });
  await ok('POST', '/features', {
    id: 'max-items',
    valueType: 'number',
    defaultValue: '10',
    environments: production([{ type: 'force', value: '50', condition: '{"plan":"pro"}' }]),
  });
  await ok('POST', '/features', {
    id: 'new-checkout',
    valueType: 'boolean',
    defaultValue: 'false',
    environments: production([{ type: 'rollout', value: 'true', coverage: 0.3, hashAttribute: 'id' }]),
  });
  await ok('POST', '/features', {
    id: 'express-pay',
    valueType: 'boolean',
    defaultValue: 'true',
    prerequisites: ['new-checkout'],
    environments: production([]),
  });
  await ok('POST', '/features', {
    id: 'theme',
    valueType: 'json',
    defaultValue: '{"colour":"blue","radius":4}',
    environments: { production: { enabled: false } },
  });
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web app', language: 'javascript', environment: 'production' })).sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('the GrowthBook SDK against Switchyard', () => {
  it('loads the payload itself from the public route and evaluates targeted and untargeted users', async () => {
    const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey, attributes: { id: 'u-1', plan: 'pro' } });

    const result = await gb.init({ timeout: 5000 });

    expect(result.success).toBe(true);
    expect(gb.isOn('dark-mode')).toBe(true);
    expect(gb.getFeatureValue('max-items', 0)).toBe(50);
    await gb.setAttributes({ id: 'u-2', plan: 'free' });
    expect(gb.isOn('dark-mode')).toBe(false);
    expect(gb.getFeatureValue('max-items', 0)).toBe(10);
    gb.destroy();
  });

  it('answers a saved-group condition: a list group and a condition group', async () => {
    const payload = await fetchPayload();

    expect(sdkFor(payload, { id: 'beta-2', country: 'FR' }).getFeatureValue('welcome-text', '')).toBe('Hi, tester');
    expect(sdkFor(payload, { id: 'someone', country: 'US' }).getFeatureValue('welcome-text', '')).toBe('Howdy');
    expect(sdkFor(payload, { id: 'someone', country: 'FR' }).getFeatureValue('welcome-text', '')).toBe('Hello');
  });

  it('rolls a rollout out to about its coverage, the same users every time', async () => {
    const payload = await fetchPayload();
    const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`);

    const included = users.filter((id) => sdkFor(payload, { id }).isOn('new-checkout'));
    const again = users.filter((id) => sdkFor(payload, { id }).isOn('new-checkout'));

    expect(included.length / users.length).toBeGreaterThan(0.25);
    expect(included.length / users.length).toBeLessThan(0.35);
    expect(again).toEqual(included);
    expect(sdkFor(payload, {}).isOn('new-checkout')).toBe(false);
  });

  it('gates a feature on its prerequisite', async () => {
    const payload = await fetchPayload();
    const users = Array.from({ length: 200 }, (_, i) => `user-${i}`);

    const answers = users.map((id) => [sdkFor(payload, { id }).isOn('new-checkout'), sdkFor(payload, { id }).isOn('express-pay')]);

    expect(answers.every(([parent, child]) => parent === child)).toBe(true);
    expect(answers.some(([parent]) => parent)).toBe(true);
    expect(answers.some(([parent]) => !parent)).toBe(true);
  });

  it('does not serve a feature that is off in the environment', async () => {
    const payload = await fetchPayload();

    expect(sdkFor(payload, { id: 'u-1' }).getFeatureValue('theme', { colour: 'none' })).toEqual({ colour: 'none' });
  });

  it('changes its answer after a rule is changed through the API', async () => {
    const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey, attributes: { id: 'u-3', plan: 'pro' } });
    await gb.init({ timeout: 5000 });
    const before = gb.isOn('dark-mode');

    await ok('POST', '/features/dark-mode', {
      environments: { production: { rules: [{ id: 'pro-users', type: 'force', value: 'true', condition: '{"plan":"enterprise"}' }] } },
    });
    await gb.refreshFeatures({ skipCache: true });
    const after = gb.isOn('dark-mode');
    await gb.setAttributes({ id: 'u-3', plan: 'enterprise' });
    const forEnterprise = gb.isOn('dark-mode');
    gb.destroy();

    expect(before).toBe(true);
    expect(after).toBe(false);
    expect(forEnterprise).toBe(true);
  });

  it('follows a prerequisite being switched off', async () => {
    const before = await fetchPayload();
    const includedUser = Array.from({ length: 200 }, (_, i) => `user-${i}`).find((id) => sdkFor(before, { id }).isOn('new-checkout'))!;

    await ok('POST', '/features/new-checkout/toggle', { environments: { production: false } });
    const after = await fetchPayload();

    expect(sdkFor(before, { id: includedUser }).isOn('express-pay')).toBe(true);
    expect(sdkFor(after, { id: includedUser }).isOn('new-checkout')).toBe(false);
    expect(sdkFor(after, { id: includedUser }).isOn('express-pay')).toBe(false);
  });

  it('decrypts an encrypted payload with the connection key', async () => {
    const { sdkConnection } = await ok('POST', '/sdk-connections', { name: 'Encrypted', language: 'javascript', environment: 'production', encryptPayload: true });
    const gb = new GrowthBook({
      apiHost: api.baseUrl,
      clientKey: sdkConnection.key,
      decryptionKey: sdkConnection.encryptionKey,
      attributes: { id: 'u-4', plan: 'free', country: 'US' },
    });

    await gb.init({ timeout: 5000 });

    expect(gb.getFeatureValue('welcome-text', '')).toBe('Howdy');
    gb.destroy();
  });
});
