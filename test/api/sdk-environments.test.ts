import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/** Environments as a user of the real GrowthBook SDK meets them. */

let api: Api;
let org: TestOrg;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

async function sdk(environment: string, attributes: Record<string, unknown> = { id: 'u-1' }) {
  clearCache();
  const { sdkConnection } = await ok('POST', '/sdk-connections', { name: `SDK ${environment}`, language: 'javascript', environment });
  const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey: sdkConnection.key, attributes });
  await gb.init({ timeout: 5000 });
  return gb;
}

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('defaultState', () => {
  it('serves a feature created without environments with its default value where defaultState is true', async () => {
    await ok('POST', '/environments', { id: 'qa' });
    await ok('POST', '/features', { id: 'banner-text', valueType: 'string', defaultValue: 'Welcome' });

    const production = await sdk('production');
    const qa = await sdk('qa');

    expect(production.getFeatureValue('banner-text', 'none')).toBe('Welcome');
    expect(qa.getFeatureValue('banner-text', 'none')).toBe('none');
    production.destroy();
    qa.destroy();
  });
});
