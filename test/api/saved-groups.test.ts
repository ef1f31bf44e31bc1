import * as contract from '../../shared/contracts/saved-groups';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/saved-groups', { key, body });

describe('POST /saved-groups', () => {
  it('creates a condition group when only a condition is given', async () => {
    const response = await create({ name: 'US users', condition: '{"country":"US"}' });

    expect(response.status).toBe(200);
    expectShape(contract.postSavedGroup, response.body);
    expect(response.body.savedGroup).toMatchObject({
      id: expect.stringMatching(/^grp_/),
      type: 'condition',
      name: 'US users',
      condition: '{"country":"US"}',
      projects: [],
    });
  });

  it('creates a list group when attributeKey and values are given', async () => {
    const response = await create({ name: 'Beta', attributeKey: 'id', values: ['a', 'b'] });

    expect(response.status).toBe(200);
    expect(response.body.savedGroup).toMatchObject({ type: 'list', attributeKey: 'id', values: ['a', 'b'] });
  });

  it('resolves an owner e-mail to the member id', async () => {
    const response = await create({ name: 'Owned', condition: '{"id":"1"}', owner: org.admin.email });

    expect(response.status).toBe(200);
    expect(response.body.savedGroup).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it('accepts an owner id that names a member', async () => {
    const response = await create({ name: 'Owned by id', condition: '{"id":"1"}', owner: org.admin.memberId });

    expect(response.status).toBe(200);
    expect(response.body.savedGroup.owner).toBe(org.admin.memberId);
  });

  it.each([
    ['an unknown owner e-mail', { name: 'x', condition: '{"id":"1"}', owner: 'u_nobody' }, /\[owner\]/],
    ['an unknown owner id', { name: 'x', condition: '{"id":"1"}', owner: 'u_missing' }, /\[owner\]/],
    ["another organization's member as owner", { name: 'x', condition: '{"id":"1"}', owner: 'OTHER' }, /\[owner\]/],
    ['a missing name', { condition: '{"id":"1"}' }, /\[name\]/],
    ['neither a condition nor a list', { name: 'x' }, /\[type\]/],
    ['a condition that is not JSON', { name: 'x', condition: 'country = US' }, /\[condition\]/],
    ['a condition that is a JSON array', { name: 'x', condition: '[1]' }, /\[condition\]/],
    ['a list group without attributeKey', { name: 'x', type: 'list', values: ['a'] }, /\[attributeKey\]/],
    ['a condition group given values', { name: 'x', type: 'condition', condition: '{"id":"1"}', values: ['a'] }, /\[attributeKey\]/],
    ['an unknown type', { name: 'x', type: 'set', condition: '{"id":"1"}' }, /\[type\]/],
    ['values that are not strings', { name: 'x', attributeKey: 'id', values: [1] }, /\[values\.0\]/],
    ['an unknown field', { name: 'x', condition: '{"id":"1"}', colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, input, message) => {
    const body = { ...input, owner: (input as { owner?: string }).owner === 'OTHER' ? other.admin.memberId : (input as { owner?: string }).owner };
    const before = (await api.request('GET', '/api/v1/saved-groups?limit=100', { key: org.keys.admin })).body.total;

    const response = await create(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    const after = (await api.request('GET', '/api/v1/saved-groups?limit=100', { key: org.keys.admin })).body.total;
    expect(after).toBe(before);
  });

  it('answers 400 for malformed JSON', async () => {
    const response = await api.request('POST', '/api/v1/saved-groups', {
      key: org.keys.admin,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
  });

  it('answers 415 for a body that is neither JSON nor a form', async () => {
    const response = await api.request('POST', '/api/v1/saved-groups', {
      key: org.keys.admin,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });

    expect(response.status).toBe(415);
    expect(response.body.code).toBe('unsupported_media_type');
  });

  it('answers 413 for a body over 2 MB', async () => {
    const response = await create({ name: 'big', attributeKey: 'id', values: ['x'.repeat(2 * 1024 * 1024)] });

    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
  });

  it('answers 400, not 500, for a group too large to store', async () => {
    const values = Array.from({ length: 900 }, (_, i) => `${i}`.padEnd(1000, 'x'));

    const response = await create({ name: 'huge', attributeKey: 'id', values });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/too large/);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create({ name: 'x', condition: '{"id":"1"}' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it('lets an engineer key write', async () => {
    const response = await create({ name: 'engineer', condition: '{"id":"1"}' }, org.keys.engineer);

    expect(response.status).toBe(200);
  });
});

describe('GET /saved-groups/{id}', () => {
  it('returns the group', async () => {
    const { body: created } = await create({ name: 'Readable', condition: '{"a":1}' });

    const response = await api.request('GET', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getSavedGroup, response.body);
    expect(response.body).toEqual(created);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('GET', '/api/v1/saved-groups/grp_missing', { key: org.keys.admin });

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('grp_missing') });
  });

  it('answers 404 when the group belongs to another organization', async () => {
    const { body: created } = await create({ name: 'Private', condition: '{"id":"1"}' });

    const response = await api.request('GET', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
  });
});

describe('GET /saved-groups', () => {
  it('pages through groups in creation order', async () => {
    const fresh = await createTestOrg();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await create({ name: `g${i}`, condition: '{"id":"1"}' }, fresh.keys.admin)).body.savedGroup.id);
    }

    const first = await api.request('GET', '/api/v1/saved-groups?limit=2', { key: fresh.keys.readonly });
    const last = await api.request('GET', '/api/v1/saved-groups?limit=2&offset=4', { key: fresh.keys.readonly });

    expectShape(contract.listSavedGroups, first.body);
    expect(first.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 5, hasMore: true, nextOffset: 2 });
    expect(first.body.savedGroups.map((g: { id: string }) => g.id)).toEqual(ids.slice(0, 2));
    expect(last.body).toMatchObject({ limit: 2, offset: 4, count: 1, total: 5, hasMore: false, nextOffset: null });
    expect(last.body.savedGroups.map((g: { id: string }) => g.id)).toEqual(ids.slice(4));
  });

  it('never shows another organization its groups', async () => {
    const fresh = await createTestOrg();

    const response = await api.request('GET', '/api/v1/saved-groups', { key: fresh.keys.admin });

    expect(response.body).toMatchObject({ savedGroups: [], total: 0 });
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1'])('answers 400 for %s', async (query) => {
    const response = await api.request('GET', `/api/v1/saved-groups?${query}`, { key: org.keys.admin });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Querystring: \[(limit|offset)\]/);
  });
});

describe('POST /saved-groups/{id}', () => {
  it('changes only the given fields and bumps dateUpdated', async () => {
    const { body: created } = await create({ name: 'Before', attributeKey: 'id', values: ['a'], description: 'kept' });
    await new Promise((resolve) => setTimeout(resolve, 5));

    const response = await api.request('POST', `/api/v1/saved-groups/${created.savedGroup.id}`, {
      key: org.keys.admin,
      body: { name: 'After', values: ['b', 'c'] },
    });

    expect(response.status).toBe(200);
    expectShape(contract.updateSavedGroup, response.body);
    expect(response.body.savedGroup).toMatchObject({ name: 'After', values: ['b', 'c'], description: 'kept', attributeKey: 'id' });
    expect(response.body.savedGroup.dateCreated).toBe(created.savedGroup.dateCreated);
    expect(response.body.savedGroup.dateUpdated > created.savedGroup.dateUpdated).toBe(true);
  });

  it('refuses a condition on a list group and leaves it unchanged', async () => {
    const { body: created } = await create({ name: 'List', attributeKey: 'id', values: ['a'] });

    const response = await api.request('POST', `/api/v1/saved-groups/${created.savedGroup.id}`, {
      key: org.keys.admin,
      body: { condition: '{"id":"1"}' },
    });

    expect(response.status).toBe(400);
    const after = await api.request('GET', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.admin });
    expect(after.body).toEqual(created);
  });

  it.each([[{ type: 'condition' }], [{ attributeKey: 'email' }], [{ colour: 'red' }]])(
    'refuses %j, which an update cannot change',
    async (body) => {
      const { body: created } = await create({ name: 'Fixed', attributeKey: 'id', values: ['a'] });

      const response = await api.request('POST', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.admin, body });

      expect(response.status).toBe(400);
      expect((await api.request('GET', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.admin })).body).toEqual(created);
    },
  );

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('POST', '/api/v1/saved-groups/grp_missing', { key: org.keys.admin, body: { name: 'x' } });

    expect(response.status).toBe(404);
  });

  it('loses no write when many clients update different fields at once', async () => {
    const { body: created } = await create({ name: 'Busy', attributeKey: 'id', values: [] });
    const id = created.savedGroup.id;
    const project = (await api.request('POST', '/api/v1/projects', { key: org.keys.admin, body: { name: 'Busy project' } })).body.project.id;

    const responses = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) =>
        api.request('POST', `/api/v1/saved-groups/${id}`, { key: org.keys.admin, body: { name: `name ${i}` } }),
      ),
      api.request('POST', `/api/v1/saved-groups/${id}`, { key: org.keys.admin, body: { description: 'described' } }),
      api.request('POST', `/api/v1/saved-groups/${id}`, { key: org.keys.admin, body: { values: ['v'] } }),
      api.request('POST', `/api/v1/saved-groups/${id}`, { key: org.keys.admin, body: { projects: [project] } }),
    ]);

    expect(responses.map((r) => r.status)).toEqual(Array(7).fill(200));
    const final = (await api.request('GET', `/api/v1/saved-groups/${id}`, { key: org.keys.admin })).body.savedGroup;
    expect(final).toMatchObject({ description: 'described', values: ['v'], projects: [project] });
    expect(final.name).toMatch(/^name [0-3]$/);
  });
});

describe('DELETE /saved-groups/{id}', () => {
  it('deletes the group and answers with its id', async () => {
    const { body: created } = await create({ name: 'Doomed', condition: '{"id":"1"}' });

    const response = await api.request('DELETE', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deletedId: created.savedGroup.id });
    const after = await api.request('GET', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.admin });
    expect(after.status).toBe(404);
  });

  it("answers 404 for another organization's group and keeps it", async () => {
    const { body: created } = await create({ name: 'Keep', condition: '{"id":"1"}' });

    const response = await api.request('DELETE', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
    const after = await api.request('GET', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.admin });
    expect(after.status).toBe(200);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create({ name: 'Keep too', condition: '{"id":"1"}' });

    const response = await api.request('DELETE', `/api/v1/saved-groups/${created.savedGroup.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(403);
  });
});
