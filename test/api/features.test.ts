import * as contract from '../../shared/contracts/features';
import { createApiKey } from '../../shared/store/api-keys';
import { dynamoMeter } from '../../shared/db/client';
import { environments } from '../../shared/store/environments';
import { featureRevisions } from '../../shared/store/features';
import { addMember } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { commandInputsDuring } from '../support/dynamo-commands';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  await projects.create(org.orgId, { id: 'prj_web', name: 'Web' });
  await projects.create(org.orgId, { id: 'prj_app', name: 'App' });
});
afterAll(() => api.close());

let counter = 0;
const uniqueId = (prefix = 'flag') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

const create = (body: Record<string, unknown>, key = org.keys.admin) =>
  api.request('POST', '/api/v1/features', { key, body: { valueType: 'boolean', defaultValue: 'false', ...body } });
const get = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/features/${id}`, { key });
const update = (id: string, body: unknown, key = org.keys.admin) => api.request('POST', `/api/v1/features/${id}`, { key, body });
const savedGroup = async (body: Record<string, unknown>) =>
  (await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body })).body.savedGroup.id as string;

/** A running experiment with two variations, made through the API. */
async function experiment(): Promise<{ id: string; variationIds: string[] }> {
  const { body } = await api.request('POST', '/api/v1/experiments', {
    key: org.keys.admin,
    body: {
      trackingKey: uniqueId('exp'),
      name: 'Colours',
      status: 'running',
      variations: [{ key: 'c', name: 'Control' }, { key: 't', name: 'Treatment' }],
      phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 1 }],
    },
  });
  return { id: body.experiment.id, variationIds: body.experiment.variations.map((v: { variationId: string }) => v.variationId) };
}

/** A feature made through the API; returns its body. */
async function feature(body: Record<string, unknown> = {}) {
  const response = await create({ id: uniqueId(), ...body });
  if (response.status !== 200) throw new Error(`setup failed: ${JSON.stringify(response.body)}`);
  return response.body.feature;
}

describe('POST /features', () => {
  it('creates a feature with an entry for every environment of the organization', async () => {
    const id = uniqueId();

    const response = await create({ id, description: 'Checkout redesign', tags: ['checkout'] });

    expect(response.status).toBe(200);
    expectShape(contract.postFeature, response.body);
    expect(response.body.feature).toMatchObject({
      id,
      archived: false,
      description: 'Checkout redesign',
      project: '',
      valueType: 'boolean',
      defaultValue: 'false',
      tags: ['checkout'],
      prerequisites: [],
      revision: { version: 1, comment: expect.any(String), date: expect.any(String), createdBy: expect.any(String), publishedBy: expect.any(String) },
    });
    // Both starting environments have defaultState true, so the feature is on in each, as in GrowthBook.
    expect(response.body.feature.environments).toEqual({
      production: { enabled: true, defaultValue: 'false', rules: [], definition: '{"defaultValue":false}' },
      dev: { enabled: true, defaultValue: 'false', rules: [], definition: '{"defaultValue":false}' },
    });
  });

  it('leaves a new feature off in an environment whose defaultState is false, unless the body turns it on', async () => {
    const fresh = await createTestOrg();
    await api.request('POST', '/api/v1/environments', { key: fresh.keys.admin, body: { id: 'qa' } });

    const plain = await create({ id: uniqueId() }, fresh.keys.admin);
    const switched = await create({ id: uniqueId(), environments: { qa: { enabled: true }, dev: { enabled: false } } }, fresh.keys.admin);

    expect(plain.body.feature.environments.qa.enabled).toBe(false);
    expect(plain.body.feature.environments.production.enabled).toBe(true);
    expect(switched.body.feature.environments.qa.enabled).toBe(true);
    expect(switched.body.feature.environments.dev.enabled).toBe(false);
    expect(switched.body.feature.environments.production.enabled).toBe(true);
  });

  it('stores the given environments and fills in rule ids and defaults', async () => {
    const response = await create({
      id: uniqueId(),
      environments: {
        production: { enabled: true, rules: [{ type: 'force', value: 'true' }, { type: 'force', id: 'mine', value: 'false', enabled: false }] },
      },
    });

    expect(response.status).toBe(200);
    const production = response.body.feature.environments.production;
    expect(production.enabled).toBe(true);
    expect(production.rules).toEqual([
      { id: expect.stringMatching(/^fr_/), type: 'force', value: 'true', description: '', condition: '', enabled: true },
      { id: 'mine', type: 'force', value: 'false', description: '', condition: '', enabled: false },
    ]);
    // GrowthBook's REST definition carries no rule ids.
    expect(JSON.parse(production.definition)).toEqual({ defaultValue: false, rules: [{ force: true }] });
    expect(response.body.feature.environments.dev).toMatchObject({ enabled: true, defaultValue: 'false', rules: [] });
  });

  it('accepts every rule type', async () => {
    const { id: experimentId, variationIds: [v0, v1] } = await experiment();
    const groupId = await savedGroup({ name: 'US', condition: '{"country":"US"}' });
    const parent = await feature();

    const response = await create({
      id: uniqueId(),
      valueType: 'string',
      defaultValue: 'blue',
      environments: {
        production: {
          enabled: true,
          rules: [
            { type: 'force', value: 'red', condition: '{"beta":true}', savedGroupTargeting: [{ matchType: 'all', savedGroups: [groupId] }] },
            { type: 'rollout', value: 'green', coverage: 0.25, hashAttribute: 'id', prerequisites: [{ id: parent.id, condition: '{"value":true}' }] },
            { type: 'experiment', trackingKey: 'colours', values: [{ value: 'red', weight: 0.5 }, { value: 'blue', weight: 0.5, name: 'B' }], coverage: 0.8 },
            { type: 'experiment-ref', experimentId, variations: [{ variationId: v0, value: 'red' }, { variationId: v1, value: 'blue' }] },
          ],
        },
      },
    });

    expect(response.status).toBe(200);
    expectShape(contract.postFeature, response.body);
    const rules = response.body.feature.environments.production.rules;
    expect(rules.map((rule: { type: string }) => rule.type)).toEqual(['force', 'rollout', 'experiment', 'experiment-ref']);
    expect(rules[2]).toMatchObject({ trackingKey: 'colours', hashAttribute: 'id', coverage: 0.8, value: [{ value: 'red', weight: 0.5 }, { value: 'blue', weight: 0.5, name: 'B' }] });
  });

  it('resolves an owner e-mail to the member id', async () => {
    const response = await create({ id: uniqueId(), owner: org.admin.email });

    expect(response.body.feature).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it('answers 409 when the id is taken', async () => {
    const existing = await feature();

    const response = await create({ id: existing.id });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('already_exists');
  });

  it.each([
    ['a missing id', { id: undefined }, /\[id\]/],
    ['an id with a space', { id: 'has space' }, /\[id\]/],
    ['a missing valueType', { valueType: undefined }, /\[valueType\]/],
    ['an unknown valueType', { valueType: 'date' }, /\[valueType\]/],
    ['a missing defaultValue', { defaultValue: undefined }, /\[defaultValue\]/],
    ['a number default that is not a number', { valueType: 'number', defaultValue: 'ten' }, /\[defaultValue\] Must be a valid number/],
    ['a json default that is not JSON', { valueType: 'json', defaultValue: '{oops' }, /\[defaultValue\] is not valid JSON/],
    ['a jsonSchema on a boolean feature', { jsonSchema: '{"type":"object"}' }, /\[jsonSchema\]/],
    ['a jsonSchema that is not JSON', { valueType: 'json', defaultValue: '{}', jsonSchema: 'nope' }, /\[jsonSchema\]/],
    [
      'a json default that breaks the jsonSchema',
      { valueType: 'json', defaultValue: '{"size":"big"}', jsonSchema: '{"type":"object","properties":{"size":{"type":"number"}}}' },
      /\[defaultValue\] does not match jsonSchema: \$\.size: must be number/,
    ],
    [
      'a json default that breaks a $ref of the jsonSchema',
      { valueType: 'json', defaultValue: '{"size":0}', jsonSchema: '{"definitions":{"size":{"type":"integer","minimum":1}},"properties":{"size":{"$ref":"#/definitions/size"}}}' },
      /\[defaultValue\] does not match jsonSchema: \$\.size: must be >= 1/,
    ],
    [
      'a jsonSchema Ajv does not compile',
      { valueType: 'json', defaultValue: '{}', jsonSchema: '{"type":"object","properties":{"size":{"$ref":"#/definitions/missing"}}}' },
      /\[jsonSchema\] is not a schema Ajv compiles: can't resolve reference #\/definitions\/missing/,
    ],
    ['an unknown environment', { environments: { staging: { enabled: true } } }, /\[environments\.staging\]/],
    ['an unknown project', { project: 'prj_missing' }, /\[project\]/],
    ['an unknown owner', { owner: 'u_nobody' }, /\[owner\]/],
    ['an unknown prerequisite', { prerequisites: ['missing-flag'] }, /\[prerequisites\.0\] feature missing-flag does not exist/],
    ['an unknown field', { colour: 'red' }, /colour/],
    ['a rule value of the wrong type', { valueType: 'number', defaultValue: '1', environments: { production: { rules: [{ type: 'force', value: 'maybe' }] } } }, /\[environments\.production\.rules\.0\.value\]/],
    ['a rule condition that is not JSON', { environments: { production: { rules: [{ type: 'force', value: 'true', condition: 'country=US' }] } } }, /\[environments\.production\.rules\.0\.condition\]/],
    ['a rule of an unknown type', { environments: { production: { rules: [{ type: 'magic', value: 'true' }] } } }, /\[environments\.production\.rules\.0\.type\]/],
    ['a rollout coverage over 1', { environments: { production: { rules: [{ type: 'rollout', value: 'true', coverage: 1.5, hashAttribute: 'id' }] } } }, /\[environments\.production\.rules\.0\.coverage\]/],
    ['a rollout coverage below 0', { environments: { production: { rules: [{ type: 'rollout', value: 'true', coverage: -0.1, hashAttribute: 'id' }] } } }, /\[environments\.production\.rules\.0\.coverage\]/],
    ['a rollout without hashAttribute', { environments: { production: { rules: [{ type: 'rollout', value: 'true', coverage: 0.5 }] } } }, /\[environments\.production\.rules\.0\.hashAttribute\]/],
    [
      'experiment weights that do not sum to 1',
      { environments: { production: { rules: [{ type: 'experiment', values: [{ value: 'true', weight: 0.5 }, { value: 'false', weight: 0.2 }] }] } } },
      /\[environments\.production\.rules\.0\.values\] weights must add up to 1/,
    ],
    [
      'an experiment weight over 1',
      { environments: { production: { rules: [{ type: 'experiment', values: [{ value: 'true', weight: 1.5 }, { value: 'false', weight: -0.5 }] }] } } },
      /\[environments\.production\.rules\.0\.values\.0\.weight\]/,
    ],
    ['an experiment without values', { environments: { production: { rules: [{ type: 'experiment' }] } } }, /\[environments\.production\.rules\.0\.values\]/],
    ['an experiment coverage over 1', { environments: { production: { rules: [{ type: 'experiment', coverage: 2, values: [{ value: 'true', weight: 1 }] }] } } }, /\[environments\.production\.rules\.0\.coverage\]/],
    [
      'an experiment-ref to an unknown experiment',
      { environments: { production: { rules: [{ type: 'experiment-ref', experimentId: 'exp_missing', variations: [{ variationId: 'v0', value: 'true' }] }] } } },
      /\[environments\.production\.rules\.0\.experimentId\] experiment exp_missing does not exist/,
    ],
    [
      'an unknown saved group',
      { environments: { production: { rules: [{ type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'any', savedGroups: ['grp_missing'] }] }] } } },
      /\[environments\.production\.rules\.0\.savedGroupTargeting\.0\.savedGroups\] saved group grp_missing does not exist/,
    ],
    ['an unknown saved group match type', { environments: { production: { rules: [{ type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'some', savedGroups: ['x'] }] }] } } }, /matchType/],
    ['two rules with one id', { environments: { production: { rules: [{ type: 'force', value: 'true', id: 'a' }, { type: 'force', value: 'true', id: 'a' }] } } }, /\[environments\.production\.rules\.1\.id\]/],
    ['a draft (changes are always published)', { environments: { production: { enabled: true, draft: { rules: [] } } } }, /draft/],
  ])('answers 400 for %s and stores nothing', async (_case, input, message) => {
    const id = uniqueId();

    const response = await create({ id, ...input });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    expect((await get(id)).status).toBe(404);
  });

  it('accepts a json value that matches its jsonSchema', async () => {
    const response = await create({
      id: uniqueId(),
      valueType: 'json',
      defaultValue: '{"size": 3}',
      jsonSchema: '{"type":"object","required":["size"],"properties":{"size":{"type":"integer","minimum":1}}}',
    });

    expect(response.status).toBe(200);
    expect(response.body.feature).not.toHaveProperty('jsonSchema');
  });

  it('answers 400 for an experiment-ref naming a variation its experiment lacks', async () => {
    const { id: experimentId } = await experiment();

    const response = await create({
      id: uniqueId(),
      environments: { production: { rules: [{ type: 'experiment-ref', experimentId, variations: [{ variationId: 'var_other', value: 'true' }] }] } },
    });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[environments\.production\.rules\.0\.variations\.0\.variationId\] experiment .* has no variation var_other/);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create({ id: uniqueId() }, org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it('lets an engineer key write', async () => {
    const response = await create({ id: uniqueId() }, org.keys.engineer);

    expect(response.status).toBe(200);
  });

  it('lets a member write only in the projects where a project role allows it', async () => {
    const member = await addMember(org.orgId, {
      name: 'Web engineer',
      email: `web-${uniqueId()}@example.com`,
      role: 'readonly',
      projectRoles: [{ project: 'prj_web', role: 'engineer', limitAccessByEnvironment: false, environments: [] }],
    });
    const token = (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'web' })).secret;

    const inProject = await create({ id: uniqueId(), project: 'prj_web' }, token);
    const elsewhere = await create({ id: uniqueId(), project: 'prj_app' }, token);
    const global = await create({ id: uniqueId() }, token);

    expect(inProject.status).toBe(200);
    expect(inProject.body.feature.owner).toBe(member.id);
    expect(elsewhere.status).toBe(403);
    expect(global.status).toBe(403);
  });
});

describe('GET /features/{id}', () => {
  it('returns the feature', async () => {
    const created = await feature({ environments: { dev: { enabled: true } } });

    const response = await get(created.id, org.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.getFeature, response.body);
    expect(response.body.feature).toEqual(created);
  });

  it('shows an environment created after the feature, with defaults', async () => {
    const fresh = await createTestOrg();
    const created = await create({ id: 'late-env' }, fresh.keys.admin);
    await environments.create(fresh.orgId, { id: 'staging', description: 'Staging', toggleOnList: false, defaultState: true, projects: [] });

    const response = await get(created.body.feature.id, fresh.keys.admin);

    expect(response.body.feature.environments.staging).toEqual({ enabled: false, defaultValue: 'false', rules: [] });
  });

  it('lists the published revisions with withRevisions, newest first, with every field GrowthBook gives', async () => {
    const created = await feature({
      defaultValue: 'true',
      environments: { production: { enabled: true, rules: [{ type: 'force', value: 'false', condition: '{"country":"NL"}' }] } },
    });
    await update(created.id, { defaultValue: 'false', environments: { production: { enabled: true, rules: [] } } }, org.admin.token);

    const response = await api.request('GET', `/api/v1/features/${created.id}?withRevisions=all`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.getFeature, response.body);
    const [second, first] = response.body.feature.revisions;
    expect(response.body.feature.revisions).toHaveLength(2);
    expect(second).toEqual({
      featureId: created.id,
      baseVersion: 1,
      version: 2,
      comment: expect.any(String),
      date: expect.any(String),
      status: 'published',
      createdBy: org.admin.memberId,
      publishedBy: org.admin.memberId,
      defaultValue: 'false',
      rules: { production: [], dev: [] },
      definitions: { production: JSON.stringify({ defaultValue: false }), dev: JSON.stringify({ defaultValue: false }) },
    });
    expect(first).toMatchObject({ featureId: created.id, baseVersion: 0, version: 1, status: 'published', defaultValue: 'true' });
    expect(first.rules.production).toEqual([expect.objectContaining({ type: 'force', value: 'false', condition: '{"country":"NL"}' })]);
    expect(first.rules.dev).toEqual([]);
    // Each definition is what the SDK would get were that revision live.
    expect(JSON.parse(first.definitions.production)).toEqual({
      defaultValue: true,
      rules: [expect.objectContaining({ condition: { country: 'NL' }, force: false })],
    });
    expect(JSON.parse(first.definitions.dev)).toEqual({ defaultValue: true });
    expect(Date.parse(first.date)).toBeLessThanOrEqual(Date.parse(second.date));
  });

  it('lists the ten newest revisions, as GrowthBook does', async () => {
    const created = await feature();
    for (let i = 2; i <= 12; i++) await update(created.id, { description: `revision ${i}` });

    const response = await api.request('GET', `/api/v1/features/${created.id}?withRevisions=published`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(response.body.feature.revisions.map((r: { version: number }) => r.version)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
  });

  it('has no revisions field without withRevisions or with none, and refuses another value', async () => {
    const created = await feature();

    const plain = await get(created.id);
    const none = await api.request('GET', `/api/v1/features/${created.id}?withRevisions=none`, { key: org.keys.admin });
    const wrong = await api.request('GET', `/api/v1/features/${created.id}?withRevisions=yes`, { key: org.keys.admin });

    expect(plain.body.feature).not.toHaveProperty('revisions');
    expect(none.body.feature).not.toHaveProperty('revisions');
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/withRevisions/);
  });

  it('lists no drafts, since every change is published', async () => {
    const created = await feature();

    const response = await api.request('GET', `/api/v1/features/${created.id}?withRevisions=drafts`, { key: org.keys.admin });

    expect(response.body.feature.revisions).toEqual([]);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await get('no-such-flag');

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('no-such-flag') });
  });

  it('answers 404 when the feature belongs to another organization', async () => {
    const created = await feature();

    const response = await get(created.id, other.keys.admin);

    expect(response.status).toBe(404);
  });
});

describe('POST /features/{id}', () => {
  it('changes only the given fields and records a new revision', async () => {
    const created = await feature({ description: 'before', tags: ['a'] });

    const response = await update(created.id, { description: 'after' }, org.admin.token);

    expect(response.status).toBe(200);
    expectShape(contract.updateFeature, response.body);
    const updated = response.body.feature;
    expect(updated).toMatchObject({ description: 'after', tags: ['a'], defaultValue: 'false', environments: created.environments });
    expect(updated.revision).toEqual({
      version: 2,
      comment: expect.any(String),
      date: expect.any(String),
      createdBy: org.admin.memberId,
      publishedBy: org.admin.memberId,
    });
    expect(updated.dateCreated).toBe(created.dateCreated);
  });

  it('replaces tags with the submitted list', async () => {
    const created = await feature({ tags: ['a', 'b'] });

    const response = await update(created.id, { tags: ['c'] });

    expect(response.body.feature.tags).toEqual(['c']);
  });

  it('merges environments: absent ones untouched, ones without rules keep their rules, ones with rules replace them', async () => {
    const created = await feature({
      environments: {
        production: { enabled: true, rules: [{ type: 'force', value: 'true', id: 'keep-me' }] },
        dev: { enabled: true, rules: [{ type: 'force', value: 'true', id: 'replace-me' }] },
      },
    });

    const disabledOnly = await update(created.id, { environments: { production: { enabled: false } } });
    const replaced = await update(created.id, { environments: { dev: { rules: [{ type: 'force', value: 'false' }] } } });

    expect(disabledOnly.body.feature.environments.production).toMatchObject({ enabled: false, rules: [{ id: 'keep-me' }] });
    expect(disabledOnly.body.feature.environments.dev).toEqual(created.environments.dev);
    expect(replaced.body.feature.environments.production).toMatchObject({ enabled: false, rules: [{ id: 'keep-me' }] });
    expect(replaced.body.feature.environments.dev).toMatchObject({
      enabled: true,
      rules: [{ id: expect.stringMatching(/^fr_/), type: 'force', value: 'false' }],
    });
    expect(replaced.body.feature.revision.version).toBe(3);
  });

  it('keeps the holdout when absent and removes it with null', async () => {
    const created = await feature();

    const set = await update(created.id, { holdout: { id: 'hld_1', value: 'false' } });
    const kept = await update(created.id, { description: 'unrelated' });
    const removed = await update(created.id, { holdout: null });

    expect(set.body.feature.holdout).toEqual({ id: 'hld_1', value: 'false' });
    expect(kept.body.feature.holdout).toEqual({ id: 'hld_1', value: 'false' });
    expect(removed.status).toBe(200);
    expect(removed.body.feature.holdout ?? null).toBeNull();
  });

  it('resolves an owner e-mail to the member id', async () => {
    const created = await feature();

    const response = await update(created.id, { owner: org.admin.email });

    expect(response.body.feature).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it('sets archived, project, defaultValue and customFields', async () => {
    const created = await feature();

    const response = await update(created.id, { archived: true, project: 'prj_web', defaultValue: 'true', customFields: { team: 'growth' } });

    expect(response.body.feature).toMatchObject({ archived: true, project: 'prj_web', defaultValue: 'true', customFields: { team: 'growth' } });
  });

  it('accepts prerequisites that exist', async () => {
    const parent = await feature();
    const child = await feature();

    const response = await update(child.id, { prerequisites: [parent.id] });

    expect(response.status).toBe(200);
    expect(response.body.feature.prerequisites).toEqual([parent.id]);
  });

  it('refuses a prerequisite that would form a cycle', async () => {
    const a = await feature();
    const b = await feature({ prerequisites: [a.id] });
    const c = await feature({ prerequisites: [b.id] });

    const response = await update(a.id, { prerequisites: [c.id] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[prerequisites\] would form a cycle/);
    expect(response.body.message).toContain(`${a.id} -> ${c.id} -> ${b.id} -> ${a.id}`);
    expect((await get(a.id)).body.feature.prerequisites).toEqual([]);
  });

  it('refuses a cycle through a rule prerequisite', async () => {
    const a = await feature();
    const b = await feature({
      environments: { production: { rules: [{ type: 'force', value: 'true', prerequisites: [{ id: a.id, condition: '{"value":true}' }] }] } },
    });

    const response = await update(a.id, { prerequisites: [b.id] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/cycle/);
  });

  it('refuses a feature as its own prerequisite', async () => {
    const a = await feature();

    const response = await update(a.id, { prerequisites: [a.id] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[prerequisites\.0\] a feature cannot be its own prerequisite/);
  });

  it('enforces a new jsonSchema on the values already stored', async () => {
    const created = await feature({ valueType: 'json', defaultValue: '{"size":"big"}' });

    const response = await update(created.id, { jsonSchema: '{"type":"object","properties":{"size":{"type":"number"}}}' });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[defaultValue\] does not match jsonSchema/);
  });

  it('refuses a rule value GrowthBook refuses (duplicate items, whatever their key order) and leaves the feature unchanged', async () => {
    const schema = JSON.stringify({ type: 'array', uniqueItems: true, items: { type: 'object' } });
    const created = await feature({ valueType: 'json', defaultValue: '[{"a":1,"b":2}]', jsonSchema: schema });

    const response = await update(created.id, { environments: { production: { rules: [{ type: 'force', value: '[{"a":1,"b":2},{"b":2,"a":1}]' }] } } });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(
      'Request body: [environments.production.rules.0.value] does not match jsonSchema: $: must NOT have duplicate items (items ## 0 and 1 are identical)',
    );
    const after = await get(created.id);
    expect(after.body.feature.environments.production.rules).toEqual([]);
    expect(after.body.feature.revision.version).toBe(created.revision.version);
  });

  it('enforces the stored jsonSchema on new values', async () => {
    const created = await feature({ valueType: 'json', defaultValue: '{"size":1}', jsonSchema: '{"type":"object","properties":{"size":{"type":"number"}}}' });

    const bad = await update(created.id, { environments: { production: { rules: [{ type: 'force', value: '{"size":"x"}' }] } } });
    const good = await update(created.id, { environments: { production: { rules: [{ type: 'force', value: '{"size":2}' }] } } });

    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/\[environments\.production\.rules\.0\.value\] does not match jsonSchema/);
    expect(good.status).toBe(200);
  });

  it.each([
    ['an unknown project', { project: 'prj_missing' }, /\[project\]/],
    ['an unknown owner', { owner: 'u_nobody' }, /\[owner\]/],
    ['an unknown prerequisite', { prerequisites: ['missing-flag'] }, /\[prerequisites\.0\]/],
    ['an unknown environment', { environments: { staging: { enabled: true } } }, /\[environments\.staging\]/],
    ['a holdout without value', { holdout: { id: 'hld_1' } }, /\[holdout\.value\]/],
    ['tags that are not a list', { tags: 'a,b' }, /\[tags\]/],
    ['an unknown field', { valueType: 'string' }, /valueType/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const created = await feature();

    const response = await update(created.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(created.id)).body.feature).toEqual(created);
  });

  it('makes no revision when nothing changes', async () => {
    const created = await feature({ description: 'same' });

    const response = await update(created.id, { description: 'same' });

    expect(response.body.feature.revision.version).toBe(1);
  });

  it('loses no change when several requests update the feature at once', async () => {
    const created = await feature({ environments: { production: { enabled: false }, dev: { enabled: false } } });

    const responses = await Promise.all([
      update(created.id, { description: 'described' }),
      update(created.id, { tags: ['tagged'] }),
      update(created.id, { environments: { production: { enabled: true } } }),
      update(created.id, { environments: { dev: { enabled: true } } }),
      update(created.id, { customFields: { team: 'growth' } }),
    ]);

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const final = (await get(created.id)).body.feature;
    expect(final).toMatchObject({ description: 'described', tags: ['tagged'], customFields: { team: 'growth' } });
    expect(final.environments.production.enabled).toBe(true);
    expect(final.environments.dev.enabled).toBe(true);
    expect(final.revision.version).toBe(6);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await update('no-such-flag', { description: 'x' });

    expect(response.status).toBe(404);
  });

  it('answers 404 when the feature belongs to another organization', async () => {
    const created = await feature();

    const response = await update(created.id, { description: 'x' }, other.keys.admin);

    expect(response.status).toBe(404);
  });

  it('answers 404, before looking at the body, for an unknown id with unknown references', async () => {
    const response = await update('no-such-flag', { project: 'prj_missing', owner: 'u_nobody' });

    expect(response.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const created = await feature();

    const response = await update(created.id, { description: 'x' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('POST /features/{id}/toggle', () => {
  const toggle = (id: string, body: unknown, key = org.keys.admin) => api.request('POST', `/api/v1/features/${id}/toggle`, { key, body });

  it('turns environments on and off and records the reason', async () => {
    const created = await feature({ environments: { dev: { enabled: true } } });

    const response = await toggle(created.id, { reason: 'launch', environments: { production: 'true', dev: 0 } });

    expect(response.status).toBe(200);
    expectShape(contract.toggleFeature, response.body);
    expect(response.body.feature.environments.production.enabled).toBe(true);
    expect(response.body.feature.environments.dev.enabled).toBe(false);
    expect(response.body.feature.revision).toMatchObject({ version: 2, comment: 'launch' });
  });

  it.each([
    [true, true],
    ['1', true],
    [1, true],
    [false, false],
    ['false', false],
    ['0', false],
    ['', false],
  ])('reads %p as %p', async (value, enabled) => {
    const created = await feature({ environments: { production: { enabled: !enabled } } });

    const response = await toggle(created.id, { environments: { production: value } });

    expect(response.body.feature.environments.production.enabled).toBe(enabled);
  });

  it.each([
    ['an unknown environment', { environments: { staging: true } }, /\[environments\.staging\]/],
    ['a value that is not a switch', { environments: { production: 'yes' } }, /\[environments\.production\]/],
    ['no environments', {}, /\[environments\]/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const created = await feature();

    const response = await toggle(created.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('answers 404 for an unknown id and 403 for a readonly key', async () => {
    const created = await feature();

    expect((await toggle('no-such-flag', { environments: { production: true } })).status).toBe(404);
    expect((await toggle(created.id, { environments: { production: true } }, org.keys.readonly)).status).toBe(403);
    expect((await toggle(created.id, { environments: { production: true } }, other.keys.admin)).status).toBe(404);
  });
});

describe('DELETE /features/{id}', () => {
  it('deletes the feature', async () => {
    const created = await feature();

    const response = await api.request('DELETE', `/api/v1/features/${created.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.deleteFeature, response.body);
    expect(response.body).toEqual({ deletedId: created.id });
    expect((await get(created.id)).status).toBe(404);
  });

  it('lets a feature with the same id start a fresh history after a delete', async () => {
    const created = await feature();
    await update(created.id, { description: 'second revision' });
    await api.request('DELETE', `/api/v1/features/${created.id}`, { key: org.keys.admin });

    await create({ id: created.id });
    const response = await api.request('GET', `/api/v1/features/${created.id}?withRevisions=all`, { key: org.keys.admin });

    expect(response.body.feature.revisions.map((r: { version: number }) => r.version)).toEqual([1]);
  });

  it('reads the environment list once per write: for the answer, the change and the child environments alike', async () => {
    const created = await feature({ environments: { production: { enabled: true } } });
    await get(created.id); // the key is resolved and cached, as in a warm container
    const environmentListReads = async (action: () => Promise<{ status: number }>) => {
      let status = 0;
      const sent = await commandInputsDuring(async () => (status = (await action()).status));
      expect(status).toBe(200);
      const values = (command: (typeof sent)[number]) => JSON.stringify(command.input.ExpressionAttributeValues ?? {});
      return sent.filter((command) => command.name === 'QueryCommand' && values(command).includes('"ENVIRONMENT#"')).length;
    };

    expect(await environmentListReads(() => create({ id: uniqueId(), environments: { production: { enabled: true } } }))).toBe(1);
    expect(await environmentListReads(() => update(created.id, { description: 'again' }))).toBe(1);
    expect(await environmentListReads(() => api.request('POST', `/api/v1/features/${created.id}/toggle`, { key: org.keys.admin, body: { environments: { production: false } } }))).toBe(1);
    expect(await environmentListReads(() => api.request('POST', `/api/v1/features/${created.id}/revert`, { key: org.keys.admin, body: { revision: 1 } }))).toBe(1);
  });

  it('deletes the revisions in the same transaction as the feature: one read and one write', async () => {
    // Off everywhere, so no payload needs rewriting.
    const created = await feature({ environments: { production: { enabled: false }, dev: { enabled: false } } });
    await update(created.id, { description: 'second revision' });
    await get(created.id); // the key is resolved and cached, as in a warm container

    dynamoMeter.reset();
    const response = await api.request('DELETE', `/api/v1/features/${created.id}`, { key: org.keys.admin });
    const used = dynamoMeter.snapshot();

    expect(response.status).toBe(200);
    expect(used.calls).toBe(2);
    expect((await featureRevisions(org.orgId, created.id)).map((r) => r.version)).toEqual([]);
  });

  it('deletes every revision of a feature with more than one transaction holds', async () => {
    const created = await feature();
    for (let i = 2; i <= 100; i++) await update(created.id, { description: `revision ${i}` });

    const response = await api.request('DELETE', `/api/v1/features/${created.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(await featureRevisions(org.orgId, created.id)).toEqual([]);
  });

  it('answers 404 for an unknown id, another organization, and 403 for a readonly key', async () => {
    const created = await feature();

    expect((await api.request('DELETE', '/api/v1/features/no-such-flag', { key: org.keys.admin })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/features/${created.id}`, { key: other.keys.admin })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/features/${created.id}`, { key: org.keys.readonly })).status).toBe(403);
    expect((await get(created.id)).status).toBe(200);
  });
});

describe('GET /features', () => {
  let fresh: TestOrg;
  const ids: string[] = [];
  const list = (query = '', key = fresh.keys.readonly) => api.request('GET', `/api/v1/features${query}`, { key });

  beforeAll(async () => {
    fresh = await createTestOrg();
    await projects.create(fresh.orgId, { id: 'prj_a', name: 'A' });
    await projects.create(fresh.orgId, { id: 'prj_b', name: 'B' });
    const specs = [
      { project: 'prj_a', environments: { production: { enabled: true } } },
      { project: 'prj_a', environments: { production: { enabled: false } } },
      { project: 'prj_b', environments: { production: { enabled: true } } },
      { project: 'prj_b', archived: true, environments: { production: { enabled: true } } },
      { environments: { production: { enabled: true } } },
    ];
    for (const [i, spec] of specs.entries()) {
      const response = await create({ id: `list-${i}`, ...spec }, fresh.keys.admin);
      ids.push(response.body.feature.id);
    }
  });

  afterEach(() => {
    delete process.env.API_ALLOW_SKIP_PAGINATION;
  });

  it('pages through features in creation order', async () => {
    const first = await list('?limit=2');
    const last = await list('?limit=2&offset=4');

    expect(first.status).toBe(200);
    expectShape(contract.listFeatures, first.body);
    expect(first.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 5, hasMore: true, nextOffset: 2 });
    expect(first.body.features.map((f: { id: string }) => f.id)).toEqual(ids.slice(0, 2));
    expect(last.body).toMatchObject({ limit: 2, offset: 4, count: 1, total: 5, hasMore: false, nextOffset: null });
    expect(last.body.features.map((f: { id: string }) => f.id)).toEqual(ids.slice(4));
  });

  it('defaults to 10 items from offset 0', async () => {
    const response = await list();

    expect(response.body).toMatchObject({ limit: 10, offset: 0, count: 5, total: 5, hasMore: false, nextOffset: null });
  });

  it('filters by project', async () => {
    const response = await list('?projectId=prj_a');

    expect(response.body.features.map((f: { id: string }) => f.id)).toEqual([ids[0], ids[1]]);
    expect(response.body.total).toBe(2);
  });

  it('filters by SDK connection: its projects and the features on in its environment', async () => {
    const { body } = await api.request('POST', '/api/v1/sdk-connections', {
      key: fresh.keys.admin,
      body: { name: 'a+b', language: 'javascript', environment: 'production', projects: ['prj_a', 'prj_b'] },
    });
    const { body: all } = await api.request('POST', '/api/v1/sdk-connections', {
      key: fresh.keys.admin,
      body: { name: 'all', language: 'javascript', environment: 'production' },
    });

    const twoProjects = await list(`?clientKey=${body.sdkConnection.key}`);
    const everyProject = await list(`?clientKey=${all.sdkConnection.key}&projectId=prj_a`);

    expect(twoProjects.body.features.map((f: { id: string }) => f.id)).toEqual([ids[0], ids[2]]);
    expect(twoProjects.body.total).toBe(2);
    expect(everyProject.body.features.map((f: { id: string }) => f.id)).toEqual([ids[0]]);
  });

  it('answers 400 for a clientKey no connection of the organization has', async () => {
    const response = await list('?clientKey=sdk-unknown');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Querystring: \[clientKey\]/);
  });

  it('ignores skipPagination unless the deployment allows it', async () => {
    const response = await list('?limit=2&skipPagination=true');

    expect(response.body).toMatchObject({ limit: 2, count: 2, total: 5, hasMore: true });
  });

  it.each(['true', '1'])('returns everything with skipPagination when API_ALLOW_SKIP_PAGINATION is %s', async (setting) => {
    process.env.API_ALLOW_SKIP_PAGINATION = setting;

    const response = await list('?limit=2&offset=1&skipPagination=true');

    expect(response.body).toMatchObject({ limit: 5, offset: 0, count: 5, total: 5, hasMore: false, nextOffset: null });
  });

  it('never shows another organization its features', async () => {
    const response = await list('', other.keys.admin);

    expect(response.body.features.map((f: { id: string }) => f.id)).not.toContain(ids[0]);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'skipPagination=maybe'])('answers 400 for %s', async (query) => {
    const response = await list(`?${query}`);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Querystring: \[(limit|offset|skipPagination)\]/);
  });

  it('answers 403 for a key without read access', async () => {
    const response = await list('', fresh.keys.noaccess);

    expect(response.status).toBe(403);
  });
});

describe('GET /feature-keys', () => {
  it('lists every feature id, optionally of one project', async () => {
    const fresh = await createTestOrg();
    await projects.create(fresh.orgId, { id: 'prj_k', name: 'K' });
    await create({ id: 'key-one' }, fresh.keys.admin);
    await create({ id: 'key-two', project: 'prj_k' }, fresh.keys.admin);

    const all = await api.request('GET', '/api/v1/feature-keys', { key: fresh.keys.readonly });
    const inProject = await api.request('GET', '/api/v1/feature-keys?projectId=prj_k', { key: fresh.keys.readonly });

    expect(all.status).toBe(200);
    expectShape(contract.getFeatureKeys, all.body);
    expect(all.body).toEqual(['key-one', 'key-two']);
    expect(inProject.body).toEqual(['key-two']);
  });

  it('answers 403 for a key without read access', async () => {
    const response = await api.request('GET', '/api/v1/feature-keys', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});
