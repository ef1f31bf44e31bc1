import { GrowthBook, clearCache, type Experiment, type Result } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * Saved groups as a user of the real GrowthBook SDK meets them: groups an experiment's phase
 * targets decide who is enrolled, and list groups on number attributes match numbers.
 */

let api: Api;
let org: TestOrg;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

/** The experiments the SDK enrols a user in while evaluating `featureId`, and the value it gets. */
async function evaluate(clientKey: string, attributes: Record<string, unknown>, featureId: string) {
  const tracked: Array<{ experiment: Experiment<unknown>; result: Result<unknown> }> = [];
  // The SDK keeps payloads per client key for a while; each evaluation here wants the current one.
  clearCache();
  const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey, attributes, trackingCallback: (experiment, result) => void tracked.push({ experiment, result }) });
  await gb.init({ timeout: 5000 });
  const value = gb.getFeatureValue(featureId, 'fallback' as unknown);
  gb.destroy();
  return { value, tracked };
}

/** A running experiment whose phase targets saved groups, and a feature that runs it in production. */
async function experimentFeature(savedGroupTargeting: unknown[]) {
  const { experiment } = await ok('POST', '/experiments', {
    trackingKey: uniqueId('exp'),
    name: 'Phase-targeted',
    status: 'running',
    hashAttribute: 'id',
    variations: [{ key: 'a', name: 'A' }, { key: 'b', name: 'B' }],
    phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 1, variationWeights: [0.5, 0.5], savedGroupTargeting }],
  });
  const [a, b] = experiment.variations.map((v: { variationId: string }) => v.variationId);
  const { feature } = await ok('POST', '/features', {
    id: uniqueId('phase-flag'),
    valueType: 'string',
    defaultValue: 'default',
    environments: {
      production: {
        enabled: true,
        rules: [{ type: 'experiment-ref', experimentId: experiment.id, variations: [{ variationId: a, value: 'A' }, { variationId: b, value: 'B' }] }],
      },
    },
  });
  return { experiment, feature };
}

let clientKey: string;
let staff: string;
let usa: string;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  staff = (await ok('POST', '/saved-groups', { name: 'Staff', attributeKey: 'id', values: ['alice', 'bob'] })).savedGroup.id;
  usa = (await ok('POST', '/saved-groups', { name: 'US', condition: '{"country":"US"}' })).savedGroup.id;
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('saved groups on an experiment phase', () => {
  it('enrols a user in every group of an "all" phase, and not one outside', async () => {
    const { experiment, feature } = await experimentFeature([{ matchType: 'all', savedGroups: [staff, usa] }]);

    const inside = await evaluate(clientKey, { id: 'alice', country: 'US' }, feature.id);
    const outside = await evaluate(clientKey, { id: 'alice', country: 'FR' }, feature.id);

    expect(inside.tracked.map((t) => t.experiment.key)).toEqual([experiment.trackingKey]);
    expect(['A', 'B']).toContain(inside.value);
    expect(outside.tracked).toEqual([]);
    expect(outside.value).toBe('default');
  });

  it('enrols a user in any group of an "any" phase', async () => {
    const { feature } = await experimentFeature([{ matchType: 'any', savedGroups: [staff, usa] }]);

    const byList = await evaluate(clientKey, { id: 'bob', country: 'FR' }, feature.id);
    const byCondition = await evaluate(clientKey, { id: 'carol', country: 'US' }, feature.id);
    const neither = await evaluate(clientKey, { id: 'carol', country: 'FR' }, feature.id);

    expect(byList.tracked).toHaveLength(1);
    expect(byCondition.tracked).toHaveLength(1);
    expect(neither.tracked).toEqual([]);
  });

  it('keeps the members of a "none" group out', async () => {
    const { feature } = await experimentFeature([{ matchType: 'none', savedGroups: [staff] }]);

    const member = await evaluate(clientKey, { id: 'alice' }, feature.id);
    const other = await evaluate(clientKey, { id: 'zed' }, feature.id);

    expect(member.tracked).toEqual([]);
    expect(member.value).toBe('default');
    expect(other.tracked).toHaveLength(1);
  });

  it('shows the phase groups in the definition the REST API returns', async () => {
    const { feature } = await experimentFeature([{ matchType: 'all', savedGroups: [staff] }]);

    const { feature: read } = await ok('GET', `/features/${feature.id}`);
    const definition = JSON.parse(read.environments.production.definition);

    expect(definition.rules[0].condition).toEqual({ id: { $in: ['alice', 'bob'] } });
  });
});

describe('list groups on number attributes', () => {
  it('matches a number attribute against a list of numbers when the attribute is a number', async () => {
    await ok('POST', '/attributes', { property: 'accountId', datatype: 'number' });
    const accounts = (await ok('POST', '/saved-groups', { name: 'Key accounts', attributeKey: 'accountId', values: ['123', '456'] })).savedGroup.id;
    const id = uniqueId('accounts-flag');
    await ok('POST', '/features', {
      id,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: {
        production: {
          enabled: true,
          rules: [
            { type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'any', savedGroups: [accounts] }] },
          ],
        },
      },
    });
    const excluded = uniqueId('excluded-flag');
    await ok('POST', '/features', {
      id: excluded,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: {
        production: { enabled: true, rules: [{ type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'none', savedGroups: [accounts] }] }] },
      },
    });

    const member = await evaluate(clientKey, { accountId: 123 }, id);
    const other = await evaluate(clientKey, { accountId: 789 }, id);
    const memberExcluded = await evaluate(clientKey, { accountId: 456 }, excluded);
    const otherExcluded = await evaluate(clientKey, { accountId: 789 }, excluded);

    expect(member.value).toBe(true);
    expect(other.value).toBe(false);
    expect(memberExcluded.value).toBe(false);
    expect(otherExcluded.value).toBe(true);
  });
});
