import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceResponseValidator } from '../support/reference';
import * as contract from '../../shared/contracts/features-v2';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';

let api: Api;
let org: TestOrg;
let clientKey: string;

const v1 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.admin, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** Validators of GrowthBook 5.0.1's documented answers, by operation. */
const documented = {
  list: referenceResponseValidator('GET', '/v2/features'),
  post: referenceResponseValidator('POST', '/v2/features'),
  get: referenceResponseValidator('GET', '/v2/features/{id}'),
  update: referenceResponseValidator('POST', '/v2/features/{id}'),
  delete: referenceResponseValidator('DELETE', '/v2/features/{id}'),
  toggle: referenceResponseValidator('POST', '/v2/features/{id}/toggle'),
  revert: referenceResponseValidator('POST', '/v2/features/{id}/revert'),
  keys: referenceResponseValidator('GET', '/v2/feature-keys'),
  stale: referenceResponseValidator('GET', '/v2/stale-features'),
};

/** The answer is what GrowthBook 5.0.1's document says that operation answers. */
function expectDocumented(operation: keyof typeof documented, body: unknown) {
  const validate = documented[operation];
  if (!validate(body)) throw new Error(`${operation}: ${JSON.stringify(validate.errors, null, 2)}`);
}

/** What the real SDK answers for a user, from the payload as served now. */
async function sdkValue(id: string, attributes: Record<string, unknown> = { id: 'u1' }) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  return new GrowthBook({ attributes }).initSync({ payload }).getFeatureValue(id, 'none');
}

let counter = 0;
const nextId = (prefix = 'flag') => `${prefix}-${++counter}`;

/** A v2 create body: a rule in every environment and one in production only. */
const createBody = (id: string) => ({
  id,
  valueType: 'string',
  defaultValue: 'blue',
  environments: { production: { enabled: true }, dev: { enabled: false } },
  rules: [
    { id: 'fr_everyone', type: 'rollout', value: 'green', coverage: 0.5, hashAttribute: 'id', condition: '{"country":"US"}' },
    { id: 'fr_vip', type: 'force', value: 'gold', condition: '{"vip":true}', environments: ['production'] },
  ],
});

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});

afterAll(async () => {
  await api.close();
});

describe('POST /v2/features', () => {
  it('creates a feature from a flat rule list, answers it in the 5.0.1 shape, and v1 shows the rules in their environments', async () => {
    const id = nextId();

    const response = await v2('POST', '/features', createBody(id));

    expect(response.status).toBe(200);
    expectDocumented('post', response.body);
    expectShape(contract.postFeatureV2, response.body);
    expect(response.body.feature.rules).toEqual([
      expect.objectContaining({ id: 'fr_everyone', type: 'rollout', allEnvironments: true }),
      expect.objectContaining({ id: 'fr_vip', type: 'force', allEnvironments: false, environments: ['production'] }),
    ]);
    expect(response.body.feature.environments.production).toEqual(expect.objectContaining({ enabled: true, defaultValue: 'blue' }));
    expect(response.body.feature.environments.production.rules).toBeUndefined();
    expect(response.body.feature.revision).toEqual(expect.objectContaining({ id: `frev_1_${id}`, version: 1 }));
    const viaV1 = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(viaV1.environments.production.rules.map((rule: any) => rule.id)).toEqual(['fr_everyone', 'fr_vip']);
    expect(viaV1.environments.dev.rules.map((rule: any) => rule.id)).toEqual(['fr_everyone']);
    expect(viaV1.environments.dev.enabled).toBe(false);
  });

  it('serves what it creates to the real SDK', async () => {
    const id = nextId();

    await ok(v2('POST', '/features', createBody(id)));

    expect(await sdkValue(id, { id: 'u1', vip: true })).toBe('gold');
    expect(await sdkValue(id, { id: 'u1', country: 'FR' })).toBe('blue');
  });

  it('gives a rule without an id one id in every environment it is in', async () => {
    const id = nextId();

    const created = await ok(v2('POST', '/features', { id, valueType: 'boolean', defaultValue: 'false', rules: [{ type: 'force', value: 'true' }] }));

    const [rule] = created.feature.rules;
    expect(created.feature.rules).toHaveLength(1);
    expect(rule).toEqual(expect.objectContaining({ allEnvironments: true, id: expect.stringMatching(/^fr_/) }));
    const viaV1 = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(viaV1.environments.production.rules[0].id).toBe(rule.id);
    expect(viaV1.environments.dev.rules[0].id).toBe(rule.id);
  });

  it('takes v2 saved-group targeting (`savedGroups: [{match, ids}]`)', async () => {
    const group = (await ok(v1('POST', '/saved-groups', { name: 'Staff', attributeKey: 'id', values: ['u7'] }))).savedGroup.id;
    const id = nextId();

    const created = await v2('POST', '/features', {
      id,
      valueType: 'string',
      defaultValue: 'off',
      environments: { production: { enabled: true } },
      rules: [{ type: 'force', value: 'staff', savedGroups: [{ match: 'any', ids: [group] }] }],
    });

    expect(created.status).toBe(200);
    expectDocumented('post', created.body);
    expect(created.body.feature.rules[0].savedGroupTargeting).toEqual([{ matchType: 'any', savedGroups: [group] }]);
    expect(await sdkValue(id, { id: 'u7' })).toBe('staff');
    expect(await sdkValue(id, { id: 'u8' })).toBe('off');
  });

  it.each([
    ['a rule scoped to an unknown environment', { rules: [{ type: 'force', value: 'x', environments: ['staging'] }] }, /rules\.0\.environments.*staging/],
    ['a rule in no environment', { rules: [{ type: 'force', value: 'x', allEnvironments: false }] }, /rules\.0\.environments.*no environment/],
    ['two rules with one id', { rules: [{ id: 'fr_a', type: 'force', value: 'x' }, { id: 'fr_a', type: 'force', value: 'y' }] }, /rules\.1\.id.*fr_a/],
    ['a safe rollout', { rules: [{ type: 'safe-rollout', controlValue: 'a', variationValue: 'b', hashAttribute: 'id', safeRolloutId: 'sr_1' }] }, /rules\.0\.type.*safe-rollout/],
    ['a config-backed rule', { rules: [{ type: 'force', value: '{}', config: 'purchase-flow' }] }, /rules\.0\.config.*configs/],
    ['a config-backed feature', { baseConfig: 'purchase-flow' }, /baseConfig.*configs/],
    ['secondary targeting projects', { targetingProjects: ['prj_x'] }, /targetingProjects/],
    ['a rule value of the wrong type', { valueType: 'number', defaultValue: '1', rules: [{ type: 'force', value: 'many' }] }, /rules\.0\.value\] Must be a valid number/],
    ['an unknown environment state', { environments: { staging: { enabled: true } } }, /environments\.staging/],
    ['a field v2 does not have', { draft: true }, /draft/],
  ])('refuses %s with 400 naming it, and stores nothing', async (_name, change, message) => {
    const id = nextId();

    const response = await v2('POST', '/features', { ...createBody(id), ...change });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await v1('GET', `/features/${id}`)).status).toBe(404);
  });

  it('takes GrowthBook’s skip flags and null configs, which change nothing here', async () => {
    const id = nextId();

    const response = await v2('POST', '/features', {
      ...createBody(id),
      baseConfig: null,
      defaultValueConfig: null,
      targetingAllProjects: false,
      ignoreWarnings: true,
      skipHooks: true,
    });

    expect(response.status).toBe(200);
    expectDocumented('post', response.body);
  });
});

describe('GET /v2/features', () => {
  it('lists features in the 5.0.1 shape, with the pagination fields', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('GET', '/features?limit=2');

    expect(response.status).toBe(200);
    expectDocumented('list', response.body);
    expectShape(contract.listFeaturesV2, response.body);
    expect(response.body).toEqual(expect.objectContaining({ limit: 2, offset: 0, count: 2 }));
  });

  it('keeps only archived features with archived=true, and only live ones with archived=false', async () => {
    const archived = nextId('archived');
    const live = nextId('live');
    await ok(v2('POST', '/features', { ...createBody(archived), archived: true }));
    await ok(v2('POST', '/features', createBody(live)));

    const onlyArchived = await ok(v2('GET', '/features?archived=true&limit=100'));
    const onlyLive = await ok(v2('GET', '/features?archived=false&limit=100'));

    expectDocumented('list', onlyArchived);
    expect(onlyArchived.features.every((feature: any) => feature.archived)).toBe(true);
    expect(onlyArchived.features.map((feature: any) => feature.id)).toContain(archived);
    expect(onlyArchived.total).toBe(onlyArchived.features.length);
    expect(onlyLive.features.map((feature: any) => feature.id)).toContain(live);
    expect(onlyLive.features.map((feature: any) => feature.id)).not.toContain(archived);
  });

  it('refuses an archived value that is not a boolean with 400', async () => {
    const response = await v2('GET', '/features?archived=maybe');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/archived/);
  });
});

describe('GET /v2/features/{id}', () => {
  it('answers the feature with its revisions in the 5.0.1 shape, and agrees with v1', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));
    await ok(v2('POST', `/features/${id}`, { defaultValue: 'red' }));

    const response = await v2('GET', `/features/${id}?withRevisions=all`);

    expect(response.status).toBe(200);
    expectDocumented('get', response.body);
    expectShape(contract.getFeatureV2, response.body);
    const { feature } = response.body;
    expect(feature.revisions.map((revision: any) => [revision.version, revision.status, revision.defaultValue])).toEqual([
      [2, 'published', 'red'],
      [1, 'published', 'blue'],
    ]);
    const viaV1 = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(feature.defaultValue).toBe(viaV1.defaultValue);
    expect(feature.revision.version).toBe(viaV1.revision.version);
    for (const env of ['production', 'dev']) {
      expect(feature.environments[env].enabled).toBe(viaV1.environments[env].enabled);
      expect(feature.environments[env].definition).toBe(viaV1.environments[env].definition);
      const inEnv = feature.rules.filter((rule: any) => rule.allEnvironments || rule.environments.includes(env)).map((rule: any) => rule.id);
      expect(inEnv).toEqual(viaV1.environments[env].rules.map((rule: any) => rule.id));
    }
  });

  it('answers 404 for a feature that does not exist', async () => {
    expect((await v2('GET', '/features/nothing-here')).status).toBe(404);
  });
});

describe('POST /v2/features/{id}', () => {
  it('replaces every environment’s rules with the flat list given, and the SDK sees it', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('POST', `/features/${id}`, {
      rules: [{ id: 'fr_all', type: 'force', value: 'purple' }],
      environments: { dev: { enabled: true } },
    });

    expect(response.status).toBe(200);
    expectDocumented('update', response.body);
    expect(response.body.feature.rules).toEqual([expect.objectContaining({ id: 'fr_all', allEnvironments: true })]);
    expect(response.body.feature.environments.dev.enabled).toBe(true);
    expect(await sdkValue(id, { id: 'u1', vip: true })).toBe('purple');
    const viaV1 = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(viaV1.environments.production.rules.map((rule: any) => rule.id)).toEqual(['fr_all']);
    expect(viaV1.environments.dev.rules.map((rule: any) => rule.id)).toEqual(['fr_all']);
  });

  it('leaves the rules alone when the body has none', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const updated = await ok(v2('POST', `/features/${id}`, { description: 'Checkout colour' }));

    expect(updated.feature.description).toBe('Checkout colour');
    expect(updated.feature.rules.map((rule: any) => rule.id)).toEqual(['fr_everyone', 'fr_vip']);
  });

  it('shows a v1 write in v2, the rules in their environments', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    await ok(v1('POST', `/features/${id}`, { environments: { dev: { rules: [{ id: 'fr_dev', type: 'force', value: 'dev-only' }] } } }));

    const { feature } = await ok(v2('GET', `/features/${id}`));
    expect(feature.rules).toEqual([
      expect.objectContaining({ id: 'fr_everyone', allEnvironments: false, environments: ['production'] }),
      expect.objectContaining({ id: 'fr_vip', allEnvironments: false, environments: ['production'] }),
      expect.objectContaining({ id: 'fr_dev', allEnvironments: false, environments: ['dev'] }),
    ]);
  });

  it('refuses a bad rule with 400 naming it, and changes nothing', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));
    const before = (await ok(v1('GET', `/features/${id}`))).feature;

    const response = await v2('POST', `/features/${id}`, { rules: [{ type: 'rollout', value: 'x', coverage: 2, hashAttribute: 'id' }] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/rules\.0\.coverage/);
    expect((await ok(v1('GET', `/features/${id}`))).feature).toEqual(before);
  });

  it('answers 404 for a feature that does not exist', async () => {
    expect((await v2('POST', '/features/nothing-here', { description: 'x' })).status).toBe(404);
  });
});

describe('toggle, revert and delete', () => {
  it('toggles an environment off, and the SDK stops serving the feature there', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('POST', `/features/${id}/toggle`, { environments: { production: false }, reason: 'incident' });

    expect(response.status).toBe(200);
    expectDocumented('toggle', response.body);
    expect(response.body.feature.environments.production.enabled).toBe(false);
    expect(await sdkValue(id)).toBe('none');
  });

  it('refuses to toggle an unknown environment with 400, and changes nothing', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('POST', `/features/${id}/toggle`, { environments: { staging: true } });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/staging/);
    expect((await ok(v2('GET', `/features/${id}`))).feature.revision.version).toBe(1);
  });

  it('reverts to an earlier revision, published again as a new one', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));
    await ok(v2('POST', `/features/${id}`, { defaultValue: 'red' }));

    const response = await v2('POST', `/features/${id}/revert`, { revision: 1, comment: 'back to blue', ignoreWarnings: true });

    expect(response.status).toBe(200);
    expectDocumented('revert', response.body);
    expect(response.body.feature).toEqual(expect.objectContaining({ defaultValue: 'blue', revision: expect.objectContaining({ version: 3, comment: 'back to blue' }) }));
    expect(await sdkValue(id, { id: 'u1', country: 'FR' })).toBe('blue');
  });

  it('refuses to revert to a revision that does not exist with 400', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('POST', `/features/${id}/revert`, { revision: 7 });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/revision/);
  });

  it('deletes a feature, and the SDK no longer has it', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('DELETE', `/features/${id}`);

    expect(response.status).toBe(200);
    expectDocumented('delete', response.body);
    expect(response.body).toEqual({ deletedId: id });
    expect((await v2('GET', `/features/${id}`)).status).toBe(404);
    expect(await sdkValue(id)).toBe('none');
  });
});

describe('GET /v2/feature-keys', () => {
  it('lists every feature key, as v1 does', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('GET', '/feature-keys');

    expect(response.status).toBe(200);
    expectDocumented('keys', response.body);
    expect(response.body).toEqual((await ok(v1('GET', '/feature-keys'))));
    expect(response.body).toContain(id);
  });
});

describe('GET /v2/stale-features', () => {
  /** Makes a feature look last changed `days` ago (the store always stamps now). */
  const age = (id: string, days: number) =>
    db.update({
      TableName: tableName(),
      Key: keys.entity(org.orgId, 'FEATURE', id),
      UpdateExpression: 'SET dateUpdated = :date',
      ExpressionAttributeValues: { ':date': new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString() },
    });

  it('calls a recently changed feature not stale, with the verdict per environment', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', createBody(id)));

    const response = await v2('GET', `/stale-features?ids=${id}`);

    expect(response.status).toBe(200);
    expectDocumented('stale', response.body);
    expect(response.body.features[id]).toEqual({
      featureId: id,
      isStale: false,
      staleReason: 'recently-updated',
      neverStale: false,
      staleByEnv: {
        production: { isStale: false, reason: 'has-rules' },
        dev: { isStale: true, reason: 'toggled-off', evaluatesTo: 'null' },
      },
    });
  });

  it('calls a feature unchanged for a month with no rules stale, with the value it evaluates to', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', { id, valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true }, dev: { enabled: true } } }));
    await age(id, 30);

    const response = await ok(v2('GET', `/stale-features?ids=${id},missing-feature`));

    expectDocumented('stale', response);
    expect(Object.keys(response.features)).toEqual([id]);
    expect(response.features[id]).toEqual(expect.objectContaining({ isStale: true, staleReason: 'no-rules' }));
    expect(response.features[id].staleByEnv.production).toEqual({ isStale: true, reason: 'no-rules', evaluatesTo: 'true' });
  });

  it('keeps an old feature with an open draft touched this month not stale (active-draft)', async () => {
    const id = nextId();
    await ok(v2('POST', '/features', { id, valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true } } }));
    await age(id, 30);
    await ok(v2('POST', `/features/${id}/revisions`, { comment: 'later' }));
    await age(id, 30); // creating the draft stamped the feature again

    const response = await ok(v2('GET', `/stale-features?ids=${id}`));

    expect(response.features[id]).toEqual(expect.objectContaining({ isStale: false, staleReason: 'active-draft' }));
  });

  it('keeps an old feature another feature depends on not stale (has-dependents)', async () => {
    const parent = nextId('parent');
    const child = nextId('child');
    await ok(v2('POST', '/features', { id: parent, valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true } } }));
    await ok(v2('POST', '/features', { id: child, valueType: 'boolean', defaultValue: 'true', prerequisites: [parent], environments: { production: { enabled: true } } }));
    await age(parent, 30);

    const response = await ok(v2('GET', `/stale-features?ids=${parent}`));

    expect(response.features[parent]).toEqual(expect.objectContaining({ isStale: false, staleReason: 'has-dependents' }));
  });

  it('refuses a request without ids with 400', async () => {
    const response = await v2('GET', '/stale-features');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/ids/);
  });
});
