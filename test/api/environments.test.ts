import * as contract from '../../shared/contracts/environments';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const list = async (key = org.keys.admin) => (await api.request('GET', '/api/v1/environments', { key })).body.environments as { id: string }[];
const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/environments', { key, body });

describe('GET /environments', () => {
  it('lists production and dev for a new organization, without store fields', async () => {
    const fresh = await createTestOrg();

    const response = await api.request('GET', '/api/v1/environments', { key: fresh.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.listEnvironments, response.body);
    // Both are created in one transaction, often in the same millisecond, so their order is not fixed.
    expect(response.body.environments.map((e: { id: string }) => e.id).sort()).toEqual(['dev', 'production']);
    expect(response.body.environments[0]).not.toHaveProperty('dateCreated');
  });

  it('answers 403 for a noaccess key', async () => {
    const response = await api.request('GET', '/api/v1/environments', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});

describe('POST /environments', () => {
  it('creates an environment with the id the client chose and defaults', async () => {
    const response = await create({ id: 'staging', description: 'Staging' });

    expect(response.status).toBe(200);
    expectShape(contract.postEnvironment, response.body);
    expect(response.body.environment).toEqual({
      id: 'staging',
      description: 'Staging',
      toggleOnList: false,
      defaultState: false,
      projects: [],
    });
    expect((await list()).map((e) => e.id)).toContain('staging');
  });

  it('accepts a parent environment and existing projects', async () => {
    const project = (await api.request('POST', '/api/v1/projects', { key: org.keys.admin, body: { name: 'Env project' } })).body.project;

    const response = await create({ id: 'qa', parent: 'dev', projects: [project.id], toggleOnList: true, defaultState: false });

    expect(response.status).toBe(200);
    expect(response.body.environment).toMatchObject({ parent: 'dev', projects: [project.id], toggleOnList: true, defaultState: false });
  });

  it('answers 409 when the id is taken', async () => {
    const response = await create({ id: 'production' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('already_exists');
  });

  it.each([
    ['a missing id', { description: 'x' }, /\[id\]/],
    ['an id with spaces', { id: 'my env' }, /\[id\]/],
    ['an unknown parent', { id: 'child', parent: 'nowhere' }, /\[parent\] no environment nowhere/],
    ['an unknown project', { id: 'proj', projects: ['prj_missing'] }, /\[projects\] unknown project prj_missing/],
    ['a non-boolean defaultState', { id: 'bool', defaultState: 'yes' }, /\[defaultState\]/],
    ['an unknown field', { id: 'extra', colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const before = (await list()).length;

    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((await list()).length).toBe(before);
  });

  it('answers 403 for an engineer key: environments need the manage permission', async () => {
    const response = await create({ id: 'forbidden' }, org.keys.engineer);

    expect(response.status).toBe(403);
  });
});

describe('PUT /environments/{id}', () => {
  it('changes only the given fields', async () => {
    await create({ id: 'edit-me', description: 'kept', toggleOnList: true });

    const response = await api.request('PUT', '/api/v1/environments/edit-me', { key: org.keys.admin, body: { defaultState: false } });

    expect(response.status).toBe(200);
    expectShape(contract.putEnvironment, response.body);
    expect(response.body.environment).toEqual({ id: 'edit-me', description: 'kept', toggleOnList: true, defaultState: false, projects: [] });
  });

  it('answers 400 for an unknown project and changes nothing', async () => {
    const response = await api.request('PUT', '/api/v1/environments/dev', { key: org.keys.admin, body: { projects: ['prj_missing'] } });

    expect(response.status).toBe(400);
    expect((await list()).find((e) => e.id === 'dev')).toMatchObject({ projects: [] });
  });

  it('answers 400 for an id in the body', async () => {
    const response = await api.request('PUT', '/api/v1/environments/dev', { key: org.keys.admin, body: { id: 'renamed' } });

    expect(response.status).toBe(400);
  });

  it("answers 404 for an unknown or another organization's environment", async () => {
    await create({ id: 'only-mine' });

    const unknown = await api.request('PUT', '/api/v1/environments/nowhere', { key: org.keys.admin, body: { description: 'x' } });
    const foreign = await api.request('PUT', '/api/v1/environments/only-mine', { key: other.keys.admin, body: { description: 'x' } });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });

  it('answers 403 for an engineer key', async () => {
    const response = await api.request('PUT', '/api/v1/environments/dev', { key: org.keys.engineer, body: { description: 'x' } });

    expect(response.status).toBe(403);
  });
});

describe('DELETE /environments/{id}', () => {
  it('deletes the environment', async () => {
    await create({ id: 'doomed' });

    const response = await api.request('DELETE', '/api/v1/environments/doomed', { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deletedId: 'doomed' });
    expect((await list()).map((e) => e.id)).not.toContain('doomed');
  });

  it('answers 409 while another environment inherits from it', async () => {
    await create({ id: 'base' });
    await create({ id: 'derived', parent: 'base' });

    const response = await api.request('DELETE', '/api/v1/environments/base', { key: org.keys.admin });

    expect(response.status).toBe(409);
    expect(response.body.message).toMatch(/derived/);
    expect((await list()).map((e) => e.id)).toContain('base');
  });

  it("answers 404 for another organization's environment and keeps it", async () => {
    await create({ id: 'kept-env' });

    const response = await api.request('DELETE', '/api/v1/environments/kept-env', { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect((await list()).map((e) => e.id)).toContain('kept-env');
  });

  it('answers 403 for an engineer key', async () => {
    const response = await api.request('DELETE', '/api/v1/environments/dev', { key: org.keys.engineer });

    expect(response.status).toBe(403);
  });
});
