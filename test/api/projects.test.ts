import * as contract from '../../shared/contracts/projects';
import { dynamoMeter } from '../../shared/db/client';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/projects', { key, body });
const count = async (key = org.keys.admin) => (await api.request('GET', '/api/v1/projects?limit=100', { key })).body.total;

describe('POST /projects', () => {
  it('creates a project with a prj_ id and a publicId made from its name', async () => {
    const response = await create({ name: 'Checkout Flow', description: 'Payments' });

    expect(response.status).toBe(200);
    expectShape(contract.postProject, response.body);
    expect(response.body.project).toMatchObject({
      id: expect.stringMatching(/^prj_/),
      name: 'Checkout Flow',
      description: 'Payments',
      publicId: 'checkout-flow',
      settings: {},
    });
  });

  it('numbers a generated publicId that another project already has', async () => {
    const fresh = await createTestOrg();
    await create({ name: 'Mobile' }, fresh.keys.admin);

    const response = await create({ name: 'mobile!' }, fresh.keys.admin);

    expect(response.body.project.publicId).toBe('mobile-2');
  });

  it('keeps a given publicId and stats settings', async () => {
    const response = await create({
      name: 'Web',
      publicId: 'web-main',
      settings: { statsEngine: 'frequentist', confidenceLevel: 0.95, pValueThreshold: 0.05 },
    });

    expect(response.status).toBe(200);
    expect(response.body.project).toMatchObject({
      publicId: 'web-main',
      settings: { statsEngine: 'frequentist', confidenceLevel: 0.95, pValueThreshold: 0.05 },
    });
  });

  it('answers 409 for a publicId another project has', async () => {
    await create({ name: 'First', publicId: 'taken-id' });

    const response = await create({ name: 'Second', publicId: 'taken-id' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('already_exists');
  });

  it('numbers generated publicIds while they are taken, and gives a random suffix after ten', async () => {
    const fresh = await createTestOrg();
    const made = [];
    for (let i = 0; i < 11; i++) made.push((await create({ name: 'Shop' }, fresh.keys.admin)).body.project.publicId);

    expect(made.slice(0, 10)).toEqual(['shop', 'shop-2', 'shop-3', 'shop-4', 'shop-5', 'shop-6', 'shop-7', 'shop-8', 'shop-9', 'shop-10']);
    expect(made[10]).toMatch(/^shop-[0-9a-f]{6}$/);
  });

  it('reads no other project: one transaction, however many projects the organization has', async () => {
    const fresh = await createTestOrg();
    for (let i = 0; i < 5; i++) await create({ name: `Existing ${i}` }, fresh.keys.admin);

    dynamoMeter.reset();
    const response = await create({ name: 'One more' }, fresh.keys.admin);

    expect(response.status).toBe(200);
    expect(dynamoMeter.snapshot().calls).toBe(1);
  });

  it('answers 409 to all but one of concurrent creates with the same publicId', async () => {
    const fresh = await createTestOrg();

    const responses = await Promise.all(Array.from({ length: 5 }, () => create({ name: 'Race', publicId: 'raced' }, fresh.keys.admin)));

    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await count(fresh.keys.admin)).toBe(1);
  });

  it.each([
    ['a missing name', { description: 'x' }, /\[name\]/],
    ['an empty name', { name: '  ' }, /\[name\]/],
    ['a publicId that is not a slug', { name: 'x', publicId: 'Not A Slug' }, /\[publicId\]/],
    ['an unknown stats engine', { name: 'x', settings: { statsEngine: 'magic' } }, /\[settings\.statsEngine\]/],
    ['a confidence level above 1', { name: 'x', settings: { confidenceLevel: 95 } }, /\[settings\.confidenceLevel\]/],
    ['an unknown setting', { name: 'x', settings: { colour: 'red' } }, /colour/],
    ['an unknown field', { name: 'x', colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const before = await count();

    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await count()).toBe(before);
  });

  it.each(['engineer', 'experimenter'] as const)('answers 403 for an %s key: projects need the manage permission', async (role) => {
    const response = await create({ name: 'x' }, org.keys[role]);

    expect(response.status).toBe(403);
  });
});

describe('GET /projects/{id}', () => {
  it('returns the project to a readonly key', async () => {
    const { body: created } = await create({ name: 'Readable' });

    const response = await api.request('GET', `/api/v1/projects/${created.project.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getProject, response.body);
    expect(response.body).toEqual(created);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('GET', '/api/v1/projects/prj_missing', { key: org.keys.admin });

    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });

  it('answers 404 when the project belongs to another organization', async () => {
    const { body: created } = await create({ name: 'Private' });

    const response = await api.request('GET', `/api/v1/projects/${created.project.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
  });

  it('answers 403 for a noaccess key', async () => {
    const response = await api.request('GET', '/api/v1/projects/prj_missing', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});

describe('GET /projects', () => {
  it('pages through projects in creation order', async () => {
    const fresh = await createTestOrg();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ name: `p${i}` }, fresh.keys.admin)).body.project.id);

    const first = await api.request('GET', '/api/v1/projects?limit=2', { key: fresh.keys.readonly });
    const last = await api.request('GET', '/api/v1/projects?limit=2&offset=2', { key: fresh.keys.readonly });

    expectShape(contract.listProjects, first.body);
    expect(first.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 3, hasMore: true, nextOffset: 2 });
    expect(first.body.projects.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 2));
    expect(last.body).toMatchObject({ count: 1, total: 3, hasMore: false, nextOffset: null });
  });

  it('answers 400 for a limit over 100', async () => {
    const response = await api.request('GET', '/api/v1/projects?limit=101', { key: org.keys.admin });

    expect(response.status).toBe(400);
  });
});

describe('PUT /projects/{id}', () => {
  it('changes only the given fields, and replaces the whole settings object as GrowthBook does', async () => {
    const { body: created } = await create({ name: 'Before', description: 'kept', settings: { statsEngine: 'bayesian' } });

    const response = await api.request('PUT', `/api/v1/projects/${created.project.id}`, {
      key: org.keys.admin,
      body: { name: 'After', settings: { confidenceLevel: 0.9 } },
    });

    expect(response.status).toBe(200);
    expectShape(contract.putProject, response.body);
    expect(response.body.project).toMatchObject({
      name: 'After',
      description: 'kept',
      publicId: created.project.publicId,
      settings: { confidenceLevel: 0.9 },
    });
  });

  it('keeps the settings when none are given', async () => {
    const { body: created } = await create({ name: 'Kept', settings: { statsEngine: 'bayesian' } });

    const response = await api.request('PUT', `/api/v1/projects/${created.project.id}`, { key: org.keys.admin, body: { name: 'Renamed' } });

    expect(response.body.project.settings).toEqual({ statsEngine: 'bayesian' });
  });

  it('answers 409 for a publicId another project has, and lets a project keep its own', async () => {
    const { body: a } = await create({ name: 'A', publicId: 'put-a' });
    const { body: b } = await create({ name: 'B', publicId: 'put-b' });

    const clash = await api.request('PUT', `/api/v1/projects/${b.project.id}`, { key: org.keys.admin, body: { publicId: 'put-a' } });
    const same = await api.request('PUT', `/api/v1/projects/${a.project.id}`, { key: org.keys.admin, body: { publicId: 'put-a' } });

    expect(clash.status).toBe(409);
    expect(same.status).toBe(200);
  });

  it('frees the old publicId when a project takes another one', async () => {
    const { body: a } = await create({ name: 'Mover', publicId: 'moving-from' });

    const moved = await api.request('PUT', `/api/v1/projects/${a.project.id}`, { key: org.keys.admin, body: { publicId: 'moving-to' } });
    const reuse = await create({ name: 'Newcomer', publicId: 'moving-from' });
    const clash = await create({ name: 'Late', publicId: 'moving-to' });

    expect(moved.body.project.publicId).toBe('moving-to');
    expect(reuse.status).toBe(200);
    expect(clash.status).toBe(409);
  });

  it('answers 400 for an unknown field', async () => {
    const { body: created } = await create({ name: 'Strict' });

    const response = await api.request('PUT', `/api/v1/projects/${created.project.id}`, { key: org.keys.admin, body: { owner: 'x' } });

    expect(response.status).toBe(400);
  });

  it("answers 404 for another organization's project", async () => {
    const { body: created } = await create({ name: 'Mine' });

    const response = await api.request('PUT', `/api/v1/projects/${created.project.id}`, { key: other.keys.admin, body: { name: 'x' } });

    expect(response.status).toBe(404);
  });

  it('answers 403 for an engineer key', async () => {
    const { body: created } = await create({ name: 'Guarded' });

    const response = await api.request('PUT', `/api/v1/projects/${created.project.id}`, { key: org.keys.engineer, body: { name: 'x' } });

    expect(response.status).toBe(403);
  });
});

describe('DELETE /projects/{id}', () => {
  it('deletes the project', async () => {
    const { body: created } = await create({ name: 'Doomed' });

    const response = await api.request('DELETE', `/api/v1/projects/${created.project.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deletedId: created.project.id });
    expect((await api.request('GET', `/api/v1/projects/${created.project.id}`, { key: org.keys.admin })).status).toBe(404);
  });

  it('frees the publicId of the deleted project', async () => {
    const { body: created } = await create({ name: 'Short lived', publicId: 'reusable' });

    await api.request('DELETE', `/api/v1/projects/${created.project.id}`, { key: org.keys.admin });
    const again = await create({ name: 'Second life', publicId: 'reusable' });

    expect(again.status).toBe(200);
    expect(again.body.project.publicId).toBe('reusable');
  });

  it("answers 404 for another organization's project and keeps it", async () => {
    const { body: created } = await create({ name: 'Keep' });

    const response = await api.request('DELETE', `/api/v1/projects/${created.project.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect((await api.request('GET', `/api/v1/projects/${created.project.id}`, { key: org.keys.admin })).status).toBe(200);
  });

  it('answers 403 for an engineer key', async () => {
    const { body: created } = await create({ name: 'Keep too' });

    const response = await api.request('DELETE', `/api/v1/projects/${created.project.id}`, { key: org.keys.engineer });

    expect(response.status).toBe(403);
  });
});
