import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * `savedGroupReferencesEnabled` as a user of the real GrowthBook SDK meets it: rules keep
 * `$inGroup` references, the groups' values go out once in the payload's `savedGroups` map
 * (`encryptedSavedGroups` when the payload is encrypted), and the SDK matches through the map.
 */

let api: Api;
let org: TestOrg;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

async function connection(settings: Record<string, unknown>) {
  return (await ok('POST', '/sdk-connections', { name: uniqueId('conn'), language: 'javascript', environment: 'production', ...settings })).sdkConnection;
}

/** The value the SDK gives `featureId` for a user, fetching the payload as an app does. */
async function evaluate(clientKey: string, attributes: Record<string, unknown>, featureId: string, decryptionKey?: string) {
  clearCache();
  const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey, attributes, decryptionKey });
  await gb.init({ timeout: 5000 });
  const value = gb.getFeatureValue(featureId, 'fallback' as unknown);
  gb.destroy();
  return value;
}

const rawPayload = async (clientKey: string) => {
  const response = await fetch(`${api.baseUrl}/api/features/${clientKey}`);
  return { text: await response.text(), status: response.status };
};

/** A feature on in production whose one rule forces 'on' for the members of `group` and whose other rule names it in its condition. */
async function groupFeature(group: string) {
  const { feature } = await ok('POST', '/features', {
    id: uniqueId('grouped'),
    valueType: 'string',
    defaultValue: 'off',
    environments: {
      production: {
        enabled: true,
        rules: [
          { type: 'force', value: 'on', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group] }] },
          { type: 'force', value: 'named', condition: JSON.stringify({ id: { $inGroup: group }, plan: 'pro' }) },
        ],
      },
    },
  });
  return feature;
}

let staff: string;
let accounts: string;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  await ok('POST', '/attributes', { property: 'accountId', datatype: 'number' });
  staff = (await ok('POST', '/saved-groups', { name: 'Staff', attributeKey: 'id', values: ['alice', 'bob'] })).savedGroup.id;
  accounts = (await ok('POST', '/saved-groups', { name: 'Big accounts', attributeKey: 'accountId', values: ['123', '456'] })).savedGroup.id;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('saved groups by reference', () => {
  it('sends each group once in savedGroups and keeps $inGroup in the rules', async () => {
    const feature = await groupFeature(staff);
    const { key } = await connection({ savedGroupReferencesEnabled: true });

    const body = JSON.parse((await rawPayload(key)).text);

    expect(body.savedGroups).toEqual({ [staff]: ['alice', 'bob'] });
    expect(body.features[feature.id].rules[0].condition).toEqual({ id: { $inGroup: staff } });
    expect(body.features[feature.id].rules[1].condition).toEqual({ id: { $inGroup: staff }, plan: 'pro' });
  });

  it('matches a user in the group through the map, and not one outside', async () => {
    const feature = await groupFeature(staff);
    const { key } = await connection({ savedGroupReferencesEnabled: true });

    expect(await evaluate(key, { id: 'alice' }, feature.id)).toBe('on');
    expect(await evaluate(key, { id: 'zed', plan: 'pro' }, feature.id)).toBe('off');
  });

  it('sends the values of a number attribute as numbers', async () => {
    const { feature } = await ok('POST', '/features', {
      id: uniqueId('accounts'),
      valueType: 'boolean',
      defaultValue: 'false',
      environments: { production: { enabled: true, rules: [{ type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'any', savedGroups: [accounts] }] }] } },
    });
    const { key } = await connection({ savedGroupReferencesEnabled: true });

    const body = JSON.parse((await rawPayload(key)).text);

    expect(body.savedGroups[accounts]).toEqual([123, 456]);
    expect(await evaluate(key, { accountId: 123 }, feature.id)).toBe(true);
    expect(await evaluate(key, { accountId: 789 }, feature.id)).toBe(false);
  });

  it('encrypts the map with the features, and the SDK decrypts both', async () => {
    const feature = await groupFeature(staff);
    const { key, encryptionKey } = await connection({ savedGroupReferencesEnabled: true, encryptPayload: true });

    const { text } = await rawPayload(key);
    const body = JSON.parse(text);

    expect(body.savedGroups).toBeUndefined();
    expect(typeof body.encryptedSavedGroups).toBe('string');
    expect(text).not.toContain('alice');
    expect(await evaluate(key, { id: 'bob' }, feature.id, encryptionKey)).toBe('on');
    expect(await evaluate(key, { id: 'zed' }, feature.id, encryptionKey)).toBe('off');
  });

  it('inlines the values without the setting, and sends no map', async () => {
    const feature = await groupFeature(staff);
    const { key } = await connection({});

    const body = JSON.parse((await rawPayload(key)).text);

    expect(body.savedGroups).toBeUndefined();
    expect(body.features[feature.id].rules[0].condition).toEqual({ id: { $in: ['alice', 'bob'] } });
    expect(await evaluate(key, { id: 'alice' }, feature.id)).toBe('on');
  });

  it('serves new values in the map after the group changes', async () => {
    const group = (await ok('POST', '/saved-groups', { name: 'Beta', attributeKey: 'id', values: ['carol'] })).savedGroup.id;
    const feature = await groupFeature(group);
    const { key } = await connection({ savedGroupReferencesEnabled: true });
    const before = await evaluate(key, { id: 'dave' }, feature.id);

    await ok('POST', `/saved-groups/${group}`, { values: ['carol', 'dave'] });

    expect(before).toBe('off');
    expect(JSON.parse((await rawPayload(key)).text).savedGroups[group]).toEqual(['carol', 'dave']);
    expect(await evaluate(key, { id: 'dave' }, feature.id)).toBe('on');
  });
});
