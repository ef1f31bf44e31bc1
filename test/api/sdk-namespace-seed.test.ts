import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * A multiRange namespace's definition (`/namespaces`) decides how the real GrowthBook SDK places
 * users in its ranges: hashed on the definition's attribute with its seed, so rotating the seed
 * reshuffles who falls in an experiment's range, and the served payload follows at once.
 */

let api: Api;
let org: TestOrg;
let clientKey: string;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

const production = (rules: unknown[]) => ({ production: { enabled: true, rules } });
const users = Array.from({ length: 200 }, (_, i) => ({ id: `user-${i}`, deviceId: `device-${i}` }));
const fetchPayload = async () => (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse & { experiments: Array<{ key: string; filters?: unknown }> };

/** The ids of the users the SDK enrols in experiment `key` while evaluating `featureId`. */
function enrolled(payload: FeatureApiResponse, featureId: string, key: string, attributes = users as Array<Record<string, string>>): string[] {
  return attributes.flatMap((user) => {
    let tracked = false;
    const gb = new GrowthBook({ attributes: user, trackingCallback: (experiment) => void (tracked ||= experiment.key === key) }).initSync({ payload });
    gb.evalFeature(featureId);
    gb.destroy();
    return tracked ? [user.id] : [];
  });
}

/** A running experiment whose latest phase claims `ranges` of `namespaceId`, served by the flag `<trackingKey>-flag`. */
async function experiment(trackingKey: string, namespaceId: string, ranges: Array<[number, number]>) {
  const { experiment: created } = await ok('POST', '/experiments', {
    trackingKey,
    name: trackingKey,
    status: 'running',
    hashAttribute: 'id',
    variations: [{ key: 'a', name: 'A' }, { key: 'b', name: 'B' }],
    phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 1, variationWeights: [0.5, 0.5], namespace: { namespaceId, enabled: true, ranges } }],
  });
  const [a, b] = created.variations.map((v: { variationId: string }) => v.variationId);
  await ok('POST', '/features', {
    id: `${trackingKey}-flag`,
    valueType: 'string',
    defaultValue: 'default',
    environments: production([{ type: 'experiment-ref', experimentId: created.id, variations: [{ variationId: a, value: 'A' }, { variationId: b, value: 'B' }] }]),
  });
  return created as { id: string; variations: Array<{ variationId: string }> };
}

let namespaceId: string;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production', includeVisualExperiments: true })).sdkConnection.key;
  namespaceId = (await ok('POST', '/namespaces', { displayName: 'Checkout', hashAttribute: 'deviceId' })).namespace.id;
  // Fixed seeds make the assignments below deterministic.
  await ok('POST', `/namespaces/${namespaceId}/rotateSeed`, { seed: 'spring' });
  const left = await experiment('left', namespaceId, [[0, 0.5]]);
  await experiment('right', namespaceId, [[0.5, 1]]);
  const page = 'https://shop.example.com/checkout';
  const { visualChangeset } = await ok('POST', `/experiments/${left.id}/visual-changesets`, { editorUrl: page, urlPatterns: [{ type: 'simple', pattern: page, include: true }] });
  await ok('PUT', `/visual-changesets/${visualChangeset.id}`, { visualChanges: left.variations.map((v) => ({ variation: v.variationId, css: 'h1 { color: red }' })) });
  await ok('POST', '/features', {
    id: 'rule-flag',
    valueType: 'string',
    defaultValue: 'default',
    environments: production([
      { type: 'experiment', trackingKey: 'rule-exp', hashAttribute: 'id', namespace: { enabled: true, name: namespaceId, range: [0, 0.5] }, values: [{ value: 'a', weight: 0.5 }, { value: 'b', weight: 0.5 }] },
    ]),
  });
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe("a multiRange namespace's definition in the SDK payload", () => {
  it("filters experiment-ref rules, experiment rules and visual experiments on the definition's attribute and seed", async () => {
    const payload = await fetchPayload();
    const filter = (ranges: Array<[number, number]>) => [{ attribute: 'deviceId', seed: 'spring', hashVersion: 2, ranges }];

    expect(payload.features!['left-flag'].rules![0].filters).toEqual(filter([[0, 0.5]]));
    expect(payload.features!['rule-flag'].rules![0].filters).toEqual(filter([[0, 0.5]]));
    expect(payload.experiments.map((e) => e.filters)).toEqual([filter([[0, 0.5]])]);
    // Hashed on deviceId: a user without one is in no range, whatever their id.
    expect(enrolled(payload, 'left-flag', 'left', users.map(({ id }) => ({ id })))).toEqual([]);
  });

  it("reshuffles who falls in an experiment's range when the seed rotates, keeping the namespace's experiments exclusive", async () => {
    const before = await fetchPayload();
    const leftBefore = enrolled(before, 'left-flag', 'left');

    await ok('POST', `/namespaces/${namespaceId}/rotateSeed`, { seed: 'autumn' });
    const after = await fetchPayload();
    const leftAfter = enrolled(after, 'left-flag', 'left');
    const rightAfter = enrolled(after, 'right-flag', 'right');

    expect(after.features!['left-flag'].rules![0].filters).toEqual([{ attribute: 'deviceId', seed: 'autumn', hashVersion: 2, ranges: [[0, 0.5]] }]);
    expect(after.experiments.map((e) => e.filters)).toEqual([[{ attribute: 'deviceId', seed: 'autumn', hashVersion: 2, ranges: [[0, 0.5]] }]]);
    const moved = leftBefore.filter((id) => !leftAfter.includes(id)).length + leftAfter.filter((id) => !leftBefore.includes(id)).length;
    expect(moved).toBeGreaterThan(40);
    // Each user is in exactly one of the two halves, under either seed.
    expect(leftAfter.filter((id) => rightAfter.includes(id))).toEqual([]);
    expect(leftAfter.length + rightAfter.length).toBe(users.length);
    // The experiment rule in the same range moves with it: same hash, same users.
    expect(enrolled(after, 'rule-flag', 'rule-exp')).toEqual(leftAfter);
  });

  it("follows a change of the definition's hash attribute", async () => {
    await ok('PUT', `/namespaces/${namespaceId}`, { hashAttribute: 'company' });
    const payload = await fetchPayload();

    expect(payload.features!['left-flag'].rules![0].filters).toEqual([{ attribute: 'company', seed: 'autumn', hashVersion: 2, ranges: [[0, 0.5]] }]);
    expect(enrolled(payload, 'left-flag', 'left')).toEqual([]);
    expect(enrolled(payload, 'left-flag', 'left', users.map((user, i) => ({ ...user, company: `co-${i}` }))).length).toBeGreaterThan(50);
  });
});
