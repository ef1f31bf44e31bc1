import * as contract from '../../shared/contracts/url-redirects';
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
  hasURLRedirects?: boolean;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

const experiment = async (testOrg = org, extra: Record<string, unknown> = {}): Promise<Experiment> => {
  const response = await api.request('POST', '/api/v1/experiments', {
    key: testOrg.keys.admin,
    body: { trackingKey: unique('redirect'), name: 'Redirect', variations: [{ key: '0', name: 'Control' }, { key: '1', name: 'New page' }], ...extra },
  });
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  return response.body.experiment;
};

/** A body sending variation 1 of `exp` from a unique origin to its own destination. */
const redirectBody = (exp: Experiment, origin = `https://${unique('site')}.example.com/pricing`) => ({
  experiment: exp.id,
  urlPattern: origin,
  destinationURLs: [
    { variation: exp.variations[0].variationId, url: '' },
    { variation: exp.variations[1].variationId, url: `${origin}-new` },
  ],
});

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/url-redirects', { key, body });
const getExperiment = async (id: string) => (await api.request('GET', `/api/v1/experiments/${id}`, { key: org.keys.admin })).body.experiment as Experiment;

describe('POST /url-redirects', () => {
  it('creates a redirect, defaults persistQueryString to false, and marks the experiment', async () => {
    const exp = await experiment();
    const body = redirectBody(exp);

    const response = await create(body);

    expect(response.status).toBe(200);
    expectShape(contract.createUrlRedirect, response.body);
    expect(response.body.urlRedirect).toEqual({
      ...body,
      id: expect.stringMatching(/^url_/),
      persistQueryString: false,
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
    });
    expect((await getExperiment(exp.id)).hasURLRedirects).toBe(true);
  });

  it('refuses an experiment that does not exist, naming the field', async () => {
    const exp = await experiment();

    const response = await create({ ...redirectBody(exp), experiment: 'exp_missing' });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[experiment\] no experiment has the id exp_missing/);
  });

  it('refuses an experiment of another organization', async () => {
    const theirs = await experiment(other);

    const response = await create(redirectBody(theirs));

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[experiment\]/);
  });

  it('refuses destinations that leave out a variation, and stores nothing', async () => {
    const exp = await experiment();
    const body = redirectBody(exp);

    const response = await create({ ...body, destinationURLs: body.destinationURLs.slice(1) });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`\\[destinationURLs\\].*missing: ${exp.variations[0].variationId}`));
    const listed = await api.request('GET', `/api/v1/url-redirects?experimentId=${exp.id}`, { key: org.keys.admin });
    expect(listed.body.urlRedirects).toEqual([]);
    expect((await getExperiment(exp.id)).hasURLRedirects).toBe(false);
  });

  it('refuses a destination that is not an absolute URL', async () => {
    const exp = await experiment();
    const body = redirectBody(exp);

    const response = await create({ ...body, destinationURLs: [body.destinationURLs[0], { ...body.destinationURLs[1], url: '/relative' }] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[destinationURLs\.1\.url\] must be an absolute URL/);
  });

  it.each([
    ['an empty urlPattern', { urlPattern: '' }, /\[urlPattern\]/],
    ['a persistQueryString that is not a boolean', { persistQueryString: 'yes' }, /\[persistQueryString\]/],
    ['an unknown field', { extra: 1 }, /extra/],
    ['destinations without a variation', { destinationURLs: [{ url: 'https://example.com/' }] }, /\[destinationURLs\.0\.variation\]/],
  ])('refuses %s', async (_name, change, message) => {
    const exp = await experiment();

    const response = await create({ ...redirectBody(exp), ...change });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('refuses a redirect whose origin is the origin of a served one (a loop), as GrowthBook does', async () => {
    const origin = `https://${unique('loop')}.example.com/a`;
    const first = await experiment();
    expect((await create(redirectBody(first, origin))).status).toBe(200);
    const second = await experiment();

    const response = await create(redirectBody(second, origin));

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[urlPattern\] the URL redirect from .* matches the origin of the one from/);
  });

  it("refuses a redirect whose destination is a served redirect's origin", async () => {
    const origin = `https://${unique('chain')}.example.com/a`;
    const first = await experiment();
    expect((await create(redirectBody(first, origin))).status).toBe(200);
    const second = await experiment();
    const body = redirectBody(second);

    const response = await create({ ...body, destinationURLs: [body.destinationURLs[0], { ...body.destinationURLs[1], url: origin }] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[destinationURLs\] a destination of the URL redirect .* matches the origin/);
  });

  it('does not count a redirect of an archived experiment as a loop', async () => {
    const origin = `https://${unique('archived')}.example.com/a`;
    const first = await experiment();
    expect((await create(redirectBody(first, origin))).status).toBe(200);
    await api.request('POST', `/api/v1/experiments/${first.id}`, { key: org.keys.admin, body: { archived: true } });
    const second = await experiment();

    const response = await create(redirectBody(second, origin));

    expect(response.status).toBe(200);
  });

  it('needs the write permission', async () => {
    const exp = await experiment();

    const response = await create(redirectBody(exp), org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('GET /url-redirects and /url-redirects/{id}', () => {
  it('gets one redirect and lists them, filtered by experiment', async () => {
    const [a, b] = await Promise.all([experiment(), experiment()]);
    const created = (await create(redirectBody(a))).body.urlRedirect;
    await create(redirectBody(b));

    const one = await api.request('GET', `/api/v1/url-redirects/${created.id}`, { key: org.keys.readonly });
    const ofA = await api.request('GET', `/api/v1/url-redirects?experimentId=${a.id}`, { key: org.keys.readonly });
    const all = await api.request('GET', '/api/v1/url-redirects', { key: org.keys.readonly });

    expect(one.status).toBe(200);
    expectShape(contract.getUrlRedirect, one.body);
    expect(one.body.urlRedirect).toEqual(created);
    expectShape(contract.listUrlRedirects, ofA.body);
    expect(ofA.body.urlRedirects).toEqual([created]);
    expect(all.body.urlRedirects.map((r: { experiment: string }) => r.experiment)).toEqual(expect.arrayContaining([a.id, b.id]));
  });

  it('answers 404 for a redirect of another organization, and lists none of theirs', async () => {
    const theirs = (await api.request('POST', '/api/v1/url-redirects', { key: other.keys.admin, body: redirectBody(await experiment(other)) })).body.urlRedirect;

    const one = await api.request('GET', `/api/v1/url-redirects/${theirs.id}`, { key: org.keys.admin });
    const all = await api.request('GET', '/api/v1/url-redirects', { key: org.keys.admin });

    expect(one.status).toBe(404);
    expect(all.body.urlRedirects.map((r: { id: string }) => r.id)).not.toContain(theirs.id);
  });

  it('refuses an unknown query parameter', async () => {
    const response = await api.request('GET', '/api/v1/url-redirects?experiment=x', { key: org.keys.admin });

    expect(response.status).toBe(400);
  });
});

describe('PUT /url-redirects/{id}', () => {
  it('changes the fields given and keeps the others', async () => {
    const exp = await experiment();
    const created = (await create(redirectBody(exp))).body.urlRedirect;

    const response = await api.request('PUT', `/api/v1/url-redirects/${created.id}`, { key: org.keys.admin, body: { persistQueryString: true } });

    expect(response.status).toBe(200);
    expectShape(contract.updateUrlRedirect, response.body);
    expect(response.body.urlRedirect).toEqual({ ...created, persistQueryString: true, dateUpdated: expect.any(String) });
  });

  it('refuses to move a redirect to another experiment', async () => {
    const exp = await experiment();
    const created = (await create(redirectBody(exp))).body.urlRedirect;

    const response = await api.request('PUT', `/api/v1/url-redirects/${created.id}`, { key: org.keys.admin, body: { experiment: 'exp_other' } });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/experiment/);
  });

  it('refuses destinations that leave out a variation, and keeps the stored ones', async () => {
    const exp = await experiment();
    const created = (await create(redirectBody(exp))).body.urlRedirect;

    const response = await api.request('PUT', `/api/v1/url-redirects/${created.id}`, {
      key: org.keys.admin,
      body: { destinationURLs: created.destinationURLs.slice(0, 1) },
    });

    expect(response.status).toBe(400);
    const after = await api.request('GET', `/api/v1/url-redirects/${created.id}`, { key: org.keys.admin });
    expect(after.body.urlRedirect).toEqual(created);
  });

  it('refuses an origin that loops with another served redirect, but not with itself', async () => {
    const [a, b] = await Promise.all([experiment(), experiment()]);
    const first = (await create(redirectBody(a))).body.urlRedirect;
    const second = (await create(redirectBody(b))).body.urlRedirect;

    const clash = await api.request('PUT', `/api/v1/url-redirects/${second.id}`, { key: org.keys.admin, body: { urlPattern: first.urlPattern } });
    const same = await api.request('PUT', `/api/v1/url-redirects/${first.id}`, { key: org.keys.admin, body: { urlPattern: first.urlPattern } });

    expect(clash.status).toBe(400);
    expect(same.status).toBe(200);
  });

  it('answers 404 for a redirect that does not exist', async () => {
    const response = await api.request('PUT', '/api/v1/url-redirects/url_missing', { key: org.keys.admin, body: { persistQueryString: true } });

    expect(response.status).toBe(404);
  });
});

describe('DELETE /url-redirects/{id}', () => {
  it('deletes a redirect and clears the experiment mark with its last one', async () => {
    const exp = await experiment();
    const [first, second] = [(await create(redirectBody(exp))).body.urlRedirect, (await create(redirectBody(exp))).body.urlRedirect];

    const one = await api.request('DELETE', `/api/v1/url-redirects/${first.id}`, { key: org.keys.admin });
    const markedWhileOneLeft = (await getExperiment(exp.id)).hasURLRedirects;
    const two = await api.request('DELETE', `/api/v1/url-redirects/${second.id}`, { key: org.keys.admin });

    expect(one.status).toBe(200);
    expect(one.body).toEqual({ deletedId: first.id });
    expect(two.status).toBe(200);
    expect(markedWhileOneLeft).toBe(true);
    expect((await getExperiment(exp.id)).hasURLRedirects).toBe(false);
    expect((await api.request('GET', `/api/v1/url-redirects/${first.id}`, { key: org.keys.admin })).status).toBe(404);
  });

  it('keeps the experiment marked when a redirect is created while another is deleted', async () => {
    const exp = await experiment();
    const existing = (await create(redirectBody(exp))).body.urlRedirect;

    const [deleted, created] = await Promise.all([
      api.request('DELETE', `/api/v1/url-redirects/${existing.id}`, { key: org.keys.admin }),
      create(redirectBody(exp)),
    ]);

    expect(deleted.status).toBe(200);
    expect(created.status).toBe(200);
    expect((await getExperiment(exp.id)).hasURLRedirects).toBe(true);
  });

  it('answers 404 for a redirect of another organization and leaves it', async () => {
    const theirs = (await api.request('POST', '/api/v1/url-redirects', { key: other.keys.admin, body: redirectBody(await experiment(other)) })).body.urlRedirect;

    const response = await api.request('DELETE', `/api/v1/url-redirects/${theirs.id}`, { key: org.keys.admin });

    expect(response.status).toBe(404);
    expect((await api.request('GET', `/api/v1/url-redirects/${theirs.id}`, { key: other.keys.admin })).status).toBe(200);
  });
});
