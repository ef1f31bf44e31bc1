import * as contract from '../../shared/contracts/code-refs';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const ref = (flagKey: string, filePath = 'src/app.ts', startingLineNumber = 16) => ({
  filePath,
  startingLineNumber,
  lines: `if (gb.isOn("${flagKey}")) {`,
  flagKey,
  contentHash: `hash-${flagKey}-${startingLineNumber}`,
});
const post = (body: unknown, query = '', key = org.keys.admin) => api.request('POST', `/api/v1/code-refs${query}`, { key, body });
const ofFeature = async (feature: string, testOrg = org) =>
  (await api.request('GET', `/api/v1/code-refs/${encodeURIComponent(feature)}`, { key: testOrg.keys.readonly })).body.codeRefs;

describe('POST /code-refs', () => {
  it("stores a branch's references grouped by flag, as GrowthBook's CI action sends them", async () => {
    const response = await post({
      branch: 'main',
      repoName: 'acme/web',
      refs: [ref('checkout-v2'), ref('checkout-v2', 'src/cart.ts', 40), ref('dark-mode')],
    });

    expect(response.status).toBe(200);
    expectShape(contract.postCodeRefs, response.body);
    expect(response.body.featuresUpdated.sort()).toEqual(['checkout-v2', 'dark-mode']);
    const stored = await ofFeature('checkout-v2');
    expect(stored).toEqual([
      {
        organization: org.orgId,
        dateUpdated: expect.any(String),
        feature: 'checkout-v2',
        repo: 'acme/web',
        branch: 'main',
        refs: [
          { filePath: 'src/app.ts', startingLineNumber: 16, lines: 'if (gb.isOn("checkout-v2")) {', flagKey: 'checkout-v2' },
          { filePath: 'src/cart.ts', startingLineNumber: 40, lines: 'if (gb.isOn("checkout-v2")) {', flagKey: 'checkout-v2' },
        ],
      },
    ]);
  });

  it('replaces the references of each flag sent for that branch and keeps other branches apart', async () => {
    await post({ branch: 'main', repoName: 'acme/api', refs: [ref('pricing', 'a.ts', 1), ref('pricing', 'b.ts', 2)] });
    await post({ branch: 'dev', repoName: 'acme/api', refs: [ref('pricing', 'c.ts', 3)] });

    await post({ branch: 'main', repoName: 'acme/api', refs: [ref('pricing', 'd.ts', 4)] });

    const stored = await ofFeature('pricing');
    expect(stored.map((item: { branch: string; refs: { filePath: string }[] }) => [item.branch, item.refs.map((r) => r.filePath)])).toEqual([
      ['dev', ['c.ts']],
      ['main', ['d.ts']],
    ]);
  });

  it('empties the references of flags not sent with deleteMissing=true, and keeps them without it', async () => {
    await post({ branch: 'main', repoName: 'acme/shop', refs: [ref('old-flag'), ref('kept-flag')] });

    const without = await post({ branch: 'main', repoName: 'acme/shop', refs: [ref('kept-flag')] });
    const keptBefore = (await ofFeature('old-flag'))[0].refs;
    const withDelete = await post({ branch: 'main', repoName: 'acme/shop', refs: [ref('kept-flag')] }, '?deleteMissing=true');

    expect(without.body.featuresUpdated).toEqual(['kept-flag']);
    expect(keptBefore).toHaveLength(1);
    expect(withDelete.body.featuresUpdated.sort()).toEqual(['kept-flag', 'old-flag']);
    expect((await ofFeature('old-flag'))[0].refs).toEqual([]);
  });

  it('drops unknown keys inside a reference, as GrowthBook does, and keeps flag keys with any characters apart', async () => {
    const response = await post({ branch: 'release/1.0', repoName: 'acme/odd#repo', refs: [{ ...ref('a#b'), column: 7 }] });

    expect(response.status).toBe(200);
    expect(await ofFeature('a#b')).toEqual([expect.objectContaining({ repo: 'acme/odd#repo', branch: 'release/1.0', refs: [expect.not.objectContaining({ column: 7 })] })]);
    expect((await api.request('GET', '/api/v1/code-refs/a', { key: org.keys.readonly })).status).toBe(404);
  });

  it.each([
    ['no branch', { repoName: 'r', refs: [] }, /\[branch\]/],
    ['a reference without contentHash', { branch: 'main', repoName: 'r', refs: [{ ...ref('x'), contentHash: undefined }] }, /\[refs\.0\.contentHash\]/],
    ['a line number that is not an integer', { branch: 'main', repoName: 'r', refs: [{ ...ref('x'), startingLineNumber: 1.5 }] }, /\[refs\.0\.startingLineNumber\]/],
    ['an unknown top-level field', { branch: 'main', repoName: 'r', refs: [], platform: 'github' }, /platform/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const response = await post(body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await api.request('GET', '/api/v1/code-refs/x', { key: org.keys.readonly })).status).toBe(404);
  });

  it('answers 400 for a deleteMissing other than true or false', async () => {
    const response = await post({ branch: 'main', repoName: 'r', refs: [] }, '?deleteMissing=yes');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/deleteMissing/);
  });

  it('answers 403 to a readonly key and stores nothing', async () => {
    const response = await post({ branch: 'main', repoName: 'acme/ro', refs: [ref('readonly-flag')] }, '', org.keys.readonly);

    expect(response.status).toBe(403);
    expect((await api.request('GET', '/api/v1/code-refs/readonly-flag', { key: org.keys.readonly })).status).toBe(404);
  });
});

describe('GET /code-refs and /code-refs/{id}', () => {
  it("lists the organization's references, paginated, ordered by repository, branch and feature, and never another organization's", async () => {
    const fresh = await createTestOrg('List org');
    await post({ branch: 'main', repoName: 'b-repo', refs: [ref('f2'), ref('f1')] }, '', fresh.keys.admin);
    await post({ branch: 'main', repoName: 'a-repo', refs: [ref('f3')] }, '', fresh.keys.admin);
    await post({ branch: 'main', repoName: 'elsewhere', refs: [ref('f1')] }, '', other.keys.admin);

    const first = await api.request('GET', '/api/v1/code-refs?limit=2', { key: fresh.keys.readonly });
    const second = await api.request('GET', '/api/v1/code-refs?limit=2&offset=2', { key: fresh.keys.readonly });

    expect(first.status).toBe(200);
    expectShape(contract.listCodeRefs, first.body);
    expect(first.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 3, hasMore: true, nextOffset: 2 });
    const order = [...first.body.codeRefs, ...second.body.codeRefs].map((item: { repo: string; feature: string }) => `${item.repo}/${item.feature}`);
    expect(order).toEqual(['a-repo/f3', 'b-repo/f1', 'b-repo/f2']);
    expect(await ofFeature('f1', fresh)).toHaveLength(1);
  });

  it('answers an empty list for a feature no code references, and 404 for an id that is neither a feature nor referenced', async () => {
    await api.request('POST', '/api/v1/features', { key: org.keys.admin, body: { id: 'never-referenced', valueType: 'boolean', defaultValue: 'false' } });

    const response = await api.request('GET', '/api/v1/code-refs/never-referenced', { key: org.keys.readonly });
    const unknown = await api.request('GET', '/api/v1/code-refs/no-such-flag', { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getCodeRefs, response.body);
    expect(response.body).toEqual({ codeRefs: [] });
    expect(unknown.status).toBe(404);
  });

  it("answers 404 for a flag only another organization's code references", async () => {
    await post({ branch: 'main', repoName: 'theirs', refs: [ref('their-flag')] }, '', other.keys.admin);

    const response = await api.request('GET', '/api/v1/code-refs/their-flag', { key: org.keys.readonly });

    expect(response.status).toBe(404);
  });

  it('answers 400 for an unknown query parameter and 403 without the read permission', async () => {
    const typo = await api.request('GET', '/api/v1/code-refs?limt=5', { key: org.keys.readonly });
    const noAccess = await api.request('GET', '/api/v1/code-refs', { key: org.keys.noaccess });

    expect(typo.status).toBe(400);
    expect(noAccess.status).toBe(403);
  });
});
