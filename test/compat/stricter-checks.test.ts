import { MAX_BODY_DEPTH } from '../../shared/api/validation';
import { MAX_IMPORT_ITEMS } from '../../shared/contracts/bulk-import';
import { MAX_JSON_REPAIR_CHARS } from '../../shared/domain/features';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

// The smaller checks GrowthBook does not make: each one is either aligned with GrowthBook (enum
// attributes without values) or kept, as README's "Compatibility" section says and why, with a clear
// 400 naming the field and nothing stored.

let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Test org', { dataSources: ['ds_main'] });
});
afterAll(() => api.close());

const request = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}`;
const variations = [
  { key: '0', name: 'A' },
  { key: '1', name: 'B' },
];

describe('environment ids (kept: an id is a path segment and a key of every feature)', () => {
  it.each(['prod#1', 'a/b', 'my env', 'é'])('refuses %p and stores nothing', async (id) => {
    const response = await request('POST', '/environments', { id });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[id\] may hold only letters, numbers, dashes and underscores/);
    expect((await request('GET', '/environments')).body.environments.map((e: { id: string }) => e.id)).not.toContain(id);
  });

  it('takes letters, digits, dashes and underscores', async () => {
    expect((await request('POST', '/environments', { id: 'qa_EU-2' })).status).toBe(200);
  });
});

describe('experiment bucket versions and winner (kept: whole numbers)', () => {
  it.each([
    ['a fractional bucketVersion', { bucketVersion: 1.5 }, /\[bucketVersion\]/],
    ['a negative minBucketVersion', { minBucketVersion: -1 }, /\[minBucketVersion\]/],
  ])('refuses %s on create', async (_case, fields, message) => {
    const response = await request('POST', '/experiments', { trackingKey: unique('bv'), name: 'E', variations, ...fields });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('takes whole bucket versions, and a winner that indexes a variation, stored as its id', async () => {
    const created = await request('POST', '/experiments', { trackingKey: unique('bv'), name: 'E', variations, bucketVersion: 2, minBucketVersion: 1 });
    const fraction = await request('POST', `/experiments/${created.body.experiment.id}`, { status: 'stopped', results: 'won', winner: 0.5 });
    const whole = await request('POST', `/experiments/${created.body.experiment.id}`, { status: 'stopped', results: 'won', winner: 1 });

    expect(created.status).toBe(200);
    expect(created.body.experiment).toMatchObject({ bucketVersion: 2, minBucketVersion: 1 });
    expect(fraction.status).toBe(400);
    expect(fraction.body.message).toMatch(/\[winner\]/);
    expect(whole.status).toBe(200);
    expect(whole.body.experiment.resultSummary.winner).toBe(created.body.experiment.variations[1].variationId);
  });
});

describe('phase coverage (kept: between 0 and 1, what SDKs serve)', () => {
  it.each([1.5, -0.1])('refuses coverage %p', async (coverage) => {
    const response = await request('POST', '/experiments', {
      trackingKey: unique('cov'),
      name: 'E',
      variations,
      phases: [{ name: 'Main', dateStarted: '2024-05-01', coverage }],
    });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[phases\.0\.coverage\]/);
  });
});

describe('enum attributes (aligned: values are optional, as in GrowthBook)', () => {
  it('creates an enum attribute without values', async () => {
    const response = await request('POST', '/attributes', { property: unique('plan'), datatype: 'enum' });

    expect(response.status).toBe(200);
    expect(response.body.attribute).toMatchObject({ datatype: 'enum', enum: '' });
  });
});

describe('bulk imports (kept: strict items, at most MAX_IMPORT_ITEMS of them)', () => {
  const table = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    data: { name: id, datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1', ...extra },
  });
  const tableCount = async () => (await request('GET', '/fact-tables?limit=1')).body.total;

  it.each([
    ['a field an item does not have', { factTables: [{ ...table(unique('t')), note: 'x' }] }, /\[factTables\.0\].*note/],
    ['a field an item\'s data does not have', { factTables: [table(unique('t'), { sqll: 'SELECT 2' })] }, /\[factTables\.0\.data\].*sqll/],
  ])('refuses %s, naming it, and writes nothing', async (_case, body, message) => {
    const before = await tableCount();

    const response = await request('POST', '/bulk-import/facts', body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await tableCount()).toBe(before);
  });

  it(`refuses more than ${MAX_IMPORT_ITEMS} items and writes nothing`, async () => {
    const before = await tableCount();
    const factTables = Array.from({ length: MAX_IMPORT_ITEMS + 1 }, (_, i) => table(`cap_${i}`));

    const response = await request('POST', '/bulk-import/facts', { factTables });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`at most ${MAX_IMPORT_ITEMS} items`));
    expect(await tableCount()).toBe(before);
  });
});

describe('regular expressions in conditions (kept: a pattern that may backtrack catastrophically is refused)', () => {
  const slow = JSON.stringify({ email: { $regex: '^(a+)+$' } });
  const production = (rule: Record<string, unknown>) => ({ production: { enabled: true, rules: [{ type: 'force', value: 'true', ...rule }] } });
  const phase = (fields: Record<string, unknown>) => [{ name: 'Main', dateStarted: '2024-05-01', ...fields }];
  /** How many the list at `path` holds: its total, or the length of its one array. */
  const count = async (path: string) => {
    const { body } = await request('GET', path);
    return typeof body.total === 'number' ? body.total : (Object.values(body).find(Array.isArray) as unknown[]).length;
  };

  it.each([
    ['a feature rule', '/features', () => ({ id: unique('re'), valueType: 'boolean', defaultValue: 'false', environments: production({ condition: slow }) }), 'environments.production.rules.0.condition'],
    ['a rule prerequisite', '/features', () => ({ id: unique('re'), valueType: 'boolean', defaultValue: 'false', environments: production({ prerequisites: [{ id: 'f', condition: JSON.stringify({ value: { $regexi: '(x+x+)+y' } }) }] }) }), 'environments.production.rules.0.prerequisites.0.condition'],
    ['a saved group', '/saved-groups', () => ({ name: unique('re'), type: 'condition', condition: slow }), 'condition'],
    ['an experiment phase', '/experiments', () => ({ trackingKey: unique('re'), name: 'E', variations, phases: phase({ condition: JSON.stringify({ $or: [{ email: { $not: { $regex: '(a*)*b' } } }] }) }) }), 'phases.0.condition'],
    ['an experiment phase prerequisite', '/experiments', () => ({ trackingKey: unique('re'), name: 'E', variations, phases: phase({ prerequisites: [{ id: 'f', condition: slow }] }) }), 'phases.0.prerequisites.0.condition'],
    ['an experiment template', '/experiment-templates', () => ({ templateMetadata: { name: 'T' }, type: 'standard', datasource: 'ds_main', exposureQueryId: 'q', statsEngine: 'bayesian', targeting: { coverage: 1, condition: slow } }), 'targeting.condition'],
    ['a ramp schedule step', '/ramp-schedules', () => ({ name: 'R', featureId: 'f', ruleId: 'r', environment: 'production', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { condition: slow } }] }] }), 'steps.0.actions.0.patch.condition'],
  ])('refuses one in %s with 400 naming the field and the pattern', async (_case, path, body, field) => {
    const before = await count(path);

    const response = await request('POST', path, body());

    expect(response.status).toBe(400);
    expect(response.body.message).toContain(`[${field}] has the pattern`);
    expect(response.body.message).toMatch(/may backtrack catastrophically/);
    expect(await count(path)).toBe(before);
  });

  it('refuses one in a saved group update, and the group keeps its condition', async () => {
    const created = await request('POST', '/saved-groups', { name: unique('re'), type: 'condition', condition: '{"email":{"$regex":"@example\\\\.com$"}}' });

    const response = await request('POST', `/saved-groups/${created.body.savedGroup.id}`, { condition: slow });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[condition\] has the pattern "\^\(a\+\)\+\$"/);
    expect((await request('GET', `/saved-groups/${created.body.savedGroup.id}`)).body.savedGroup.condition).toBe(created.body.savedGroup.condition);
  });

  it('takes patterns without nested quantifiers, and patterns that do not compile (SDKs match nothing), as GrowthBook does', async () => {
    const conditions = ['{"email":{"$regex":"^[a-z.]+@example\\\\.com$"}}', '{"url":{"$regexi":"^https?://(www\\\\.)?example\\\\.com/(a|b)/.*"}}', '{"email":{"$regex":"("}}'];

    const responses = await Promise.all(conditions.map((condition) => request('POST', '/saved-groups', { name: unique('re'), type: 'condition', condition })));

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(responses.map((r) => r.body.savedGroup.condition)).toEqual(conditions);
  });
});

describe('JSON feature values repaired by dirty-json (kept: at most MAX_JSON_REPAIR_CHARS characters)', () => {
  it('refuses a 20 KB value that is not JSON at once, naming the limit, and stores nothing', async () => {
    const id = unique('dirty');
    const started = performance.now();

    const response = await request('POST', '/features', { id, valueType: 'json', defaultValue: `{a:${' '.repeat(20_000)}` });

    expect(performance.now() - started).toBeLessThan(2000);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`\\[defaultValue\\] is not valid JSON, and only values of at most ${MAX_JSON_REPAIR_CHARS} characters are repaired`));
    expect((await request('GET', `/features/${id}`)).status).toBe(404);
  });
});

describe('request bodies that cannot be stored (kept: nested deeper than DynamoDB keeps, or holding __proto__ or constructor keys)', () => {
  const nest = (depth: number): unknown => (depth === 0 ? 'x' : { a: nest(depth - 1) });
  const archetype = (attributes: unknown) => ({ name: unique('arch'), isPublic: true, attributes });
  const archetypeCount = async () => (await request('GET', '/archetypes')).body.archetypes.length;
  const raw = (method: string, path: string, text: string) =>
    api.request(method, `/api/v1${path}`, { key: org.keys.admin, rawBody: text, headers: { 'content-type': 'application/json' } });

  it(`refuses a body nested more than ${MAX_BODY_DEPTH} levels with 400 naming where, and stores nothing`, async () => {
    const before = await archetypeCount();

    const response = await request('POST', '/archetypes', archetype(nest(41)));

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`^Request body: \\[attributes(\\.a){${MAX_BODY_DEPTH - 1}}\\] is nested deeper than ${MAX_BODY_DEPTH} levels`));
    expect(await archetypeCount()).toBe(before);
  });

  it(`stores a body nested exactly ${MAX_BODY_DEPTH} levels, the most DynamoDB keeps for a top-level field`, async () => {
    const response = await request('POST', '/archetypes', archetype(nest(MAX_BODY_DEPTH - 1)));

    expect(response.status).toBe(200);
    expect(response.body.archetype.attributes).toEqual(nest(MAX_BODY_DEPTH - 1));
  });

  it.each([
    ['__proto__ in an object value', (body: string) => body.replace('"plan"', '"__proto__"'), 'attributes.__proto__'],
    ['__proto__ at the top', (body: string) => body.replace('{', '{"__proto__":{"isPublic":false},'), '__proto__'],
    ['constructor in an object value', (body: string) => body.replace('"plan"', '"constructor"'), 'attributes.constructor'],
  ])('refuses %s with 400 naming the key, and stores nothing', async (_case, edit, field) => {
    const before = await archetypeCount();

    const response = await raw('POST', '/archetypes', edit(JSON.stringify(archetype({ plan: { tier: 'pro' } }))));

    expect(response.status).toBe(400);
    expect(response.body.message).toContain(`[${field}] the key "${field.split('.').pop()}" is not accepted`);
    expect(await archetypeCount()).toBe(before);
  });

  it('refuses a nested body on a feature update, and the feature is unchanged', async () => {
    const id = unique('deep');
    await request('POST', '/features', { id, valueType: 'json', defaultValue: '{"a":1}' });
    const before = (await request('GET', `/features/${id}`)).body.feature;

    const deep = await request('POST', `/features/${id}`, { defaultValue: '{"a":2}', environments: nest(40) });
    const proto = await raw('POST', `/features/${id}`, '{"defaultValue":"{\\"a\\":3}","environments":{"__proto__":{"enabled":false}}}');

    expect(deep.status).toBe(400);
    expect(deep.body.message).toMatch(/\[environments(\.a)+\] is nested deeper than/);
    expect(proto.status).toBe(400);
    expect(proto.body.message).toContain('[environments.__proto__] the key "__proto__" is not accepted');
    expect((await request('GET', `/features/${id}`)).body.feature).toEqual(before);
  });
});
