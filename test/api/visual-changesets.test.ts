import * as contract from '../../shared/contracts/visual-changesets';
import { visualChangesets } from '../../shared/store/visual-changesets';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

interface Experiment {
  id: string;
  variations: { variationId: string }[];
}

let counter = 0;
const experiment = async (testOrg = org): Promise<Experiment> => {
  const response = await api.request('POST', '/api/v1/experiments', {
    key: testOrg.keys.admin,
    body: {
      trackingKey: `vcs-${Date.now()}-${++counter}`,
      name: 'Visual',
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Red button' },
      ],
    },
  });
  return response.body.experiment;
};

const changesetBody = { editorUrl: 'https://example.com/', urlPatterns: [{ type: 'simple', pattern: '/', include: true }] };
const createChangeset = (experimentId: string, body: unknown = changesetBody, key = org.keys.admin) =>
  api.request('POST', `/api/v1/experiments/${experimentId}/visual-changesets`, { key, body });
const getChangeset = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/visual-changesets/${id}`, { key });

const mutation = { selector: 'h1', action: 'set', attribute: 'html', value: 'Hello' };

describe('POST /experiments/{id}/visual-changesets', () => {
  it('creates a changeset with one empty visual change per variation and marks the experiment', async () => {
    const exp = await experiment();

    const response = await createChangeset(exp.id);

    expect(response.status).toBe(200);
    expectShape(contract.postVisualChangesets, response.body);
    expect(response.body.visualChangeset).toEqual({
      id: expect.stringMatching(/^vcs_/),
      experiment: exp.id,
      ...changesetBody,
      visualChanges: exp.variations.map((v) => ({ variation: v.variationId, description: '', css: '', domMutations: [] })),
    });
    const after = await api.request('GET', `/api/v1/experiments/${exp.id}`, { key: org.keys.admin });
    expect(after.body.experiment.hasVisualChangesets).toBe(true);
  });

  it('creates several changesets for one experiment at the same time', async () => {
    const exp = await experiment();

    const responses = await Promise.all(Array.from({ length: 4 }, () => createChangeset(exp.id)));

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const listed = await api.request('GET', `/api/v1/experiments/${exp.id}/visual-changesets`, { key: org.keys.admin });
    expect(listed.body.visualChangesets).toHaveLength(4);
  });

  it('accepts a regex URL pattern that compiles', async () => {
    const exp = await experiment();

    const response = await createChangeset(exp.id, { editorUrl: 'https://example.com/', urlPatterns: [{ type: 'regex', pattern: '^/shop/.*' }] });

    expect(response.status).toBe(200);
  });

  it.each([
    ['a missing editorUrl', { urlPatterns: changesetBody.urlPatterns }, /\[editorUrl\]/],
    ['missing urlPatterns', { editorUrl: 'https://example.com/' }, /\[urlPatterns\]/],
    ['an unknown pattern type', { ...changesetBody, urlPatterns: [{ type: 'glob', pattern: '/*' }] }, /\[urlPatterns\.0\.type\]/],
    ['a regex that does not compile', { ...changesetBody, urlPatterns: [{ type: 'regex', pattern: '([' }] }, /\[urlPatterns\.0\.pattern\]/],
    ['an empty pattern', { ...changesetBody, urlPatterns: [{ type: 'simple', pattern: '' }] }, /\[urlPatterns\.0\.pattern\]/],
    ['an unknown field', { ...changesetBody, visualChanges: [] }, /visualChanges/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const exp = await experiment();

    const response = await createChangeset(exp.id, body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await visualChangesets.all(org.orgId).then((all) => all.filter((c) => c.experiment === exp.id))).toEqual([]);
  });

  it('answers 404 for an unknown experiment', async () => {
    const response = await createChangeset('exp_missing');

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's experiment", async () => {
    const exp = await experiment();

    const response = await createChangeset(exp.id, changesetBody, other.keys.admin);

    expect(response.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const exp = await experiment();

    const response = await createChangeset(exp.id, changesetBody, org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('GET /experiments/{id}/visual-changesets', () => {
  it("lists that experiment's changesets only, in creation order", async () => {
    const [exp, unrelated] = [await experiment(), await experiment()];
    const first = await createChangeset(exp.id);
    const second = await createChangeset(exp.id, { ...changesetBody, editorUrl: 'https://example.com/cart' });
    await createChangeset(unrelated.id);

    const response = await api.request('GET', `/api/v1/experiments/${exp.id}/visual-changesets`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.listVisualChangesets, response.body);
    expect(response.body.visualChangesets).toEqual([first.body.visualChangeset, second.body.visualChangeset]);
  });

  it('answers 404 for an unknown experiment', async () => {
    const response = await api.request('GET', '/api/v1/experiments/exp_missing/visual-changesets', { key: org.keys.admin });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's experiment", async () => {
    const exp = await experiment();

    const response = await api.request('GET', `/api/v1/experiments/${exp.id}/visual-changesets`, { key: other.keys.admin });

    expect(response.status).toBe(404);
  });
});

describe('GET /visual-changesets/{id}', () => {
  it('returns the changeset, with its experiment when asked', async () => {
    const exp = await experiment();
    const { body: created } = await createChangeset(exp.id);

    const plain = await getChangeset(created.visualChangeset.id, org.keys.readonly);
    const withExperiment = await api.request('GET', `/api/v1/visual-changesets/${created.visualChangeset.id}?includeExperiment=1`, {
      key: org.keys.readonly,
    });

    expectShape(contract.getVisualChangeset, plain.body);
    expect(plain.body).toEqual(created);
    expectShape(contract.getVisualChangeset, withExperiment.body);
    expect(withExperiment.body.experiment).toMatchObject({ id: exp.id, hasVisualChangesets: true });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await getChangeset('vcs_missing');

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's changeset", async () => {
    const { body: created } = await createChangeset((await experiment()).id);

    const response = await getChangeset(created.visualChangeset.id, other.keys.admin);

    expect(response.status).toBe(404);
  });
});

describe('PUT /visual-changesets/{id}', () => {
  it('replaces the given fields and reports one modification', async () => {
    const exp = await experiment();
    const { body: created } = await createChangeset(exp.id);
    const visualChanges = [{ variation: exp.variations[1].variationId, css: 'h1 { color: red }', domMutations: [mutation] }];

    const response = await api.request('PUT', `/api/v1/visual-changesets/${created.visualChangeset.id}`, {
      key: org.keys.engineer,
      body: { editorUrl: 'https://example.com/new', visualChanges },
    });

    expect(response.status).toBe(200);
    expectShape(contract.putVisualChangeset, response.body);
    expect(response.body).toEqual({
      nModified: 1,
      visualChangeset: { ...created.visualChangeset, editorUrl: 'https://example.com/new', visualChanges: [{ ...visualChanges[0] }] },
    });
  });

  it('reports no modification when nothing changes', async () => {
    const { body: created } = await createChangeset((await experiment()).id);

    const response = await api.request('PUT', `/api/v1/visual-changesets/${created.visualChangeset.id}`, {
      key: org.keys.admin,
      body: { editorUrl: changesetBody.editorUrl },
    });

    expect(response.body.nModified).toBe(0);
  });

  it.each([
    ['a DOM mutation with an unknown action', { visualChanges: [{ variation: 'VAR', domMutations: [{ ...mutation, action: 'prepend' }] }] }, /\[visualChanges\.0\.domMutations\.0\.action\]/],
    ['a DOM mutation without a selector', { visualChanges: [{ variation: 'VAR', domMutations: [{ action: 'set', attribute: 'html' }] }] }, /selector/],
    ['a DOM mutation without an attribute', { visualChanges: [{ variation: 'VAR', domMutations: [{ selector: 'h1', action: 'remove' }] }] }, /attribute/],
    ['a visual change without a variation', { visualChanges: [{ css: '' }] }, /\[visualChanges\.0\.variation\]/],
    ['a variation of another experiment', { visualChanges: [{ variation: 'var_elsewhere' }] }, /\[visualChanges\.0\.variation\]/],
    ['two visual changes with one id', { visualChanges: [{ id: 'vc_same', variation: 'VAR' }, { id: 'vc_same', variation: 'VAR' }] }, /\[visualChanges\.1\.id\]/],
    ['an invalid regex', { urlPatterns: [{ type: 'regex', pattern: '*' }] }, /\[urlPatterns\.0\.pattern\]/],
  ])('answers 400 for %s and leaves the changeset unchanged', async (_case, body, message) => {
    const exp = await experiment();
    const { body: created } = await createChangeset(exp.id);
    const withVariation = JSON.parse(JSON.stringify(body).replaceAll('"VAR"', JSON.stringify(exp.variations[0].variationId)));

    const response = await api.request('PUT', `/api/v1/visual-changesets/${created.visualChangeset.id}`, { key: org.keys.admin, body: withVariation });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await getChangeset(created.visualChangeset.id)).body).toEqual(created);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('PUT', '/api/v1/visual-changesets/vcs_missing', { key: org.keys.admin, body: { editorUrl: 'x' } });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's changeset", async () => {
    const { body: created } = await createChangeset((await experiment()).id);

    const response = await api.request('PUT', `/api/v1/visual-changesets/${created.visualChangeset.id}`, {
      key: other.keys.admin,
      body: { editorUrl: 'https://evil.example/' },
    });

    expect(response.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await createChangeset((await experiment()).id);

    const response = await api.request('PUT', `/api/v1/visual-changesets/${created.visualChangeset.id}`, {
      key: org.keys.readonly,
      body: { editorUrl: 'x' },
    });

    expect(response.status).toBe(403);
  });
});

describe('POST /visual-changesets/{id}/visual-change', () => {
  it('adds a visual change and answers with its id', async () => {
    const exp = await experiment();
    const { body: created } = await createChangeset(exp.id);
    const change = { variation: exp.variations[1].variationId, description: 'Red', domMutations: [{ ...mutation, action: 'append', attribute: 'class', value: 'red' }] };

    const response = await api.request('POST', `/api/v1/visual-changesets/${created.visualChangeset.id}/visual-change`, {
      key: org.keys.admin,
      body: change,
    });

    expect(response.status).toBe(200);
    expectShape(contract.postVisualChange, response.body);
    expect(response.body).toEqual({ nModified: 1, visualChangeId: expect.stringMatching(/^vc_/) });
    const after = await getChangeset(created.visualChangeset.id);
    expect(after.body.visualChangeset.visualChanges).toEqual([...created.visualChangeset.visualChanges, change]);
  });

  it.each([
    ['an unknown action', { domMutations: [{ ...mutation, action: 'replace' }] }, /action/],
    ['a missing variation', { variation: undefined }, /\[variation\]/],
    ['a variation of another experiment', { variation: 'var_elsewhere' }, /\[variation\]/],
  ])('answers 400 for %s and adds nothing', async (_case, fields, message) => {
    const exp = await experiment();
    const { body: created } = await createChangeset(exp.id);

    const response = await api.request('POST', `/api/v1/visual-changesets/${created.visualChangeset.id}/visual-change`, {
      key: org.keys.admin,
      body: { variation: exp.variations[0].variationId, ...fields },
    });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await getChangeset(created.visualChangeset.id)).body).toEqual(created);
  });

  it('answers 409 for an id the changeset already uses', async () => {
    const exp = await experiment();
    const { body: created } = await createChangeset(exp.id);
    const path = `/api/v1/visual-changesets/${created.visualChangeset.id}/visual-change`;
    await api.request('POST', path, { key: org.keys.admin, body: { id: 'vc_mine', variation: exp.variations[0].variationId } });

    const response = await api.request('POST', path, { key: org.keys.admin, body: { id: 'vc_mine', variation: exp.variations[1].variationId } });

    expect(response.status).toBe(409);
  });

  it("answers 404 for an unknown or another organization's changeset", async () => {
    const { body: created } = await createChangeset((await experiment()).id);

    const unknown = await api.request('POST', '/api/v1/visual-changesets/vcs_missing/visual-change', { key: org.keys.admin, body: { variation: 'v' } });
    const foreign = await api.request('POST', `/api/v1/visual-changesets/${created.visualChangeset.id}/visual-change`, {
      key: other.keys.admin,
      body: { variation: 'v' },
    });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await api.request('POST', '/api/v1/visual-changesets/vcs_any/visual-change', { key: org.keys.readonly, body: { variation: 'v' } });

    expect(response.status).toBe(403);
  });
});

describe('PUT /visual-changesets/{id}/visual-change/{visualChangeId}', () => {
  async function changesetWithChange() {
    const exp = await experiment();
    const { body: created } = await createChangeset(exp.id);
    const path = `/api/v1/visual-changesets/${created.visualChangeset.id}/visual-change`;
    const added = await api.request('POST', path, { key: org.keys.admin, body: { variation: exp.variations[1].variationId, css: '' } });
    return { exp, changesetId: created.visualChangeset.id, changePath: `${path}/${added.body.visualChangeId}` };
  }

  it('changes only the given fields of that visual change', async () => {
    const { exp, changesetId, changePath } = await changesetWithChange();

    const response = await api.request('PUT', changePath, { key: org.keys.admin, body: { css: 'h1 { color: red }', domMutations: [mutation] } });

    expect(response.status).toBe(200);
    expectShape(contract.putVisualChange, response.body);
    expect(response.body).toEqual({ nModified: 1 });
    const after = await getChangeset(changesetId);
    expect(after.body.visualChangeset.visualChanges.at(-1)).toEqual({
      variation: exp.variations[1].variationId,
      css: 'h1 { color: red }',
      domMutations: [mutation],
    });
  });

  it('reports no modification when nothing changes', async () => {
    const { changePath } = await changesetWithChange();

    const response = await api.request('PUT', changePath, { key: org.keys.admin, body: { css: '' } });

    expect(response.body).toEqual({ nModified: 0 });
  });

  it.each([
    ['an unknown action', { domMutations: [{ ...mutation, action: 'toggle' }] }, /\[domMutations\.0\.action\]/],
    ['a variation of another experiment', { variation: 'var_elsewhere' }, /\[variation\]/],
    ['a different id', { id: 'vc_other' }, /\[id\]/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const { changePath } = await changesetWithChange();

    const response = await api.request('PUT', changePath, { key: org.keys.admin, body });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('answers 404 for an unknown visual change', async () => {
    const { changesetId } = await changesetWithChange();

    const response = await api.request('PUT', `/api/v1/visual-changesets/${changesetId}/visual-change/vc_missing`, { key: org.keys.admin, body: { css: '' } });

    expect(response.status).toBe(404);
    expect(response.body.message).toContain('vc_missing');
  });

  it("answers 404 for another organization's changeset", async () => {
    const { changePath } = await changesetWithChange();

    const response = await api.request('PUT', changePath, { key: other.keys.admin, body: { css: 'x' } });

    expect(response.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { changePath } = await changesetWithChange();

    const response = await api.request('PUT', changePath, { key: org.keys.readonly, body: { css: 'x' } });

    expect(response.status).toBe(403);
  });
});
