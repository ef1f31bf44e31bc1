import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * Holdouts as a user of the real GrowthBook SDK meets them: a feature assigned to a running
 * holdout gives its holdout value to the holdout's control group, whatever its rules say, and its
 * rules to everyone else; a holdout that has not started, has stopped, or is off in the
 * environment holds no one out.
 */

let api: Api;
let org: TestOrg;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;
const users = Array.from({ length: 100 }, (_, i) => `user-${i}`);

/** What each user gets for `featureId`, and whether the SDK put them in the holdout's control group. */
async function evaluateAll(clientKey: string, featureId: string) {
  const control = new Set<string>();
  clearCache();
  const gb = new GrowthBook({
    apiHost: api.baseUrl,
    clientKey,
    trackingCallback: (experiment, result) => {
      if (result.value === 'holdoutcontrol') control.add(String(result.hashValue));
    },
  });
  await gb.init({ timeout: 5000 });
  const values = new Map<string, unknown>();
  for (const id of users) {
    await gb.setAttributes({ id });
    values.set(id, gb.getFeatureValue(featureId, 'fallback' as unknown));
  }
  gb.destroy();
  return { values, control };
}

/** A holdout of half the traffic (so every user is bucketed), and a feature assigned to it forcing 'new' for everyone. */
async function heldOutFeature(holdoutSettings: Record<string, unknown> = {}) {
  const { holdout } = await ok('POST', '/holdouts', {
    name: uniqueId('Holdout'),
    holdoutSize: 0.5,
    environments: { production: { enabled: true } },
    ...holdoutSettings,
  });
  const { feature } = await ok('POST', '/features', {
    id: uniqueId('held'),
    valueType: 'string',
    defaultValue: 'default',
    environments: { production: { enabled: true, rules: [{ type: 'force', value: 'new' }] } },
  });
  // As in GrowthBook's REST API, a feature joins a holdout by an update.
  await ok('POST', `/features/${feature.id}`, { holdout: { id: holdout.id, value: 'old' } });
  return { holdout, feature };
}

let clientKey: string;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('a running holdout', () => {
  it("keeps its control group on the holdout value, and gives the feature's rules to everyone else", async () => {
    const { holdout, feature } = await heldOutFeature();
    await ok('POST', `/holdouts/${holdout.id}/stage`, { stage: 'running' });

    const { values, control } = await evaluateAll(clientKey, feature.id);

    expect(control.size).toBeGreaterThan(20);
    expect(control.size).toBeLessThan(80);
    for (const id of users) expect([id, values.get(id)]).toEqual([id, control.has(id) ? 'old' : 'new']);
  });

  it('sends the gate rule first and the holdout pseudo-feature, as GrowthBook emits them', async () => {
    const { holdout, feature } = await heldOutFeature({ holdoutSize: 0.1, hashAttribute: 'deviceId' });
    await ok('POST', `/holdouts/${holdout.id}/stage`, { stage: 'running' });

    const body = (await (await fetch(`${api.baseUrl}/api/features/${clientKey}`)).json()) as { features: Record<string, any> };

    expect(body.features[feature.id].rules[0]).toEqual({
      parentConditions: [{ id: `$holdout:${holdout.id}`, condition: { value: 'holdoutcontrol' } }],
      force: 'old',
    });
    expect(body.features[`$holdout:${holdout.id}`]).toEqual({
      defaultValue: 'genpop',
      rules: [
        {
          id: `$holdout:${holdout.id}`,
          coverage: 0.2,
          hashAttribute: 'deviceId',
          seed: holdout.trackingKey,
          hashVersion: 2,
          variations: ['holdoutcontrol', 'holdouttreatment'],
          weights: [0.5, 0.5],
          key: holdout.trackingKey,
          phase: '0',
          meta: [{ key: '0' }, { key: '1' }],
        },
      ],
    });
  });

  it('holds no one out once stopped', async () => {
    const { holdout, feature } = await heldOutFeature();
    await ok('POST', `/holdouts/${holdout.id}/stage`, { stage: 'running' });
    const running = await evaluateAll(clientKey, feature.id);

    await ok('POST', `/holdouts/${holdout.id}/stage`, { stage: 'stopped' });
    const stopped = await evaluateAll(clientKey, feature.id);

    expect([...running.values.values()]).toContain('old');
    expect(new Set(stopped.values.values())).toEqual(new Set(['new']));
    expect(stopped.control.size).toBe(0);
  });
});

describe('a holdout that holds no one out', () => {
  it('while it is a draft', async () => {
    const { holdout, feature } = await heldOutFeature();

    const { values, control } = await evaluateAll(clientKey, feature.id);
    const body = (await (await fetch(`${api.baseUrl}/api/features/${clientKey}`)).json()) as { features: Record<string, any> };

    expect(new Set(values.values())).toEqual(new Set(['new']));
    expect(control.size).toBe(0);
    expect(body.features).not.toHaveProperty(`$holdout:${holdout.id}`);
  });

  it('in an environment where it is off, until it is turned on there', async () => {
    const { holdout, feature } = await heldOutFeature({ environments: { production: { enabled: false } } });
    await ok('POST', `/holdouts/${holdout.id}/stage`, { stage: 'running' });
    const off = await evaluateAll(clientKey, feature.id);

    await ok('PUT', `/holdouts/${holdout.id}`, { environments: { production: { enabled: true } } });
    const on = await evaluateAll(clientKey, feature.id);

    expect(new Set(off.values.values())).toEqual(new Set(['new']));
    expect(on.control.size).toBeGreaterThan(0);
    expect(on.values.get([...on.control][0])).toBe('old');
  });

  it('for a feature taken out of it', async () => {
    const { holdout, feature } = await heldOutFeature();
    await ok('POST', `/holdouts/${holdout.id}/stage`, { stage: 'running' });

    await ok('POST', `/features/${feature.id}`, { holdout: null });
    const { values, control } = await evaluateAll(clientKey, feature.id);

    expect(new Set(values.values())).toEqual(new Set(['new']));
    expect(control.size).toBe(0);
  });
});
