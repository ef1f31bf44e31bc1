import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';
import * as contract from '../../shared/contracts/feature-revisions';
import { latestRevisions } from '../../shared/store/feature-revisions';

let api: Api;
let org: TestOrg;
let clientKey: string;
const validRevision = referenceSchemaValidator('FeatureRevisionV2', 'growthbook-5.0.1-openapi.yaml');

const v1 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.admin, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** The revision as GrowthBook 5.0.1's document describes `FeatureRevisionV2`. */
function expectReferenceRevision(revision: unknown) {
  const valid = validRevision(revision);
  if (!valid) throw new Error(JSON.stringify(validRevision.errors, null, 2));
}

let counter = 0;
async function newFeature(defaultValue = 'blue') {
  const id = `banner-${++counter}`;
  await ok(
    v1('POST', '/features', {
      id,
      valueType: 'string',
      defaultValue,
      environments: { production: { enabled: true, rules: [{ id: 'fr_vip', type: 'force', value: 'gold', condition: '{"vip":true}' }] } },
    }),
  );
  return id;
}

const newDraft = async (id: string) => (await ok(v2('POST', `/features/${id}/revisions`, { comment: 'try green' }))).revision;
const setDefault = (id: string, version: number | string, defaultValue: string) =>
  v2('PUT', `/features/${id}/revisions/${version}/default-value`, { defaultValue });
const liveDefault = async (id: string) => (await ok(v1('GET', `/features/${id}`))).feature.defaultValue;

/** What the real SDK answers for a user, from the payload as served now. */
async function sdkValue(id: string, attributes: Record<string, unknown> = { id: 'u1' }) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  return new GrowthBook({ attributes }).initSync({ payload }).getFeatureValue(id, 'none');
}

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});

afterAll(async () => {
  await api.close();
});

describe('drafts', () => {
  it('creates a draft branched from the live version, in the shape of GrowthBook 5', async () => {
    const id = await newFeature();

    const response = await v2('POST', `/features/${id}/revisions`, { comment: 'try green', title: 'Green' });

    expect(response.status).toBe(200);
    expectShape(contract.postFeatureRevisionV2, response.body);
    expectReferenceRevision(response.body.revision);
    expect(response.body.revision).toMatchObject({
      id: `frev_2_${id}`,
      featureId: id,
      version: 2,
      baseVersion: 1,
      status: 'draft',
      comment: 'try green',
      defaultValue: 'blue',
      environmentsEnabled: { production: true },
    });
    expect(response.body.revision.rules).toEqual([
      expect.objectContaining({ id: 'fr_vip', value: 'gold', allEnvironments: false, environments: ['production'] }),
    ]);
  });

  it('edits a draft without changing what the SDK sees, then publishes it and the SDK sees the new value', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const edited = await setDefault(id, draft.version, 'green');

    expect(edited.status).toBe(200);
    expect(edited.body.revision.defaultValue).toBe('green');
    expect(await liveDefault(id)).toBe('blue');
    expect(await sdkValue(id)).toBe('blue');

    const published = await v2('POST', `/features/${id}/revisions/${draft.version}/publish`, { comment: 'ship it' });

    expect(published.status).toBe(200);
    expectReferenceRevision(published.body.revision);
    expect(published.body.revision).toMatchObject({ version: 2, status: 'published', defaultValue: 'green', comment: 'ship it' });
    const live = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(live.defaultValue).toBe('green');
    expect(live.revision.version).toBe(2);
    expect(await sdkValue(id)).toBe('green');
    expect(await sdkValue(id, { id: 'u2', vip: true })).toBe('gold');
  });

  it('creates the draft of an edit when the version is "new"', async () => {
    const id = await newFeature();

    const response = await setDefault(id, 'new', 'teal');

    expect(response.status).toBe(200);
    expect(response.body.revision).toMatchObject({ version: 2, status: 'draft', defaultValue: 'teal' });
    expect(await liveDefault(id)).toBe('blue');
  });

  it('refuses a value invalid for the type with 400 and leaves the draft as it was', async () => {
    const id = `count-${++counter}`;
    await ok(v1('POST', '/features', { id, valueType: 'number', defaultValue: '1' }));
    const draft = await newDraft(id);

    const response = await setDefault(id, draft.version, 'many');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/defaultValue/);
    expect((await ok(v2('GET', `/features/${id}/revisions/${draft.version}`))).revision.defaultValue).toBe('1');
  });

  it('answers 404 for a feature or revision that does not exist, and 400 for a version that is not a number', async () => {
    const id = await newFeature();

    expect((await v2('POST', '/features/nope/revisions', {})).status).toBe(404);
    expect((await v2('GET', `/features/${id}/revisions/9`)).status).toBe(404);
    const bad = await v2('GET', `/features/${id}/revisions/abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/version/);
  });

  it('lists open drafts in the v1 feature with withRevisions=drafts, and only published ones with published', async () => {
    const id = await newFeature();
    await newDraft(id);

    const drafts = (await ok(v1('GET', `/features/${id}?withRevisions=drafts`))).feature.revisions;
    const published = (await ok(v1('GET', `/features/${id}?withRevisions=published`))).feature.revisions;

    expect(drafts.map((r: any) => [r.version, r.status])).toEqual([[2, 'draft']]);
    expect(published.map((r: any) => [r.version, r.status])).toEqual([[1, 'published']]);
  });
});

describe('draft edits', () => {
  it('toggles, archives, sets prerequisites, reorders and deletes rules in a draft, all going live together on publish', async () => {
    const parent = `parent-${++counter}`;
    await ok(v1('POST', '/features', { id: parent, valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true } } }));
    const id = await newFeature();
    await ok(v1('POST', `/features/${id}`, { environments: { production: { rules: [
      { id: 'fr_vip', type: 'force', value: 'gold', condition: '{"vip":true}' },
      { id: 'fr_beta', type: 'force', value: 'silver', condition: '{"beta":true}' },
    ] } } }));
    const draft = await newDraft(id);
    const at = (path: string) => `/features/${id}/revisions/${draft.version}${path}`;

    const toggled = await v2('POST', at('/toggle'), { environment: 'production', enabled: false });
    const required = await v2('PUT', at('/prerequisites'), { prerequisites: [{ id: parent }] });
    const reordered = await v2('POST', at('/rules/reorder'), { ruleIds: ['fr_beta', 'fr_vip'] });
    const deleted = await v2('DELETE', at('/rules/fr_vip'));

    for (const response of [toggled, required, reordered, deleted]) {
      expect(response.status).toBe(200);
      expectReferenceRevision(response.body.revision);
    }
    expect(toggled.body.revision.environmentsEnabled.production).toBe(false);
    expect(required.body.revision.prerequisites).toEqual([{ id: parent }]);
    expect(reordered.body.revision.rules.map((r: any) => r.id)).toEqual(['fr_beta', 'fr_vip']);
    expect(deleted.body.revision.rules.map((r: any) => r.id)).toEqual(['fr_beta']);
    const before = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(before.environments.production.enabled).toBe(true);
    expect(before.prerequisites).toEqual([]);
    expect(await sdkValue(id, { id: 'u', vip: true })).toBe('gold');

    await ok(v2('POST', at('/publish'), {}));

    const after = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(after.environments.production.enabled).toBe(false);
    expect(after.prerequisites).toEqual([parent]);
    expect(after.environments.production.rules.map((r: any) => r.id)).toEqual(['fr_beta']);
    expect(await sdkValue(id, { id: 'u', vip: true })).toBe('none');
  });

  it('archives a feature through a draft, and the SDK stops serving it once published', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const archived = await v2('PUT', `/features/${id}/revisions/${draft.version}/archive`, { archived: true });

    expect(archived.body.revision.metadata).toBeDefined();
    expect(await sdkValue(id)).toBe('blue');
    await ok(v2('POST', `/features/${id}/revisions/${draft.version}/publish`, {}));
    expect((await ok(v1('GET', `/features/${id}`))).feature.archived).toBe(true);
    expect(await sdkValue(id)).toBe('none');
  });

  it('refuses bad edits with 400 or 404, leaving the draft unchanged and no draft behind for "new"', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    const at = (path: string) => `/features/${id}/revisions/${draft.version}${path}`;

    const unknownEnv = await v2('POST', at('/toggle'), { environment: 'mars', enabled: true });
    const partialOrder = await v2('POST', at('/rules/reorder'), { ruleIds: [] });
    const missingRule = await v2('DELETE', at('/rules/fr_nope'));
    const missingParent = await v2('PUT', at('/prerequisites'), { prerequisites: [{ id: 'no-such-flag' }] });
    const newWithBadRule = await v2('DELETE', `/features/${id}/revisions/new/rules/fr_nope`);
    const newWithBadParent = await v2('PUT', `/features/${id}/revisions/new/prerequisites`, { prerequisites: [{ id: 'no-such-flag' }] });

    expect([unknownEnv.status, partialOrder.status, missingRule.status, missingParent.status, newWithBadRule.status, newWithBadParent.status]).toEqual([
      400, 400, 404, 400, 404, 400,
    ]);
    expect(unknownEnv.body.message).toMatch(/environment/);
    expect(partialOrder.body.message).toMatch(/fr_vip is missing/);
    expect(missingParent.body.message).toMatch(/no-such-flag/);
    const unchanged = (await ok(v2('GET', `/features/${id}/revisions/${draft.version}`))).revision;
    expect(unchanged).toMatchObject({ environmentsEnabled: { production: true }, prerequisites: [] });
    expect(unchanged.rules.map((r: any) => r.id)).toEqual(['fr_vip']);
    expect((await ok(v2('GET', `/features/${id}/revisions`))).total).toBe(2);
  });

  it('refuses to edit a published or discarded revision', async () => {
    const id = await newFeature();

    const response = await setDefault(id, 1, 'green');

    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Cannot edit a revision with status "published"');
  });
});

describe('deleting a feature', () => {
  it('deletes its drafts with its published revisions', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    await setDefault(id, draft.version, 'green');
    await newDraft(id);

    expect((await v1('DELETE', `/features/${id}`)).status).toBe(200);

    expect(await latestRevisions(org.orgId, id, Infinity)).toEqual([]);
  });
});

describe('listing', () => {
  it('pages through revisions newest first, with the total, filtered by status on request', async () => {
    const id = await newFeature();
    const first = await newDraft(id);
    await setDefault(id, first.version, 'green');
    await ok(v2('POST', `/features/${id}/revisions/${first.version}/publish`, {}));
    await newDraft(id);

    const page = await v2('GET', `/features/${id}/revisions?limit=2&offset=1`);
    const drafts = await ok(v2('GET', `/features/${id}/revisions?status=all-drafts`));

    expect(page.status).toBe(200);
    expectShape(contract.getFeatureRevisionsV2, page.body);
    page.body.revisions.forEach(expectReferenceRevision);
    expect(page.body).toMatchObject({ limit: 2, offset: 1, count: 2, total: 3, hasMore: false, nextOffset: null });
    expect(page.body.revisions.map((r: any) => [r.version, r.status])).toEqual([
      [2, 'published'],
      [1, 'published'],
    ]);
    expect(drafts.revisions.map((r: any) => r.version)).toEqual([3]);
    expect((await v2('GET', `/features/${id}/revisions?status=bogus`)).status).toBe(400);
  });
});

describe('the latest draft', () => {
  it('is the open draft updated last, narrowed by status, author or the caller\'s own (created or edited)', async () => {
    const id = await newFeature();
    const asMember = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.admin.token, body });
    const byKey = await newDraft(id);
    const byMember = (await ok(asMember('POST', `/features/${id}/revisions`, {}))).revision;
    await ok(setDefault(id, byKey.version, 'green'));
    const latest = (query = '', as = v2) => as('GET', `/features/${id}/revisions/latest${query}`);

    expect((await ok(latest())).revision.version).toBe(byKey.version);
    expect((await ok(latest(`?author=${org.admin.memberId}`))).revision.version).toBe(byMember.version);
    expect((await ok(latest('?mine=true', asMember))).revision.version).toBe(byMember.version);
    expect((await latest('?status=approved')).status).toBe(404);

    await ok(asMember('PUT', `/features/${id}/revisions/${byKey.version}/default-value`, { defaultValue: 'teal' }));
    await ok(v2('POST', `/features/${id}/revisions/${byMember.version}/discard`, {}));

    const mine = await latest('?mine=true', asMember);
    expect(mine.status).toBe(200);
    expectShape(contract.getFeatureRevisionLatestV2, mine.body);
    expectReferenceRevision(mine.body.revision);
    expect(mine.body.revision).toMatchObject({ version: byKey.version, defaultValue: 'teal' });
    expect((await latest(`?author=${org.admin.memberId}`)).status).toBe(404);
  });
});

describe('merging', () => {
  it('merges a draft over a change published meanwhile to another field, keeping both', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    await setDefault(id, draft.version, 'green');
    await ok(v1('POST', `/features/${id}/toggle`, { environments: { production: false } }));

    const status = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/merge-status`));
    const published = await v2('POST', `/features/${id}/revisions/${draft.version}/publish`, {});

    expectShape(contract.getFeatureRevisionMergeStatusV2, status);
    expect(status).toMatchObject({ success: true, liveVersion: 3, conflicts: [], result: { defaultValue: 'green' }, rebaseRequired: false });
    expect(published.status).toBe(200);
    const live = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(live.defaultValue).toBe('green');
    expect(live.environments.production.enabled).toBe(false);
  });

  it('answers a conflicting publish with 409 and the conflicts, then publishes after a rebase that keeps the draft', async () => {
    const id = await newFeature();
    const [a, b] = [await newDraft(id), await newDraft(id)];
    await setDefault(id, a.version, 'green');
    await setDefault(id, b.version, 'red');
    await ok(v2('POST', `/features/${id}/revisions/${a.version}/publish`, {}));

    const status = await ok(v2('GET', `/features/${id}/revisions/${b.version}/merge-status`));
    const refused = await v2('POST', `/features/${id}/revisions/${b.version}/publish`, {});

    expect(status).toMatchObject({ success: false, rebaseRequired: true });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(refused.body.details.conflicts).toEqual([
      { name: 'Default Value', key: 'defaultValue', resolved: false, base: '"blue"', live: '"green"', revision: '"red"' },
    ]);
    expect(await liveDefault(id)).toBe('green');

    const stale = await v2('POST', `/features/${id}/revisions/${b.version}/rebase`, { expectedLiveVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toMatch(/live version is now 2, not 1/);
    const rebased = await v2('POST', `/features/${id}/revisions/${b.version}/rebase`, {
      conflictResolutions: { defaultValue: 'overwrite' },
      expectedLiveVersion: status.liveVersion,
    });
    expect(rebased.status).toBe(200);
    expect(rebased.body.revision).toMatchObject({ baseVersion: a.version, defaultValue: 'red', status: 'draft' });
    expect((await v2('POST', `/features/${id}/revisions/${b.version}/publish`, {})).status).toBe(200);
    expect(await liveDefault(id)).toBe('red');
    expect(await sdkValue(id)).toBe('red');
  });
});

describe('lifecycle', () => {
  it('discards a draft, refuses to publish it, and reopens it', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    await setDefault(id, draft.version, 'green');

    const discarded = await v2('POST', `/features/${id}/revisions/${draft.version}/discard`, {});
    const refused = await v2('POST', `/features/${id}/revisions/${draft.version}/publish`, {});
    const reopened = await v2('POST', `/features/${id}/revisions/${draft.version}/reopen`, {});

    expect(discarded.status).toBe(200);
    expect(discarded.body.revision.status).toBe('discarded');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Cannot publish a revision with status "discarded"');
    expect(reopened.body.revision.status).toBe('draft');
    expect(await liveDefault(id)).toBe('blue');
  });

  it('refuses to publish a draft without changes', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const response = await v2('POST', `/features/${id}/revisions/${draft.version}/publish`, {});

    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Cannot publish: no changes detected in this revision');
  });

  it('reverts to an old version as a new published revision, or as a draft', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    await setDefault(id, draft.version, 'green');
    await ok(v2('POST', `/features/${id}/revisions/${draft.version}/publish`, {}));

    const asDraft = await v2('POST', `/features/${id}/revisions/1/revert`, {});
    const published = await v2('POST', `/features/${id}/revisions/1/revert`, { strategy: 'publish' });

    expect(asDraft.body.revision).toMatchObject({ version: 3, status: 'draft', defaultValue: 'blue', comment: 'Revert to revision #1' });
    expect(published.status).toBe(200);
    expect(published.body.revision).toMatchObject({ version: 4, status: 'published', defaultValue: 'blue' });
    expect(await liveDefault(id)).toBe('blue');
    expect(await sdkValue(id)).toBe('blue');
    expect((await v2('POST', `/features/${id}/revisions/4/revert`, {})).status).toBe(400);
    expect((await v2('POST', `/features/${id}/revisions/3/revert`, {})).status).toBe(400);
  });
});

describe('concurrency', () => {
  it('lands a publish and a toggle sent at once when they do not conflict', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    await setDefault(id, draft.version, 'green');

    const [published, toggled] = await Promise.all([
      v2('POST', `/features/${id}/revisions/${draft.version}/publish`, {}),
      v1('POST', `/features/${id}/toggle`, { environments: { production: false } }),
    ]);

    expect([published.status, toggled.status]).toEqual([200, 200]);
    const live = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(live.defaultValue).toBe('green');
    expect(live.environments.production.enabled).toBe(false);
  });

  it('lands exactly one of two conflicting drafts published at once; the other gets the conflict', async () => {
    const id = await newFeature();
    const [a, b] = [await newDraft(id), await newDraft(id)];
    await setDefault(id, a.version, 'green');
    await setDefault(id, b.version, 'red');

    const responses = await Promise.all([a, b].map((d) => v2('POST', `/features/${id}/revisions/${d.version}/publish`, {})));

    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = responses.find((r) => r.status === 200)!.body.revision;
    expect(responses.find((r) => r.status === 409)!.body.details.conflicts.map((c: any) => c.key)).toEqual(['defaultValue']);
    expect(await liveDefault(id)).toBe(winner.defaultValue);
    const live = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(live.revision.version).toBe(winner.version);
  });

  it('gives a draft and a change made at once different numbers, and both land', async () => {
    const id = await newFeature();

    const [draft, updated] = await Promise.all([v2('POST', `/features/${id}/revisions`, {}), v1('POST', `/features/${id}`, { description: 'changed' })]);

    expect([draft.status, updated.status]).toEqual([200, 200]);
    expect([draft.body.revision.version, updated.body.feature.revision.version].sort()).toEqual([2, 3]);
    expect((await ok(v2('GET', `/features/${id}/revisions`))).revisions.map((r: any) => r.version)).toEqual([3, 2, 1]);
  });

  it('gives two drafts created at once different numbers', async () => {
    const id = await newFeature();

    const created = await Promise.all([1, 2, 3].map(() => v2('POST', `/features/${id}/revisions`, {})));

    expect(created.map((r) => r.body.revision.version).sort()).toEqual([2, 3, 4]);
  });
});
