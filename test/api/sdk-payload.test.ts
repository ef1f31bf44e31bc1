import { createDecipheriv, randomBytes } from 'node:crypto';
import * as contract from '../../shared/contracts/sdk-payload';
import { environments } from '../../shared/store/environments';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { commandsDuring } from '../support/dynamo-commands';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

let counter = 0;
const uniqueId = (prefix = 'flag') => `${prefix}-${++counter}`;

async function feature(body: Record<string, unknown>, key = org.keys.admin) {
  const response = await api.request('POST', '/api/v1/features', { key, body: { id: uniqueId(), valueType: 'boolean', defaultValue: 'false', ...body } });
  if (response.status !== 200) throw new Error(`setup failed: ${JSON.stringify(response.body)}`);
  return response.body.feature;
}

/** A connection that includes rule ids and experiment names, so the translation can be read in full. */
async function connection(body: Record<string, unknown> = {}, key = org.keys.admin) {
  const response = await api.request('POST', '/api/v1/sdk-connections', {
    key,
    body: { name: 'Web', language: 'javascript', environment: 'production', includeRuleIds: true, includeExperimentNames: true, ...body },
  });
  if (response.status !== 200) throw new Error(`setup failed: ${JSON.stringify(response.body)}`);
  return response.body.sdkConnection as { id: string; key: string; encryptionKey: string };
}

async function savedGroup(body: Record<string, unknown>) {
  const response = await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body });
  return response.body.savedGroup.id as string;
}

const update = (id: string, body: unknown) => api.request('POST', `/api/v1/features/${id}`, { key: org.keys.admin, body });
const fetchPayload = (key: string, headers: Record<string, string> = {}) => api.request('GET', `/api/features/${key}`, { headers });

/** The production payload of a fresh organization holding just these features. */
async function payloadOf(...specs: Array<Record<string, unknown>>) {
  const fresh = await createTestOrg();
  for (const spec of specs) await feature(spec, fresh.keys.admin);
  const { key } = await connection({}, fresh.keys.admin);
  return (await fetchPayload(key)).body;
}

const on = (rules: unknown[] = []) => ({ production: { enabled: true, rules } });

describe('GET /api/features/{clientKey}', () => {
  it('serves the payload without a secret key, open to browsers, with an ETag', async () => {
    const served = await feature({ id: 'public-flag', environments: on() });
    const { key } = await connection();

    const response = await fetchPayload(key);

    expect(response.status).toBe(200);
    expectShape(contract.getFeaturesForSdk, response.body);
    expect(response.body).toEqual({ status: 200, features: { [served.id]: { defaultValue: false } }, dateUpdated: expect.any(String) });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=30, stale-while-revalidate=3600, stale-if-error=36000');
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
  });

  it('answers 304 without a body when If-None-Match names the current ETag', async () => {
    const { key } = await connection();
    const first = await fetchPayload(key);
    const etag = first.headers.get('etag')!;

    const exact = await fetchPayload(key, { 'if-none-match': etag });
    const weakInList = await fetchPayload(key, { 'if-none-match': `"other", W/${etag}` });
    const stale = await fetchPayload(key, { 'if-none-match': '"stale"' });

    expect(exact.status).toBe(304);
    expect(exact.body).toBeUndefined();
    expect(exact.headers.get('etag')).toBe(etag);
    expect(weakInList.status).toBe(304);
    expect(stale.status).toBe(200);
  });

  it('changes ETag and dateUpdated as soon as a feature changes', async () => {
    const served = await feature({ environments: on() });
    const { key } = await connection();
    const before = await fetchPayload(key);

    await update(served.id, { defaultValue: 'true' });
    const after = await fetchPayload(key, { 'if-none-match': before.headers.get('etag')! });

    expect(after.status).toBe(200);
    expect(after.body.features[served.id]).toEqual({ defaultValue: true });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.body.dateUpdated > before.body.dateUpdated).toBe(true);
  });

  it('answers 404 for an unknown key and 400 for something that is not an SDK key', async () => {
    const unknown = await fetchPayload('sdk-doesnotexist');
    const malformed = await fetchPayload('secret_admin_abc');

    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/^Request params: \[clientKey\]/);
  });
});

describe('the payload format', () => {
  it('leaves out archived features and features off in the environment', async () => {
    const payload = await payloadOf(
      { id: 'served', environments: on() },
      { id: 'archived', archived: true, environments: on() },
      { id: 'off', environments: { production: { enabled: false }, dev: { enabled: true } } },
    );

    expect(Object.keys(payload.features)).toEqual(['served']);
  });

  it('parses values for their type', async () => {
    const payload = await payloadOf(
      { id: 'num', valueType: 'number', defaultValue: '3.5', environments: on() },
      { id: 'obj', valueType: 'json', defaultValue: '{"size":[1,2]}', environments: on() },
      { id: 'str', valueType: 'string', defaultValue: 'hello', environments: on() },
      { id: 'bool', valueType: 'boolean', defaultValue: 'true', environments: on() },
    );

    expect(payload.features).toEqual({
      bool: { defaultValue: true },
      num: { defaultValue: 3.5 },
      obj: { defaultValue: { size: [1, 2] } },
      str: { defaultValue: 'hello' },
    });
  });

  it('drops disabled rules and parses conditions', async () => {
    const payload = await payloadOf({
      id: 'rules',
      environments: on([
        { id: 'off', type: 'force', value: 'true', enabled: false },
        { id: 'us', type: 'force', value: 'true', condition: '{"country":"US"}' },
      ]),
    });

    expect(payload.features.rules.rules).toEqual([{ id: 'us', condition: { country: 'US' }, force: true }]);
  });

  it('gives a partial rollout its coverage and hash attribute (seed and hash version only when set), and a full one none', async () => {
    const payload = await payloadOf({
      id: 'rollout',
      environments: on([
        { id: 'half', type: 'rollout', value: 'true', coverage: 0.5, hashAttribute: 'id' },
        { id: 'all', type: 'rollout', value: 'true', coverage: 1, hashAttribute: 'id', seed: 'ignored' },
      ]),
    });

    expect(payload.features.rollout.rules).toEqual([
      { id: 'half', force: true, coverage: 0.5, hashAttribute: 'id' },
      { id: 'all', force: true },
    ]);
  });

  it('gives an experiment its variations, weights to 4 decimals, coverage, key, hash attribute and meta', async () => {
    const payload = await payloadOf({
      id: 'exp',
      valueType: 'string',
      defaultValue: 'a',
      environments: on([
        {
          id: 'test',
          type: 'experiment',
          trackingKey: 'abc-test',
          hashAttribute: 'deviceId',
          coverage: 0.9,
          values: [
            { value: 'a', weight: 0.33333, name: 'A' },
            { value: 'b', weight: 0.33333 },
            { value: 'c', weight: 0.33334 },
          ],
        },
      ]),
    });

    expect(payload.features.exp.rules).toEqual([
      {
        id: 'test',
        variations: ['a', 'b', 'c'],
        weights: [0.3333, 0.3333, 0.3333],
        coverage: 0.9,
        key: 'abc-test',
        hashAttribute: 'deviceId',
        meta: [{ key: '0', name: 'A' }, { key: '1' }, { key: '2' }],
      },
    ]);
  });

  it('inlines saved groups: conditions merged, lists as $in, any as $or, none negated', async () => {
    const us = await savedGroup({ name: 'US', condition: '{"country":"US"}' });
    const beta = await savedGroup({ name: 'Beta', attributeKey: 'id', values: ['u1', 'u2'] });
    const staff = await savedGroup({ name: 'Staff', attributeKey: 'email', values: ['a@x.io'] });
    const served = await feature({
      environments: on([
        { id: 'all', type: 'force', value: 'true', condition: '{"browser":"firefox"}', savedGroupTargeting: [{ matchType: 'all', savedGroups: [us, beta] }] },
        { id: 'any', type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'any', savedGroups: [us, beta] }] },
        { id: 'none', type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'none', savedGroups: [beta, staff, us] }] },
      ]),
    });
    const { key } = await connection();

    const rules = (await fetchPayload(key)).body.features[served.id].rules;

    expect(rules).toEqual([
      { id: 'all', force: true, condition: { $and: [{ browser: 'firefox' }, { country: 'US' }, { id: { $in: ['u1', 'u2'] } }] } },
      { id: 'any', force: true, condition: { $or: [{ country: 'US' }, { id: { $in: ['u1', 'u2'] } }] } },
      {
        id: 'none',
        force: true,
        condition: { $and: [{ id: { $nin: ['u1', 'u2'] } }, { email: { $nin: ['a@x.io'] } }, { $not: { country: 'US' } }] },
      },
    ]);
  });

  it('turns prerequisites into parent conditions: gating for the feature, per rule for a rule', async () => {
    const parent = await feature({ environments: on() });
    const child = await feature({
      prerequisites: [parent.id],
      environments: on([{ id: 'r', type: 'force', value: 'true', prerequisites: [{ id: parent.id, condition: '{"value":false}' }] }]),
    });
    const { key } = await connection();

    const served = (await fetchPayload(key)).body.features[child.id];

    expect(served.rules).toEqual([
      { parentConditions: [{ id: parent.id, condition: { value: true }, gate: true }] },
      { id: 'r', force: true, parentConditions: [{ id: parent.id, condition: { value: false } }] },
    ]);
  });

  it('translates an experiment-ref rule from its experiment', async () => {
    const { body } = await api.request('POST', '/api/v1/experiments', {
      key: org.keys.admin,
      body: {
        trackingKey: 'checkout-test',
        name: 'Checkout test',
        status: 'running',
        hashAttribute: 'id',
        variations: [{ key: 'control', name: 'Control' }, { key: 'new', name: 'New' }],
        phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 0.6, variationWeights: [0.25, 0.75] }],
      },
    });
    const [control, treatment] = body.experiment.variations.map((v: { variationId: string }) => v.variationId);
    const served = await feature({
      valueType: 'string',
      defaultValue: 'old',
      environments: on([
        { id: 'ref', type: 'experiment-ref', experimentId: body.experiment.id, variations: [{ variationId: control, value: 'old' }, { variationId: treatment, value: 'new' }] },
      ]),
    });
    const { key } = await connection();

    const rules = (await fetchPayload(key)).body.features[served.id].rules;

    expect(rules).toEqual([
      expect.objectContaining({
        id: 'ref',
        variations: ['old', 'new'],
        weights: [0.25, 0.75],
        coverage: 0.6,
        key: 'checkout-test',
        hashAttribute: 'id',
        meta: [{ key: 'control', name: 'Control' }, { key: 'new', name: 'New' }],
      }),
    ]);
  });

  it('serves a connection only the features of its projects', async () => {
    const fresh = await createTestOrg();
    await projects.create(fresh.orgId, { id: 'prj_a', name: 'A' });
    await projects.create(fresh.orgId, { id: 'prj_b', name: 'B' });
    await feature({ id: 'in-a', project: 'prj_a', environments: on() }, fresh.keys.admin);
    await feature({ id: 'in-b', project: 'prj_b', environments: on() }, fresh.keys.admin);
    await feature({ id: 'in-none', environments: on() }, fresh.keys.admin);
    const onlyA = await connection({ projects: ['prj_a'] }, fresh.keys.admin);
    const every = await connection({}, fresh.keys.admin);

    expect(Object.keys((await fetchPayload(onlyA.key)).body.features)).toEqual(['in-a']);
    expect(Object.keys((await fetchPayload(every.key)).body.features)).toEqual(['in-a', 'in-b', 'in-none']);
  });

  it('encrypts the features when the connection asks, with its key', async () => {
    const served = await feature({ environments: on() });
    const { key, encryptionKey } = await connection({ encryptPayload: true });

    const { body } = await fetchPayload(key);

    expect(body.features).toEqual({});
    const [iv, ciphertext] = body.encryptedFeatures.split('.');
    const decipher = createDecipheriv('aes-128-cbc', Buffer.from(encryptionKey, 'base64'), Buffer.from(iv, 'base64'));
    const clear = JSON.parse(Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8'));
    expect(clear[served.id]).toEqual({ defaultValue: false });
  });
});

describe('payload freshness', () => {
  it('drops a feature when it is toggled off, archived or deleted', async () => {
    const toggled = await feature({ environments: on() });
    const archived = await feature({ environments: on() });
    const deleted = await feature({ environments: on() });
    const { key } = await connection();

    await api.request('POST', `/api/v1/features/${toggled.id}/toggle`, { key: org.keys.admin, body: { environments: { production: false } } });
    await update(archived.id, { archived: true });
    await api.request('DELETE', `/api/v1/features/${deleted.id}`, { key: org.keys.admin });
    const features = (await fetchPayload(key)).body.features;

    expect(features).not.toHaveProperty(toggled.id);
    expect(features).not.toHaveProperty(archived.id);
    expect(features).not.toHaveProperty(deleted.id);
  });

  it('follows a saved group as soon as it changes', async () => {
    const group = await savedGroup({ name: 'Beta', attributeKey: 'id', values: ['u1'] });
    const served = await feature({ environments: on([{ id: 'beta', type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group] }] }]) });
    const { key } = await connection();
    const before = (await fetchPayload(key)).body;

    await api.request('POST', `/api/v1/saved-groups/${group}`, { key: org.keys.admin, body: { values: ['u1', 'u2'] } });
    const after = (await fetchPayload(key)).body;

    expect(before.features[served.id].rules[0].condition).toEqual({ id: { $in: ['u1'] } });
    expect(after.features[served.id].rules[0].condition).toEqual({ id: { $in: ['u1', 'u2'] } });
    expect(after.dateUpdated > before.dateUpdated).toBe(true);
  });

  it('drops a rule whose saved group is deleted, and moves dateUpdated', async () => {
    const group = await savedGroup({ name: 'Doomed', attributeKey: 'id', values: ['u1'] });
    const served = await feature({ environments: on([{ id: 'doomed', type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group] }] }]) });
    const { key } = await connection();
    const before = (await fetchPayload(key)).body;

    await api.request('DELETE', `/api/v1/saved-groups/${group}`, { key: org.keys.admin });
    const after = (await fetchPayload(key)).body;

    expect(before.features[served.id].rules).toHaveLength(1);
    expect(after.features[served.id]).toEqual({ defaultValue: false });
    expect(after.dateUpdated > before.dateUpdated).toBe(true);
  });

  it('follows its connection to another environment', async () => {
    const devOnly = await feature({ environments: { dev: { enabled: true } } });
    const created = await connection({ environment: 'production' });

    await api.request('PUT', `/api/v1/sdk-connections/${created.id}`, { key: org.keys.admin, body: { environment: 'dev' } });
    const features = (await fetchPayload(created.key)).body.features;

    expect(features).toHaveProperty(devOnly.id);
  });

  it('serves no features for an environment that was removed', async () => {
    const fresh = await createTestOrg();
    await environments.create(fresh.orgId, { id: 'staging', description: 'Staging', toggleOnList: false, defaultState: true, projects: [] });
    await feature({ id: 'staged', environments: { staging: { enabled: true } } }, fresh.keys.admin);
    const { key } = await connection({ environment: 'staging' }, fresh.keys.admin);
    const before = (await fetchPayload(key)).body.features;

    await api.request('DELETE', '/api/v1/environments/staging', { key: fresh.keys.admin });
    const after = (await fetchPayload(key)).body.features;

    expect(Object.keys(before)).toEqual(['staged']);
    expect(after).toEqual({});
  });
});

describe('payload storage', () => {
  it('keeps every feature when many are created at once', async () => {
    const fresh = await createTestOrg();
    const ids = Array.from({ length: 8 }, (_, i) => `parallel-${i}`);
    const { key } = await connection({}, fresh.keys.admin);

    const responses = await Promise.all(ids.map((id) => feature({ id, environments: on() }, fresh.keys.admin).then(() => 200)));
    const served = (await fetchPayload(key)).body.features;
    const listed = await api.request('GET', '/api/v1/features?limit=100', { key: fresh.keys.admin });

    expect(responses).toEqual(ids.map(() => 200));
    expect(Object.keys(served).sort()).toEqual(ids);
    expect(listed.body.total).toBe(8);
  });

  it('serves a payload too large for one item, and shrinks it again', async () => {
    const fresh = await createTestOrg();
    // Random values barely compress: three such rules make a feature's entry over 200 KB gzipped.
    const bigCondition = () => JSON.stringify({ id: { $in: Array.from({ length: 2800 }, () => randomBytes(24).toString('base64url')) } });
    const big = (id: string) => ({ id, environments: on([0, 1, 2].map((i) => ({ id: `r${i}`, type: 'force', value: 'true', condition: bigCondition() }))) });
    await feature(big('big-1'), fresh.keys.admin);
    await feature(big('big-2'), fresh.keys.admin);
    await feature({ id: 'small', environments: on() }, fresh.keys.admin);
    const { key } = await connection({}, fresh.keys.admin);

    const large = (await fetchPayload(key)).body;
    await api.request('DELETE', '/api/v1/features/big-1', { key: fresh.keys.admin });
    await api.request('DELETE', '/api/v1/features/big-2', { key: fresh.keys.admin });
    const small = (await fetchPayload(key)).body;

    expect(Object.keys(large.features)).toEqual(['big-1', 'big-2', 'small']);
    expect(large.features['big-2'].rules[2].condition.id.$in).toHaveLength(2800);
    expect(small.features).toEqual({ small: { defaultValue: false } });
  });
});

describe('payload cost', () => {
  /** The DynamoDB commands one request sends (the local server runs in this process). */
  const commandsFor = (path: string) => commandsDuring(() => api.request('GET', path));

  it('proves an unchanged payload current with one Query of its versions, whatever the number of features', async () => {
    const small = await createTestOrg();
    const large = await createTestOrg();
    for (let i = 0; i < 2; i++) await feature({ id: `small-${i}`, environments: on() }, small.keys.admin);
    for (let i = 0; i < 40; i++) await feature({ id: `large-${i}`, environments: on([{ type: 'force', value: 'true', condition: '{"a":1}' }]) }, large.keys.admin);
    const smallKey = (await connection({}, small.keys.admin)).key;
    const largeKey = (await connection({}, large.keys.admin)).key;
    await fetchPayload(smallKey);
    await fetchPayload(largeKey);

    const forSmall = await commandsFor(`/api/features/${smallKey}`);
    const forLarge = await commandsFor(`/api/features/${largeKey}`);

    // The environment's version items, which also prove the connection unchanged.
    expect(forSmall).toEqual(['QueryCommand']);
    expect(forLarge).toEqual(forSmall);
  });

  it('reads all entries in one Query when cold, and after a change only the entries of the changed shard', async () => {
    const fresh = await createTestOrg();
    for (let i = 0; i < 40; i++) await feature({ id: `flag-${i}`, environments: on() }, fresh.keys.admin);
    const { key } = await connection({}, fresh.keys.admin);
    const cold = await commandsFor(`/api/features/${key}`);

    await api.request('POST', '/api/v1/features/flag-7', { key: fresh.keys.admin, body: { defaultValue: 'true' } });
    const afterChange = await commandsFor(`/api/features/${key}`);
    const served = (await fetchPayload(key)).body;

    // Cold: key, versions, one Query of all the environment's entries (40 features fill all 16 shards), and one BatchGet of the references (here only the environment).
    expect(cold).toEqual(['GetItemCommand', 'QueryCommand', 'QueryCommand', 'BatchGetItemCommand']);
    // Warm: versions, then the key, the one shard that changed, and the references.
    expect(afterChange).toEqual(['QueryCommand', 'GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);
    expect(served.features['flag-7']).toEqual({ defaultValue: true });
    expect(Object.keys(served.features)).toHaveLength(40);
  });
});

describe('GET /api/v1/sdk-payload/{key}', () => {
  it("serves the payload of one of the organization's keys to a secret key", async () => {
    await feature({ environments: on() });
    const { key } = await connection();

    const withSecret = await api.request('GET', `/api/v1/sdk-payload/${key}`, { key: org.keys.readonly });
    const publicly = await fetchPayload(key);

    expect(withSecret.status).toBe(200);
    expectShape(contract.getSdkPayload, withSecret.body);
    expect(withSecret.body).toEqual(publicly.body);
  });

  it("answers 404 for another organization's key and 401 without a secret key", async () => {
    const { key } = await connection({}, other.keys.admin);

    expect((await api.request('GET', `/api/v1/sdk-payload/${key}`, { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/sdk-payload/${key}`)).status).toBe(401);
  });
});
