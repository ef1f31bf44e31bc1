import { createHoldout, getHoldout } from '../../shared/contracts/holdouts';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/holdouts', { key, body });
const read = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/holdouts/${id}`, { key });
const update = (id: string, body: unknown) => api.request('PUT', `/api/v1/holdouts/${id}`, { key: org.keys.admin, body });
const stage = (id: string, body: unknown) => api.request('POST', `/api/v1/holdouts/${id}/stage`, { key: org.keys.admin, body });

describe('POST /holdouts', () => {
  it('creates a draft with GrowthBook defaults: 5% held out, bucketed by id, its id as tracking key', async () => {
    const response = await create({ name: 'Q3 holdout' });

    expect(response.status).toBe(200);
    expectShape(createHoldout, response.body);
    expect(response.body.holdout).toMatchObject({ name: 'Q3 holdout', stage: 'draft', holdoutSize: 0.05, hashAttribute: 'id', projects: [], environments: {} });
    expect(response.body.holdout.trackingKey).toBe(response.body.holdout.id);
    expect(response.body.holdout.id).toMatch(/^hld_/);
  });

  it.each([
    ['a size over one half', { name: 'Big', holdoutSize: 0.6 }, /\[holdoutSize\]/],
    ['an unknown environment', { name: 'Env', environments: { moon: { enabled: true } } }, /\[environments\.moon\]/],
    ['an unknown project', { name: 'Proj', projects: ['prj_missing'] }, /\[projects\]/],
    ['an unknown field', { name: 'Extra', stage: 'running' }, /stage/],
  ])('refuses %s with 400 naming it', async (_case, body, message) => {
    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('is refused to a read-only key', async () => {
    expect((await create({ name: 'Nope' }, org.keys.readonly)).status).toBe(403);
  });
});

describe('GET /holdouts', () => {
  it('reads one by id, and 404 for another organization', async () => {
    const { holdout } = (await create({ name: 'Mine' })).body;

    const mine = await read(holdout.id, org.keys.readonly);
    const foreign = await read(holdout.id, other.keys.admin);

    expectShape(getHoldout, mine.body);
    expect(mine.body.holdout).toEqual(holdout);
    expect(foreign.status).toBe(404);
  });

  it('lists them, filtered by stage', async () => {
    const { holdout } = (await create({ name: 'Listed' })).body;
    await stage(holdout.id, { stage: 'running' });

    const running = await api.request('GET', '/api/v1/holdouts?stage=running', { key: org.keys.admin });
    const drafts = await api.request('GET', '/api/v1/holdouts?stage=draft', { key: org.keys.admin });

    expect(running.body.holdouts.map((h: { id: string }) => h.id)).toContain(holdout.id);
    expect(drafts.body.holdouts.map((h: { id: string }) => h.id)).not.toContain(holdout.id);
  });
});

describe('PUT /holdouts/{id} and POST /holdouts/{id}/stage', () => {
  it('updates the fields given and replaces the environments', async () => {
    const { holdout } = (await create({ name: 'Before', environments: { production: { enabled: true } } })).body;

    const response = await update(holdout.id, { name: 'After', holdoutSize: 0.1, environments: {} });

    expect(response.status).toBe(200);
    expect(response.body.holdout).toMatchObject({ name: 'After', holdoutSize: 0.1, environments: {}, hashAttribute: 'id' });
  });

  it('leaves the holdout unchanged when the update is refused', async () => {
    const { holdout } = (await create({ name: 'Kept' })).body;

    const response = await update(holdout.id, { name: 'Changed', environments: { moon: { enabled: true } } });

    expect(response.status).toBe(400);
    expect((await read(holdout.id)).body.holdout.name).toBe('Kept');
  });

  it('records when it started and stopped, and will not go back to draft', async () => {
    const { holdout } = (await create({ name: 'Staged' })).body;

    const started = await stage(holdout.id, { stage: 'running' });
    const stopped = await stage(holdout.id, { stage: 'stopped' });
    const back = await stage(holdout.id, { stage: 'draft' });

    expect(started.body.holdout.dateStarted).toEqual(expect.any(String));
    expect(stopped.body.holdout).toMatchObject({ stage: 'stopped', dateStarted: started.body.holdout.dateStarted, dateStopped: expect.any(String) });
    expect(back.status).toBe(400);
    expect(back.body.message).toMatch(/\[stage\]/);
  });

  it('answers 404 for an unknown holdout', async () => {
    expect((await update('hld_missing', { name: 'x' })).status).toBe(404);
    expect((await stage('hld_missing', { stage: 'running' })).status).toBe(404);
  });
});
