import * as contract from '../../shared/contracts/archetypes';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  await Promise.all([
    ...['prj_a', 'prj_b'].map((id) => projects.create(org.orgId, { id, name: id })),
    projects.create(other.orgId, { id: 'prj_other', name: 'Other project' }),
  ]);
});
afterAll(() => api.close());

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/archetypes', { key, body });
const newArchetype = async (body: Record<string, unknown> = {}) =>
  (await create({ name: 'Visitor', isPublic: true, ...body })).body.archetype;
const get = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/archetypes/${id}`, { key });
const put = (id: string, body: unknown, key = org.keys.admin) => api.request('PUT', `/api/v1/archetypes/${id}`, { key, body });

describe('POST /archetypes', () => {
  it('creates an archetype with defaults for the fields not given', async () => {
    const response = await create({ name: 'US visitor', isPublic: true, attributes: { country: 'US' } });

    expect(response.status).toBe(200);
    expectShape(contract.postArchetype, response.body);
    expect(response.body.archetype).toEqual({
      id: expect.stringMatching(/^sam_/),
      dateCreated: expect.any(String),
      dateUpdated: response.body.archetype.dateCreated,
      name: 'US visitor',
      description: '',
      owner: '',
      isPublic: true,
      attributes: { country: 'US' },
      projects: [],
    });
  });

  it('accepts attributes as a JSON-encoded object and answers with the object', async () => {
    const response = await create({ name: 'Encoded', isPublic: false, attributes: '{"country":"FR","age":30}' });

    expect(response.status).toBe(200);
    expect(response.body.archetype.attributes).toEqual({ country: 'FR', age: 30 });
  });

  it('resolves an owner e-mail to the member id', async () => {
    const response = await create({ name: 'Owned', isPublic: true, owner: org.admin.email });

    expect(response.status).toBe(200);
    expectShape(contract.postArchetype, response.body);
    expect(response.body.archetype).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it('makes the caller of a personal access token the owner when none is given', async () => {
    const response = await create({ name: 'Mine', isPublic: true }, org.admin.token);

    expect(response.body.archetype.owner).toBe(org.admin.memberId);
  });

  it('stores description and projects', async () => {
    const response = await create({ name: 'Full', isPublic: false, description: 'All fields', projects: ['prj_a'] });

    expect(response.body.archetype).toMatchObject({ description: 'All fields', projects: ['prj_a'], isPublic: false });
  });

  it.each([
    ['a missing name', { isPublic: true }, /\[name\]/],
    ['a blank name', { name: ' ', isPublic: true }, /\[name\]/],
    ['a missing isPublic', { name: 'x' }, /\[isPublic\]/],
    ['attributes that are a JSON array', { name: 'x', isPublic: true, attributes: '[1,2]' }, /\[attributes\]/],
    ['attributes that are not JSON', { name: 'x', isPublic: true, attributes: 'country=US' }, /\[attributes\]/],
    ['attributes that are a number', { name: 'x', isPublic: true, attributes: 5 }, /\[attributes\]/],
    ['attributes that are an array', { name: 'x', isPublic: true, attributes: [] }, /\[attributes\]/],
    ['an unknown owner id', { name: 'x', isPublic: true, owner: 'u_missing' }, /\[owner\]/],
    ["another organization's member as owner", { name: 'x', isPublic: true, owner: 'OTHER' }, /\[owner\]/],
    ['an unknown project', { name: 'x', isPublic: true, projects: ['prj_missing'] }, /\[projects\] .*prj_missing/],
    ["another organization's project", { name: 'x', isPublic: true, projects: ['prj_other'] }, /\[projects\]/],
    ['projects that are not strings', { name: 'x', isPublic: true, projects: [1] }, /\[projects\.0\]/],
    ['an unknown field', { name: 'x', isPublic: true, colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, input, message) => {
    const fresh = await createTestOrg();
    const body = { ...input, ...((input as { owner?: string }).owner === 'OTHER' ? { owner: other.admin.memberId } : {}) };

    const response = await create(body, fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    const after = await api.request('GET', '/api/v1/archetypes', { key: fresh.keys.admin });
    expect(after.body.archetypes).toEqual([]);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create({ name: 'x', isPublic: true }, org.keys.readonly);

    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
  });

  it('lets an engineer key write', async () => {
    const response = await create({ name: 'x', isPublic: true }, org.keys.engineer);

    expect(response.status).toBe(200);
  });
});

describe('GET /archetypes', () => {
  it('lists every archetype of the organization in creation order, without pagination', async () => {
    const fresh = await createTestOrg();
    const first = (await create({ name: 'first', isPublic: true }, fresh.keys.admin)).body.archetype;
    const second = (await create({ name: 'second', isPublic: false }, fresh.keys.admin)).body.archetype;

    const response = await api.request('GET', '/api/v1/archetypes', { key: fresh.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.listArchetypes, response.body);
    expect(response.body).toEqual({ archetypes: [first, second] });
  });

  it('answers 403 for a noaccess key', async () => {
    const response = await api.request('GET', '/api/v1/archetypes', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});

describe('GET /archetypes/{id}', () => {
  it('returns the archetype to a readonly key', async () => {
    const archetype = await newArchetype({ attributes: { id: 'u1' } });

    const response = await get(archetype.id, org.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.getArchetype, response.body);
    expect(response.body).toEqual({ archetype });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await get('sam_missing');

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('sam_missing') });
  });

  it('answers 404 when the archetype belongs to another organization', async () => {
    const archetype = await newArchetype();

    const response = await get(archetype.id, other.keys.admin);

    expect(response.status).toBe(404);
  });

  it('answers 403 for a noaccess key', async () => {
    const archetype = await newArchetype();

    const response = await get(archetype.id, org.keys.noaccess);

    expect(response.status).toBe(403);
  });
});

describe('PUT /archetypes/{id}', () => {
  it('changes only the given fields and bumps dateUpdated', async () => {
    const archetype = await newArchetype({ description: 'kept', attributes: { a: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 5));

    const response = await put(archetype.id, { name: 'Renamed', isPublic: false, attributes: '{"b":2}', projects: ['prj_b'] });

    expect(response.status).toBe(200);
    expectShape(contract.putArchetype, response.body);
    expect(response.body.archetype).toMatchObject({
      name: 'Renamed',
      isPublic: false,
      attributes: { b: 2 },
      projects: ['prj_b'],
      description: 'kept',
      dateCreated: archetype.dateCreated,
    });
    expect(response.body.archetype.dateUpdated > archetype.dateUpdated).toBe(true);
  });

  it('resolves a new owner e-mail to the member id', async () => {
    const archetype = await newArchetype();

    const response = await put(archetype.id, { owner: org.admin.email });

    expect(response.status).toBe(200);
    expect(response.body.archetype).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it.each([
    ['attributes that are not a JSON object', { attributes: '"text"' }, /\[attributes\]/],
    ['a blank name', { name: '' }, /\[name\]/],
    ['an isPublic that is not a boolean', { isPublic: 'yes' }, /\[isPublic\]/],
    ['an unknown owner', { owner: 'u_missing' }, /\[owner\]/],
    ["another organization's project", { projects: ['prj_other'] }, /\[projects\]/],
    ['an unknown field', { colour: 'red' }, /colour/],
  ])('answers 400 for %s and leaves the archetype unchanged', async (_case, body, message) => {
    const archetype = await newArchetype();

    const response = await put(archetype.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(archetype.id)).body).toEqual({ archetype });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await put('sam_missing', { name: 'x' });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's archetype and leaves it unchanged", async () => {
    const archetype = await newArchetype();

    const response = await put(archetype.id, { name: 'taken' }, other.keys.admin);

    expect(response.status).toBe(404);
    expect((await get(archetype.id)).body).toEqual({ archetype });
  });

  it('answers 403 for a readonly key', async () => {
    const archetype = await newArchetype();

    const response = await put(archetype.id, { name: 'x' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it('loses no write when many clients update different fields at once', async () => {
    const archetype = await newArchetype();

    const responses = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => put(archetype.id, { name: `name ${i}` })),
      put(archetype.id, { description: 'described' }),
      put(archetype.id, { attributes: { busy: true } }),
      put(archetype.id, { projects: ['prj_a'] }),
    ]);

    expect(responses.map((r) => r.status)).toEqual(Array(7).fill(200));
    const final = (await get(archetype.id)).body.archetype;
    expect(final).toMatchObject({ description: 'described', attributes: { busy: true }, projects: ['prj_a'] });
    expect(final.name).toMatch(/^name [0-3]$/);
  });
});

describe('DELETE /archetypes/{id}', () => {
  it('deletes the archetype and answers with its id', async () => {
    const archetype = await newArchetype();

    const response = await api.request('DELETE', `/api/v1/archetypes/${archetype.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.deleteArchetype, response.body);
    expect(response.body).toEqual({ deletedId: archetype.id });
    expect((await get(archetype.id)).status).toBe(404);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('DELETE', '/api/v1/archetypes/sam_missing', { key: org.keys.admin });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's archetype and keeps it", async () => {
    const archetype = await newArchetype();

    const response = await api.request('DELETE', `/api/v1/archetypes/${archetype.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect((await get(archetype.id)).status).toBe(200);
  });

  it('answers 403 for a readonly key and keeps the archetype', async () => {
    const archetype = await newArchetype();

    const response = await api.request('DELETE', `/api/v1/archetypes/${archetype.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(403);
    expect((await get(archetype.id)).status).toBe(200);
  });
});
