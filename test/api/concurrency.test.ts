import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * Many clients changing the same resource at once: every change the API accepted is in the final
 * state, and of many creates of the same id exactly one wins.
 */
let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Concurrency');
});
afterAll(() => api.close());

/** Different clients: an organization key of each writing role and a personal access token. */
const clients = () => [org.keys.admin, org.keys.engineer, org.keys.experimenter, org.admin.token];
const clientFor = (i: number) => clients()[i % clients().length];

async function concurrently(changes: { path: string; method: string; body: unknown }[]) {
  return Promise.all(changes.map((change, i) => api.request(change.method, change.path, { key: clientFor(i), body: change.body })));
}

describe('concurrent partial updates', () => {
  it('lose no accepted change to a feature', async () => {
    const id = `busy-feature-${Date.now()}`;
    // Off everywhere to start with, so turning production on is a change.
    const off = { production: { enabled: false }, dev: { enabled: false } };
    await api.request('POST', '/api/v1/features', { key: org.keys.admin, body: { id, valueType: 'string', defaultValue: 'a', environments: off } });
    const changes = [
      { description: 'described' },
      { tags: ['t1', 't2'] },
      { environments: { production: { enabled: true } } },
      { environments: { dev: { enabled: true, rules: [{ type: 'force', value: 'forced', condition: '{"beta":true}' }] } } },
      { customFields: { team: 'growth' } },
      { defaultValue: 'b' },
      { owner: org.admin.email },
      { archived: true },
    ];

    const responses = await concurrently(changes.map((body) => ({ method: 'POST', path: `/api/v1/features/${id}`, body })));
    const final = (await api.request('GET', `/api/v1/features/${id}`, { key: org.keys.admin })).body.feature;

    const accepted = responses.map((r, i) => [r.status, changes[i]] as const).filter(([status]) => status === 200);
    expect(responses.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect(accepted.length).toBeGreaterThanOrEqual(changes.length - 1);
    for (const [, change] of accepted) {
      if ('description' in change) expect(final.description).toBe('described');
      if ('tags' in change) expect(final.tags).toEqual(['t1', 't2']);
      if ('environments' in change && 'production' in change.environments!) expect(final.environments.production.enabled).toBe(true);
      if ('environments' in change && 'dev' in change.environments!) {
        expect(final.environments.dev.enabled).toBe(true);
        expect(final.environments.dev.rules).toHaveLength(1);
      }
      if ('customFields' in change) expect(final.customFields).toEqual({ team: 'growth' });
      if ('defaultValue' in change) expect(final.defaultValue).toBe('b');
      if ('owner' in change) expect(final.owner).toBe(org.admin.memberId);
      if ('archived' in change) expect(final.archived).toBe(true);
    }
    expect(final.revision.version).toBe(1 + accepted.length);
  });

  it('lose no accepted change to a segment', async () => {
    const created = await api.request('POST', '/api/v1/segments', {
      key: org.keys.admin,
      body: { name: 'Annual', datasourceId: 'ds_main', identifierType: 'user_id', type: 'SQL', query: 'SELECT 1' },
    });
    const id = created.body.segment.id;
    const changes = [{ name: 'Renamed' }, { description: 'described' }, { query: 'SELECT 2' }, { identifierType: 'anonymous_id' }, { projects: [] }];

    const responses = await concurrently(changes.map((body) => ({ method: 'POST', path: `/api/v1/segments/${id}`, body })));
    const final = (await api.request('GET', `/api/v1/segments/${id}`, { key: org.keys.admin })).body.segment;

    responses.forEach((response, i) => {
      expect([200, 409]).toContain(response.status);
      if (response.status === 200) expect(final).toMatchObject(changes[i]);
    });
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(changes.length - 1);
  });

  it('lose no accepted change to a team', async () => {
    const created = await api.request('POST', '/api/v1/teams', {
      key: org.keys.admin,
      body: { name: 'Team', description: '', role: 'readonly' },
    });
    const id = created.body.team.id;
    const changes = [{ name: 'Renamed' }, { description: 'described' }, { role: 'engineer' }, { limitAccessByEnvironment: true }, { environments: ['dev'] }];

    // Teams are managed by admins only, so every client here is an admin key or token.
    const responses = await Promise.all(
      changes.map((body, i) => api.request('PUT', `/api/v1/teams/${id}`, { key: i % 2 ? org.admin.token : org.keys.admin, body })),
    );
    const final = (await api.request('GET', `/api/v1/teams/${id}`, { key: org.keys.admin })).body.team;

    responses.forEach((response, i) => {
      expect([200, 409]).toContain(response.status);
      if (response.status === 200) expect(final).toMatchObject(changes[i]);
    });
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(changes.length - 1);
  });
});

describe('concurrent creates of the same id', () => {
  it.each([
    ['feature', '/api/v1/features', (id: string) => ({ id, valueType: 'boolean', defaultValue: 'false' })],
    ['attribute', '/api/v1/attributes', (id: string) => ({ property: id, datatype: 'string' })],
    ['environment', '/api/v1/environments', (id: string) => ({ id, description: 'racing' })],
  ])('let exactly one %s win and answer 409 already_exists to the rest', async (_kind, path, body) => {
    const id = `race-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.request('POST', path, { key: i % 2 ? org.keys.admin : org.admin.token, body: body(id) })),
    );

    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    const losers = responses.filter((r) => r.status !== 200);
    expect(losers.map((r) => r.status)).toEqual(Array(5).fill(409));
    expect(losers.every((r) => r.body.code === 'already_exists')).toBe(true);
  });
});
