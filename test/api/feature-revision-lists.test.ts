import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceResponseValidator } from '../support/reference';
import * as v2Contract from '../../shared/contracts/features-v2';
import * as v1Contract from '../../shared/contracts/feature-revisions-v1';
import { db, dynamoMeter, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { transact } from '../../shared/db/repository';
import { readPageIndex, rebuildDuePageIndexes, rebuildPageIndex } from '../../shared/db/page-index';
import { prepareRevisionListRemoval, revisionItem, type StoredRevision } from '../../shared/store/feature-revisions';
import { addMember } from '../../shared/store/members';
import { createApiKey } from '../../shared/store/api-keys';

let api: Api;

const documentedV2 = referenceResponseValidator('GET', '/v2/feature-revisions');
const documentedV1 = referenceResponseValidator('GET', '/v1/revisions');

function expectDocumented(validate: typeof documentedV1, body: unknown) {
  if (!validate(body)) throw new Error(JSON.stringify(validate.errors, null, 2));
}

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

beforeAll(async () => {
  // The scheduler rebuilds a stale page index once writes settle; here at once.
  process.env.PAGE_INDEX_SETTLE_MS = '0';
  api = await startApi();
});

afterAll(async () => {
  delete process.env.PAGE_INDEX_SETTLE_MS;
  await api.close();
});

describe('revisions across features', () => {
  let org: TestOrg;
  let hidden: string;
  const as = (key: string) => ({
    v1: (path: string) => api.request('GET', `/api/v1${path}`, { key }),
    v2: (path: string) => api.request('GET', `/api/v2${path}`, { key }),
    write: (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key, body }),
  });

  beforeAll(async () => {
    org = await createTestOrg();
    const admin = as(org.keys.admin);
    // alpha: revisions 1 (create), 2 (update), 3 (a draft by the admin's token); beta: 1; gamma, in a project: 1.
    hidden = (await ok(admin.write('POST', '/projects', { name: 'Hidden' }))).project.id;
    await ok(admin.write('POST', '/features', { id: 'alpha', valueType: 'boolean', defaultValue: 'false' }));
    await ok(admin.write('POST', '/features/alpha', { defaultValue: 'true' }));
    await ok(api.request('POST', '/api/v2/features/alpha/revisions', { key: org.admin.token, body: { comment: 'mine' } }));
    await ok(admin.write('POST', '/features', { id: 'beta', valueType: 'boolean', defaultValue: 'false' }));
    await ok(admin.write('POST', '/features', { id: 'gamma', valueType: 'boolean', defaultValue: 'false', project: hidden }));
  });

  const listed = (body: any) => body.revisions.map((revision: any) => `${revision.featureId}@${revision.version}:${revision.status}`);

  it('lists every feature’s revisions newest first, in the 5.0.1 shapes of v2 and v1', async () => {
    const viaV2 = await ok(as(org.keys.admin).v2('/feature-revisions'));
    const viaV1 = await ok(as(org.keys.admin).v1('/revisions'));

    expectDocumented(documentedV2, viaV2);
    expectDocumented(documentedV1, viaV1);
    expectShape(v2Contract.listRevisionsV2, viaV2);
    expectShape(v1Contract.listRevisions, viaV1);
    expect(listed(viaV2)).toEqual(['gamma@1:published', 'beta@1:published', 'alpha@3:draft', 'alpha@2:published', 'alpha@1:published']);
    expect(listed(viaV1)).toEqual(listed(viaV2));
    expect(viaV2).toEqual(expect.objectContaining({ total: 5, count: 5, hasMore: false, nextOffset: null }));
  });

  it('pages with limit and offset', async () => {
    const page = await ok(as(org.keys.admin).v2('/feature-revisions?limit=2&offset=2'));

    expect(listed(page)).toEqual(['alpha@3:draft', 'alpha@2:published']);
    expect(page).toEqual(expect.objectContaining({ limit: 2, offset: 2, count: 2, total: 5, hasMore: true, nextOffset: 4 }));
  });

  it.each([
    ['featureId', '?featureId=alpha', ['alpha@3:draft', 'alpha@2:published', 'alpha@1:published']],
    ['status', '?status=draft', ['alpha@3:draft']],
    ['status all-drafts', '?status=all-drafts', ['alpha@3:draft']],
    ['several statuses', '?status=draft,published&featureId=beta', ['beta@1:published']],
  ])('filters by %s', async (_name, query, expected) => {
    const page = await ok(as(org.keys.admin).v2(`/feature-revisions${query}`));

    expectDocumented(documentedV2, page);
    expect(listed(page)).toEqual(expected);
    expect(page.total).toBe(expected.length);
  });

  it('filters by author, and by what the caller made with mine', async () => {
    const mine = await ok(api.request('GET', '/api/v2/feature-revisions?mine=true', { key: org.admin.token }));
    const byAuthor = await ok(as(org.keys.admin).v1(`/revisions?author=${org.admin.memberId}`));

    expect(listed(mine)).toEqual(['alpha@3:draft']);
    expect(listed(byAuthor)).toEqual(['alpha@3:draft']);
  });

  it('leaves out the revisions of features the caller may not read', async () => {
    const page = await ok(api.request('GET', '/api/v2/feature-revisions', { key: await projectReader(org) }));

    expect(listed(page)).not.toContain('gamma@1:published');
    expect(page.total).toBe(4);
  });

  it.each([
    ['mine with author', '?mine=true&author=someone', /mine.*author/],
    ['an unknown status', '?status=shipped', /status.*shipped/],
    ['a limit over 100', '?limit=101', /limit/],
    ['a negative offset', '?offset=-1', /offset/],
  ])('refuses %s with 400 naming it', async (_name, query, message) => {
    const response = await as(org.keys.admin).v2(`/feature-revisions${query}`);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });
});

/** A member's token that may read one project other than the hidden one (and so features without a project), not the hidden one. */
async function projectReader(org: TestOrg): Promise<string> {
  const open = (await ok(api.request('POST', '/api/v1/projects', { key: org.keys.admin, body: { name: 'Open' } }))).project.id;
  const member = await addMember(org.orgId, {
    name: 'Project reader',
    email: `reader-${org.orgId}@example.com`,
    role: 'noaccess',
    projectRoles: [{ project: open, role: 'readonly', limitAccessByEnvironment: false, environments: [] }],
  });
  return (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'token' })).secret;
}

describe('the cost of a page', () => {
  const FEATURES = 10;
  const PER_FEATURE = 110;
  let org: TestOrg;

  /** Revisions 2..PER_FEATURE+1 of each feature, written straight to the table (one API call each would take minutes), dates interleaved. */
  async function seedRevisions(orgId: string) {
    const start = Date.now() - 24 * 60 * 60 * 1000;
    const items = Array.from({ length: FEATURES * PER_FEATURE }, (_, n): StoredRevision => {
      const featureId = `load-${n % FEATURES}`;
      const version = 2 + Math.floor(n / FEATURES);
      const date = new Date(start + n * 1000).toISOString();
      return { featureId, version, baseVersion: version - 1, comment: 'seeded', date, dateUpdated: date, status: 'published', createdBy: 'seed', publishedBy: 'seed', defaultValue: 'false', rules: {} };
    });
    for (let i = 0; i < items.length; i += 25) {
      let request: Record<string, unknown[]> | undefined = {
        [tableName()]: items.slice(i, i + 25).map((record) => ({ PutRequest: { Item: revisionItem(orgId, record) } })),
      };
      while (request && Object.keys(request).length) {
        const result = await db.batchWrite({ RequestItems: request as never });
        request = result.UnprocessedItems as typeof request;
      }
    }
    // The features' newest revision numbers, as the store keeps them beside the revisions.
    for (let i = 0; i < FEATURES; i++) {
      await db.update({
        TableName: tableName(),
        Key: keys.entity(orgId, 'FEATURE', `load-${i}`),
        UpdateExpression: 'SET newestRevision = :newest',
        ExpressionAttributeValues: { ':newest': PER_FEATURE + 1 },
      });
    }
    // As a bulk write leaves it: the page index stale, then rebuilt by the scheduler.
    await transact([prepareRevisionListRemoval(orgId)]);
    if (!(await rebuildPageIndex(orgId, 'FEATURE_REVISION'))) throw new Error('the revision list index was not rebuilt');
  }

  beforeAll(async () => {
    org = await createTestOrg();
    for (let i = 0; i < FEATURES; i++) {
      await ok(api.request('POST', '/api/v1/features', { key: org.keys.admin, body: { id: `load-${i}`, valueType: 'boolean', defaultValue: 'false' } }));
    }
    await seedRevisions(org.orgId);
  }, 120_000);

  /** One list request's DynamoDB calls and read units, the key already cached. */
  async function measured(path: string) {
    dynamoMeter.reset();
    const body = await ok(api.request('GET', path, { key: org.keys.admin }));
    return { body, used: dynamoMeter.snapshot() };
  }

  it.each([['/api/v2/feature-revisions'], ['/api/v1/revisions']])('%s costs the same reads at offset 0 and at offset 1,000', async (path) => {
    await ok(api.request('GET', `${path}?limit=1`, { key: org.keys.admin })); // the key cached, as in a warm container

    const first = await measured(`${path}?limit=10&offset=0`);
    const far = await measured(`${path}?limit=10&offset=1000`);

    expect(first.body.total).toBe(FEATURES * (PER_FEATURE + 1));
    expect(first.body.revisions.map((r: any) => r.date)).toEqual([...first.body.revisions.map((r: any) => r.date)].sort().reverse());
    expect(far.body.revisions).toHaveLength(10);
    expect(far.body.revisions[0].date < first.body.revisions[9].date).toBe(true);
    expect(far.used.calls).toBe(first.used.calls);
    expect(far.used.readUnits).toBe(first.used.readUnits);
    // Not by reading every key each time: a walk of the list index (a filter makes one) costs more, and grows with the list.
    const walk = await measured(`${path}?limit=10&offset=1000&status=published`);
    expect(far.used.readUnits).toBeLessThan(walk.used.readUnits);
  });

  it('counts the revisions written since the index was built without writing to it, and the scheduler folds them in', async () => {
    const before = (await readPageIndex(org.orgId, 'FEATURE_REVISION'))!;

    await ok(api.request('POST', '/api/v1/features/load-0', { key: org.keys.admin, body: { description: 'one more revision' } }));
    await ok(api.request('POST', '/api/v2/features/load-1/revisions', { key: org.keys.admin, body: { comment: 'a draft' } }));

    expect(await readPageIndex(org.orgId, 'FEATURE_REVISION')).toEqual(before);
    const page = await ok(api.request('GET', '/api/v2/feature-revisions?limit=2', { key: org.keys.admin }));
    expect(page.revisions.map((r: any) => `${r.featureId}@${r.status}`)).toEqual(['load-1@draft', 'load-0@published']);
    expect(page.total).toBe(before.count + 2);
    const far = await measured('/api/v2/feature-revisions?limit=10&offset=1000');

    // The scheduler's next run (an extendable index is due again a minute after each build).
    await rebuildDuePageIndexes(new Date(Date.now() + 2 * 60_000));

    const after = (await readPageIndex(org.orgId, 'FEATURE_REVISION'))!;
    expect(after).toEqual(expect.objectContaining({ stale: false, extendable: true, count: before.count + 2 }));
    const again = await measured('/api/v2/feature-revisions?limit=10&offset=1000');
    expect(again.body.revisions).toEqual(far.body.revisions);
  });

  it('marks the page index stale when a feature and its revisions are deleted, and the list stays right meanwhile', async () => {
    const before = await ok(api.request('GET', '/api/v2/feature-revisions?limit=1', { key: org.keys.admin }));

    await ok(api.request('DELETE', '/api/v1/features/load-9', { key: org.keys.admin }));

    expect((await readPageIndex(org.orgId, 'FEATURE_REVISION'))!.stale).toBe(true);
    const after = await ok(api.request('GET', '/api/v2/feature-revisions?limit=1', { key: org.keys.admin }));
    expect(after.total).toBe(before.total - (PER_FEATURE + 1));
    const far = await ok(api.request('GET', '/api/v2/feature-revisions?featureId=load-9', { key: org.keys.admin }));
    expect(far.total).toBe(0);
  });
});
