import * as contract from '../../shared/contracts/feature-cleanup';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

let counter = 0;
const key = (prefix: string) => `${prefix}-${++counter}`;
const request = (method: string, path: string, body?: unknown, apiKey = org.keys.admin) => api.request(method, `/api/v1${path}`, { key: apiKey, body });
async function ok(method: string, path: string, body?: unknown, apiKey = org.keys.admin) {
  const response = await request(method, path, body, apiKey);
  expect(response.status).toBe(200);
  return response.body;
}
const createFeature = (body: Record<string, unknown>, apiKey = org.keys.admin) =>
  ok('POST', '/features', { valueType: 'string', defaultValue: 'a', ...body }, apiKey).then((b) => b.feature);

describe('POST /features/{id}/revert', () => {
  it("publishes an earlier revision's default value and rules again as a new revision", async () => {
    const id = key('revert');
    await createFeature({ id, environments: { production: { enabled: true, rules: [{ type: 'force', id: 'r1', value: 'forced' }] } } });
    await ok('POST', `/features/${id}`, { defaultValue: 'b', environments: { production: { rules: [] } } });

    const response = await request('POST', `/features/${id}/revert`, { revision: 1, comment: 'Back to the start' });

    expect(response.status).toBe(200);
    expectShape(contract.revertFeature, response.body);
    const { feature } = response.body;
    expect(feature.defaultValue).toBe('a');
    expect(feature.environments.production.rules).toEqual([expect.objectContaining({ id: 'r1', type: 'force', value: 'forced' })]);
    expect(feature.revision).toMatchObject({ version: 3, comment: 'Back to the start' });
  });

  it('keeps the rules of an environment where the revision had none, as GrowthBook does', async () => {
    const id = key('revert-keep');
    await createFeature({ id });
    await ok('POST', `/features/${id}`, { defaultValue: 'b', environments: { production: { rules: [{ type: 'force', id: 'added', value: 'x' }] } } });

    const { feature } = await ok('POST', `/features/${id}/revert`, { revision: 1 });

    expect(feature.defaultValue).toBe('a');
    expect(feature.environments.production.rules.map((rule: { id: string }) => rule.id)).toEqual(['added']);
    expect(feature.revision.comment).toBe('Reverted to revision 1');
  });

  it('changes what SDKs get', async () => {
    const fresh = await createTestOrg('Revert payload org');
    const id = key('revert-sdk');
    const clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }, fresh.keys.admin)).sdkConnection.key;
    await createFeature({ id, environments: { production: { enabled: true } } }, fresh.keys.admin);
    await ok('POST', `/features/${id}`, { defaultValue: 'b' }, fresh.keys.admin);

    await ok('POST', `/features/${id}/revert`, { revision: 1 }, fresh.keys.admin);

    const payload = (await api.request('GET', `/api/features/${clientKey}`)).body;
    expect(payload.features[id].defaultValue).toBe('a');
  });

  it.each([
    ['the live revision', { revision: 2 }, /\[revision\] 2 is the live revision/],
    ['a revision that does not exist', { revision: 9 }, /\[revision\] feature .* has no revision 9/],
    ['a revision that is not an integer', { revision: 1.5 }, /\[revision\]/],
    ['no revision', {}, /\[revision\]/],
    ['an unknown field', { revision: 1, force: true }, /force/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const id = key('revert-bad');
    await createFeature({ id });
    const current = await ok('POST', `/features/${id}`, { defaultValue: 'b' });

    const response = await request('POST', `/features/${id}/revert`, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await ok('GET', `/features/${id}`)).feature).toEqual(current.feature);
  });

  it('answers 403 to a readonly key', async () => {
    const id = key('revert-ro');
    await createFeature({ id });
    await ok('POST', `/features/${id}`, { defaultValue: 'b' });

    const response = await request('POST', `/features/${id}/revert`, { revision: 1 }, org.keys.readonly);

    expect(response.status).toBe(403);
    expect((await ok('GET', `/features/${id}`)).feature.defaultValue).toBe('b');
  });

  it("answers 404 for an unknown feature and for another organization's feature", async () => {
    const id = key('revert-other');
    await createFeature({ id }, other.keys.admin);
    await ok('POST', `/features/${id}`, { defaultValue: 'b' }, other.keys.admin);

    const unknown = await request('POST', '/features/nope/revert', { revision: 1 });
    const foreign = await request('POST', `/features/${id}/revert`, { revision: 1 });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect((await ok('GET', `/features/${id}`, undefined, other.keys.admin)).feature.defaultValue).toBe('b');
  });
});

describe('GET /stale-features', () => {
  let stale: TestOrg;
  const ids: Record<string, string> = {};

  /** Moves a feature's last change back in time, as if nobody had touched it since. */
  const age = (orgId: string, id: string, daysAgo: number) =>
    db.update({
      TableName: tableName(),
      Key: keys.entity(orgId, 'FEATURE', id),
      UpdateExpression: 'SET dateUpdated = :date',
      ExpressionAttributeValues: { ':date': new Date(Date.now() - daysAgo * 86_400_000).toISOString() },
    });

  beforeAll(async () => {
    stale = await createTestOrg('Stale org');
    await ok('POST', '/projects', { name: 'Web' }, stale.keys.admin).then((b) => (ids.project = b.project.id));
    const make = async (name: string, body: Record<string, unknown>, daysAgo: number) => {
      ids[name] = key(name);
      await createFeature({ id: ids[name], ...body }, stale.keys.admin);
      if (daysAgo) await age(stale.orgId, ids[name], daysAgo);
    };
    await make('noRules', { environments: { production: { enabled: true } } }, 30);
    await make('oneSided', { project: ids.project, environments: { production: { enabled: true, rules: [{ type: 'rollout', value: 'b', coverage: 1, hashAttribute: 'id' }] } } }, 40);
    await make('targeted', { environments: { production: { enabled: true, rules: [{ type: 'force', value: 'b', condition: '{"country":"US"}' }] } } }, 50);
    await make('fresh', { environments: { production: { enabled: true } } }, 0);
    await make('archived', { archived: true }, 0);
    await make('parent', { valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true } } }, 60);
    await make('child', { prerequisites: [ids.parent], environments: { production: { enabled: true } } }, 0);
    await createFeature({ id: ids.noRules }, other.keys.admin);
  });

  it('lists the stale and archived features, least recently updated first, with the value to keep per environment', async () => {
    const response = await request('GET', '/stale-features', undefined, stale.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.getStaleFeatures, response.body);
    expect(response.body.features.map((f: { id: string }) => f.id)).toEqual([ids.oneSided, ids.noRules, ids.archived]);
    const byId = Object.fromEntries(response.body.features.map((f: { id: string }) => [f.id, f]));
    // dev is not in the body, so it starts as its defaultState (on) says and serves the default value.
    expect(byId[ids.oneSided].environments).toEqual({ production: { value: 'b' }, dev: { value: 'a' } });
    expect(byId[ids.noRules].environments).toEqual({ production: { value: 'a' }, dev: { value: 'a' } });
    expect(byId[ids.archived]).toMatchObject({ archived: true, valueType: 'string', customFields: {}, environments: { production: { value: null }, dev: { value: null } } });
    expect(response.body).toMatchObject({ total: 3, count: 3, hasMore: false });
  });

  it('checks only the flagIds asked for, given repeated or comma-separated', async () => {
    const repeated = await request('GET', `/stale-features?flagIds=${ids.noRules}&flagIds=${ids.targeted}&flagIds=${ids.fresh}`, undefined, stale.keys.readonly);
    const commas = await request('GET', `/stale-features?flagIds=${ids.noRules},${ids.oneSided}`, undefined, stale.keys.readonly);

    expect(repeated.body.features.map((f: { id: string }) => f.id)).toEqual([ids.noRules]);
    expect(commas.body.features.map((f: { id: string }) => f.id)).toEqual([ids.oneSided, ids.noRules]);
  });

  it('filters by project and paginates', async () => {
    const inProject = await request('GET', `/stale-features?projectId=${ids.project}`, undefined, stale.keys.readonly);
    const page = await request('GET', '/stale-features?limit=1&offset=1', undefined, stale.keys.readonly);

    expect(inProject.body.features.map((f: { id: string }) => f.id)).toEqual([ids.oneSided]);
    expect(page.body).toMatchObject({ limit: 1, offset: 1, count: 1, total: 3, hasMore: true, nextOffset: 2 });
    expect(page.body.features.map((f: { id: string }) => f.id)).toEqual([ids.noRules]);
  });

  it("never shows another organization's features", async () => {
    const response = await request('GET', '/stale-features', undefined, other.keys.readonly);

    expect(response.body.features).toEqual([]);
  });

  it('answers 400 for an unknown query parameter and 403 without the read permission', async () => {
    const typo = await request('GET', '/stale-features?flagId=x', undefined, stale.keys.readonly);
    const noAccess = await request('GET', '/stale-features', undefined, stale.keys.noaccess);

    expect(typo.status).toBe(400);
    expect(typo.body.message).toMatch(/flagId/);
    expect(noAccess.status).toBe(403);
  });
});
