import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * Environments as a user of the real GrowthBook SDK meets them: an environment's projects limit
 * what its connections serve, and a child environment serves its parent's settings for a feature
 * that has none of its own there.
 */

let api: Api;
let org: TestOrg;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

async function clientKey(environment: string, projects?: string[]) {
  const body = { name: uniqueId('conn'), language: 'javascript', environment, ...(projects ? { projects } : {}) };
  return (await ok('POST', '/sdk-connections', body)).sdkConnection.key as string;
}

/** The values the SDK gives some features, fetching the payload as an app does. */
async function values(key: string, featureIds: string[], attributes: Record<string, unknown> = {}) {
  clearCache();
  const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey: key, attributes });
  await gb.init({ timeout: 5000 });
  const found = featureIds.map((id) => gb.getFeatureValue(id, 'absent' as unknown));
  gb.destroy();
  return found;
}

const servedIds = async (key: string) => {
  const response = await fetch(`${api.baseUrl}/api/features/${key}`);
  const body = (await response.json()) as { features: Record<string, unknown> };
  return Object.keys(body.features).sort((a, b) => (a < b ? -1 : 1));
};

/** A feature on in `environment` forcing 'ruled' for beta users, 'default' otherwise. */
async function feature(environment: string, project?: string) {
  const body = {
    id: uniqueId('flag'),
    valueType: 'string',
    defaultValue: 'default',
    ...(project ? { project } : {}),
    environments: { [environment]: { enabled: true, rules: [{ type: 'force', value: 'ruled', condition: '{"beta":true}' }] } },
  };
  return (await ok('POST', '/features', body)).feature.id as string;
}

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe("an environment's projects", () => {
  let environment: string;
  let web: string;
  let mobile: string;
  let inWeb: string;
  let inMobile: string;
  let inNone: string;

  beforeAll(async () => {
    web = (await ok('POST', '/projects', { name: uniqueId('web') })).project.id;
    mobile = (await ok('POST', '/projects', { name: uniqueId('mobile') })).project.id;
    environment = uniqueId('webenv');
    await ok('POST', '/environments', { id: environment, projects: [web] });
    inWeb = await feature(environment, web);
    inMobile = await feature(environment, mobile);
    inNone = await feature(environment);
  });

  it('serves a connection without projects only the features of its projects', async () => {
    const key = await clientKey(environment);

    expect(await servedIds(key)).toEqual([inWeb]);
    expect(await values(key, [inWeb, inMobile, inNone], { beta: true })).toEqual(['ruled', 'absent', 'absent']);
  });

  it('serves a connection the projects it shares with its environment, and nothing when it shares none', async () => {
    const both = await clientKey(environment, [web, mobile]);
    const other = await clientKey(environment, [mobile]);

    expect(await servedIds(both)).toEqual([inWeb]);
    expect(await servedIds(other)).toEqual([]);
  });

  it("follows a change of the environment's projects", async () => {
    const key = await clientKey(environment);
    const before = await servedIds(key);

    await ok('PUT', `/environments/${environment}`, { projects: [web, mobile] });
    const widened = await servedIds(key);
    await ok('PUT', `/environments/${environment}`, { projects: [] });

    expect(before).toEqual([inWeb]);
    expect(widened).toEqual([inWeb, inMobile].sort((a, b) => (a < b ? -1 : 1)));
    expect(await servedIds(key)).toEqual([inNone, inWeb, inMobile].sort((a, b) => (a < b ? -1 : 1)));
  });
});

describe('a child environment', () => {
  let parent: string;
  let child: string;
  let older: string;
  let childKey: string;

  beforeAll(async () => {
    parent = uniqueId('parent');
    await ok('POST', '/environments', { id: parent });
    older = await feature(parent);
    child = uniqueId('child');
    await ok('POST', '/environments', { id: child, parent });
    childKey = await clientKey(child);
  });

  it("serves its parent's rules for a feature created before it", async () => {
    expect(await values(childKey, [older], { beta: true })).toEqual(['ruled']);
    expect(await values(childKey, [older], { beta: false })).toEqual(['default']);
  });

  it("follows later changes of the parent's settings", async () => {
    await ok('POST', `/features/${older}`, {
      environments: { [parent]: { enabled: true, rules: [{ type: 'force', value: 'changed', condition: '{"beta":true}' }] } },
    });

    expect(await values(childKey, [older], { beta: true })).toEqual(['changed']);
  });

  it('uses its own settings once a feature has some there', async () => {
    const own = await feature(parent);
    const inherited = await values(childKey, [own], { beta: true });
    await ok('POST', `/features/${own}`, { environments: { [child]: { enabled: true, rules: [{ type: 'force', value: 'mine' }] } } });

    expect(inherited).toEqual(['absent']);
    expect(await values(childKey, [own], { beta: true })).toEqual(['mine']);
  });

  it('inherits through a grandparent', async () => {
    const grandchild = uniqueId('grandchild');
    await ok('POST', '/environments', { id: grandchild, parent: child });

    expect(await values(await clientKey(grandchild), [older], { beta: true })).toEqual(['changed']);
  });

  it('stops serving an inherited feature once it is deleted', async () => {
    const base = uniqueId('base');
    await ok('POST', '/environments', { id: base });
    const doomed = await feature(base);
    const derived = uniqueId('derived');
    await ok('POST', '/environments', { id: derived, parent: base });
    const key = await clientKey(derived);
    const before = await servedIds(key);

    await ok('DELETE', `/features/${doomed}`);

    expect(before).toEqual([doomed]);
    expect(await servedIds(key)).toEqual([]);
  });

  it('stops serving a feature turned off in the parent', async () => {
    await ok('POST', `/features/${older}/toggle`, { environments: { [parent]: false } });

    expect(await values(childKey, [older])).toEqual(['absent']);
  });
});
