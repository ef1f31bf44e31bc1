import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * Namespaces, released variations and saved-group references inside conditions, as users of the
 * real GrowthBook SDK meet them.
 */

let api: Api;
let org: TestOrg;
let clientKey: string;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

const production = (rules: unknown[]) => ({ production: { enabled: true, rules } });
const users = Array.from({ length: 1000 }, (_, i) => `user-${i}`);
const fetchPayload = async () => (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;

/** The experiment keys the SDK enrols `id` in while evaluating these features. */
function enrolments(payload: FeatureApiResponse, id: string, featureIds: string[]): string[] {
  const keys: string[] = [];
  const gb = new GrowthBook({ attributes: { id }, trackingCallback: (experiment) => void keys.push(experiment.key) }).initSync({ payload });
  featureIds.forEach((featureId) => gb.evalFeature(featureId));
  gb.destroy();
  return keys;
}

async function experiment(trackingKey: string, phase: Record<string, unknown>) {
  const { experiment: created } = await ok('POST', '/experiments', {
    trackingKey,
    name: trackingKey,
    status: 'running',
    hashAttribute: 'id',
    variations: [{ key: 'a', name: 'A' }, { key: 'b', name: 'B' }],
    phases: [{ name: 'Main', dateStarted: new Date().toISOString(), variationWeights: [0.5, 0.5], ...phase }],
  });
  const [a, b] = created.variations.map((v: { variationId: string }) => v.variationId);
  await ok('POST', '/features', {
    id: `${trackingKey}-flag`,
    valueType: 'string',
    defaultValue: 'default',
    environments: production([{ type: 'experiment-ref', experimentId: created.id, variations: [{ variationId: a, value: 'A' }, { variationId: b, value: 'B' }] }]),
  });
  return { experiment: created, variations: [a, b] as [string, string] };
}

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('namespaces', () => {
  it('keeps experiment rules of one namespace mutually exclusive over 1,000 ids', async () => {
    const inNamespace = (key: string, range: [number, number]) => ({
      type: 'experiment',
      trackingKey: key,
      hashAttribute: 'id',
      namespace: { enabled: true, name: 'checkout', range },
      values: [{ value: 'a', weight: 0.5 }, { value: 'b', weight: 0.5 }],
    });
    await ok('POST', '/features', { id: 'ns-left', valueType: 'string', defaultValue: 'x', environments: production([inNamespace('left', [0, 0.5])]) });
    await ok('POST', '/features', { id: 'ns-right', valueType: 'string', defaultValue: 'x', environments: production([inNamespace('right', [0.5, 1])]) });
    const payload = await fetchPayload();

    const enrolled = users.map((id) => enrolments(payload, id, ['ns-left', 'ns-right']));

    expect(enrolled.filter((keys) => keys.length > 1)).toEqual([]);
    expect(enrolled.filter((keys) => keys.includes('left')).length).toBeGreaterThan(400);
    expect(enrolled.filter((keys) => keys.includes('right')).length).toBeGreaterThan(400);
  });

  it('serves multi-range phase namespaces as filters, exclusive over 1,000 ids', async () => {
    await experiment('ranges-one', { namespace: { namespaceId: 'pricing', enabled: true, ranges: [[0, 0.25], [0.5, 0.75]] } });
    await experiment('ranges-two', { namespace: { namespaceId: 'pricing', enabled: true, ranges: [[0.25, 0.5], [0.75, 1]] } });
    const payload = await fetchPayload();

    const enrolled = users.map((id) => enrolments(payload, id, ['ranges-one-flag', 'ranges-two-flag']));

    expect(payload.features!['ranges-one-flag'].rules![0]).toMatchObject({
      filters: [{ attribute: 'id', seed: 'pricing', hashVersion: 2, ranges: [[0, 0.25], [0.5, 0.75]] }],
    });
    expect(enrolled.filter((keys) => keys.length > 1)).toEqual([]);
    expect(enrolled.filter((keys) => keys.length === 1).length).toBeGreaterThan(900);
  });
});

describe('a stopped experiment with a released variation', () => {
  it('serves the released value within the phase coverage only', async () => {
    const { experiment: stopped, variations } = await experiment('released', { coverage: 0.5 });
    await ok('POST', `/experiments/${stopped.id}`, { status: 'stopped', releasedVariationId: variations[1] });
    const payload = await fetchPayload();

    const values = users.map((id) => new GrowthBook({ attributes: { id } }).initSync({ payload }).getFeatureValue('released-flag', ''));
    const released = values.filter((value) => value === 'B').length;

    expect(new Set(values)).toEqual(new Set(['B', 'default']));
    expect(released).toBeGreaterThan(400);
    expect(released).toBeLessThan(600);
  });
});

describe('saved groups named inside conditions', () => {
  it('resolves $inGroup, $notInGroup and $savedGroups for the SDK', async () => {
    const testers = (await ok('POST', '/saved-groups', { name: 'Testers', attributeKey: 'id', values: ['t-1', 't-2'] })).savedGroup.id;
    const french = (await ok('POST', '/saved-groups', { name: 'French', condition: '{"country":"FR"}' })).savedGroup.id;
    const flag = (id: string, condition: unknown) =>
      ok('POST', '/features', {
        id,
        valueType: 'boolean',
        defaultValue: 'false',
        environments: production([{ type: 'force', value: 'true', condition: JSON.stringify(condition) }]),
      });
    await flag('for-testers', { id: { $inGroup: testers } });
    await flag('not-for-testers', { id: { $notInGroup: testers } });
    await flag('for-french', { $savedGroups: [french] });
    const payload = await fetchPayload();
    const on = (attributes: Record<string, unknown>, featureId: string) => new GrowthBook({ attributes }).initSync({ payload }).isOn(featureId);

    expect([on({ id: 't-1' }, 'for-testers'), on({ id: 'x' }, 'for-testers')]).toEqual([true, false]);
    expect([on({ id: 't-2' }, 'not-for-testers'), on({ id: 'x' }, 'not-for-testers')]).toEqual([false, true]);
    expect([on({ country: 'FR' }, 'for-french'), on({ country: 'DE' }, 'for-french')]).toEqual([true, false]);
  });
});

describe('connection flags', () => {
  it('shows rule ids, experiment names and metadata only to a connection that asks for them', async () => {
    const { project } = await ok('POST', '/projects', { name: 'Storefront', publicId: 'storefront' });
    const { experiment: named } = await experiment('named-exp', { coverage: 1 });
    await ok('POST', '/features', {
      id: 'with-metadata',
      valueType: 'boolean',
      defaultValue: 'false',
      project: project.id,
      tags: ['checkout'],
      customFields: { team: 'growth', secret: 'internal' },
      environments: production([{ id: 'rule-1', type: 'force', value: 'true' }]),
    });
    const asking = (
      await ok('POST', '/sdk-connections', {
        name: 'Asking',
        language: 'javascript',
        environment: 'production',
        includeRuleIds: true,
        includeExperimentNames: true,
        includeProjectIdInMetadata: true,
        includeTagsInMetadata: true,
        includeCustomFieldsInMetadata: true,
        allowedCustomFieldsInMetadata: ['team'],
      })
    ).sdkConnection.key;

    const full = (await api.request('GET', `/api/features/${asking}`)).body;
    const plain = await fetchPayload();

    expect(full.features['with-metadata']).toEqual({
      defaultValue: false,
      rules: [{ id: 'rule-1', force: true }],
      metadata: { projects: ['storefront'], tags: ['checkout'], customFields: { team: 'growth' } },
    });
    expect(full.features['named-exp-flag'].rules[0]).toMatchObject({ name: named.name, meta: [{ key: 'a', name: 'A' }, { key: 'b', name: 'B' }] });
    expect(plain.features!['with-metadata']).toEqual({ defaultValue: false, rules: [{ force: true }] });
    expect(plain.features!['named-exp-flag'].rules![0]).not.toHaveProperty('name');
    expect(plain.features!['named-exp-flag'].rules![0].meta).toEqual([{ key: 'a' }, { key: 'b' }]);
  });
});
