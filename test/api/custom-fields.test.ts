import * as contract from '../../shared/contracts/custom-fields';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;
let project: string;

const request = (method: string, path: string, payload?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body: payload });

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  project = (await request('POST', '/projects', { name: 'Web' })).body.project.id;
});
afterAll(() => api.close());

let counter = 0;
const body = (fields: Record<string, unknown> = {}) => ({ id: `jira_${++counter}`, name: 'Jira ticket', type: 'url', required: false, section: 'feature', ...fields });
const create = (fields: Record<string, unknown> = {}, key = org.keys.admin) => request('POST', '/custom-fields', body(fields), key);

describe('POST /custom-fields', () => {
  it('creates an active field under the key given, with its creator when a member creates it', async () => {
    const response = await create({ defaultValue: 'https://jira.example.com', description: 'Ticket link' }, org.admin.token);

    expect(response.status).toBe(200);
    expectShape(contract.createCustomField, response.body);
    expect(response.body.customField).toEqual({
      id: `jira_${counter}`,
      name: 'Jira ticket',
      type: 'url',
      required: false,
      section: 'feature',
      defaultValue: 'https://jira.example.com',
      description: 'Ticket link',
      active: true,
      creator: org.admin.memberId,
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
    });
  });

  it('answers 409 for a key another field has', async () => {
    const first = (await create()).body.customField;

    const response = await request('POST', '/custom-fields', { ...body(), id: first.id });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('already_exists');
  });

  it.each([
    ['an unknown type', { type: 'color' }, /\[type\]/],
    ['an unknown section', { section: 'metric' }, /\[section\]/],
    ['no required flag', { required: undefined }, /\[required\]/],
    ['an unknown project', { projects: ['prj_missing'] }, /\[projects\.0\]/],
    ['an unknown field', { active: false }, /active/],
  ])('answers 400 for %s and stores nothing', async (_case, fields, message) => {
    const before = (await request('GET', '/custom-fields')).body.length;

    const response = await create(fields);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await request('GET', '/custom-fields')).body).toHaveLength(before);
  });

  it('answers 403 without the manage permission', async () => {
    expect((await create({}, org.keys.experimenter)).status).toBe(403);
  });
});

describe('GET /custom-fields and /custom-fields/{id}', () => {
  it("lists the organization's fields (for a project: its own and those of every project) and gets one", async () => {
    const fresh = await createTestOrg('List org');
    const freshProject = (await request('POST', '/projects', { name: 'Web' }, fresh.keys.admin)).body.project.id;
    const everywhere = (await create({}, fresh.keys.admin)).body.customField;
    const scoped = (await create({ projects: [freshProject] }, fresh.keys.admin)).body.customField;
    const elsewhere = (await request('POST', '/projects', { name: 'Other' }, fresh.keys.admin)).body.project.id;
    const notHere = (await create({ projects: [elsewhere] }, fresh.keys.admin)).body.customField;
    await create({}, other.keys.admin);

    const all = await request('GET', '/custom-fields', undefined, fresh.keys.readonly);
    const forProject = await request('GET', `/custom-fields?projectId=${freshProject}`, undefined, fresh.keys.readonly);
    const one = await request('GET', `/custom-fields/${scoped.id}`, undefined, fresh.keys.readonly);

    expect(all.status).toBe(200);
    expectShape(contract.listCustomFields, all.body);
    expect(all.body).toEqual([everywhere, scoped, notHere]);
    expect(forProject.body).toEqual([everywhere, scoped]);
    expect(one.body).toEqual({ customField: scoped });
  });

  it("answers 404 for another organization's field and 400 for an unknown query parameter", async () => {
    const theirs = (await create({}, other.keys.admin)).body.customField;

    const foreign = await request('GET', `/custom-fields/${theirs.id}`, undefined, org.keys.readonly);
    const typo = await request('GET', '/custom-fields?project=x');

    expect(foreign.status).toBe(404);
    expect(typo.status).toBe(400);
  });
});

describe('PUT and DELETE /custom-fields/{id}', () => {
  it('updates the given fields and deletes', async () => {
    const created = (await create()).body.customField;

    const updated = await request('PUT', `/custom-fields/${created.id}`, { name: 'Ticket', required: true, projects: [project] });
    const deleted = await request('DELETE', `/custom-fields/${created.id}`);

    expect(updated.status).toBe(200);
    expectShape(contract.updateCustomField, updated.body);
    expect(updated.body.customField).toEqual({ ...created, name: 'Ticket', required: true, projects: [project], dateUpdated: expect.any(String) });
    expect(deleted.body).toEqual({ deletedId: created.id });
    expect((await request('GET', `/custom-fields/${created.id}`)).status).toBe(404);
  });

  it('answers 400 for a changed id and keeps the field', async () => {
    const created = (await create()).body.customField;

    const response = await request('PUT', `/custom-fields/${created.id}`, { id: 'renamed' });

    expect(response.status).toBe(400);
    expect((await request('GET', `/custom-fields/${created.id}`)).body.customField).toEqual(created);
  });

  it("answers 404 for another organization's field, which stays, and 403 without manage", async () => {
    const theirs = (await create({}, other.keys.admin)).body.customField;
    const mine = (await create()).body.customField;

    const responses = await Promise.all([
      request('PUT', `/custom-fields/${theirs.id}`, { name: 'Mine now' }),
      request('DELETE', `/custom-fields/${theirs.id}`),
      request('PUT', `/custom-fields/${mine.id}`, { name: 'x' }, org.keys.engineer),
      request('DELETE', `/custom-fields/${mine.id}`, undefined, org.keys.engineer),
    ]);

    expect(responses.map((r) => r.status)).toEqual([404, 404, 403, 403]);
    expect((await request('GET', `/custom-fields/${theirs.id}`, undefined, other.keys.admin)).body.customField).toEqual(theirs);
  });
});
