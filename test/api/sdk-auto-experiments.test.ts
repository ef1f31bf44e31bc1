import { createHash } from 'node:crypto';
import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';
import { commandsDuring } from '../support/dynamo-commands';

/**
 * The payload's `experiments` array as a user of the real GrowthBook SDK meets it: visual-editor
 * experiments change matching pages, URL-redirect experiments navigate, drafts stay out unless the
 * connection includes them, and nothing is served to a connection that does not ask for them.
 */

let api: Api;
let org: TestOrg;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

interface Seen {
  tracked: Array<{ key: string; variationId: number }>;
  applied: unknown[];
  navigated: string[];
}

/** What the SDK does on `url` for a user: experiments it tracks, page changes it applies, URLs it navigates to. */
async function visit(clientKey: string, url: string, options: { decryptionKey?: string } = {}): Promise<Seen> {
  const seen: Seen = { tracked: [], applied: [], navigated: [] };
  // The SDK keeps payloads per client key for a while; each visit here wants the current one.
  clearCache();
  const gb = new GrowthBook({
    apiHost: api.baseUrl,
    clientKey,
    decryptionKey: options.decryptionKey,
    attributes: { id: 'user-1' },
    url,
    trackingCallback: (experiment, result) => void seen.tracked.push({ key: experiment.key, variationId: result.variationId }),
    applyDomChangesCallback: (changes) => {
      seen.applied.push(changes);
      return () => undefined;
    },
    navigate: (to) => void seen.navigated.push(to),
  });
  await gb.init({ timeout: 5000 });
  gb.destroy();
  return seen;
}

const payloadOf = async (clientKey: string) => (await api.request('GET', `/api/features/${clientKey}`)).body;

/** An experiment that always assigns its second variation to everyone (weights 0 / 1), running unless `status` says otherwise. */
async function experiment(status: 'running' | 'draft' = 'running') {
  const { experiment } = await ok('POST', '/experiments', {
    trackingKey: unique('auto'),
    name: 'Auto',
    status,
    hashAttribute: 'id',
    variations: [{ key: 'control', name: 'Control' }, { key: 'red', name: 'Red' }],
    phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 1, variationWeights: [0, 1] }],
  });
  return experiment as { id: string; trackingKey: string; variations: Array<{ variationId: string }> };
}

const redCss = 'h1 { color: red }';

/** A visual changeset on `page` whose second variation paints headings red. */
async function visualExperiment(status: 'running' | 'draft' = 'running') {
  const exp = await experiment(status);
  const page = `https://${unique('shop')}.example.com/checkout`;
  const { visualChangeset } = await ok('POST', `/experiments/${exp.id}/visual-changesets`, {
    editorUrl: page,
    urlPatterns: [{ type: 'simple', pattern: page, include: true }],
  });
  const [control, red] = exp.variations.map((v) => v.variationId);
  const { visualChangeset: changed } = await ok('PUT', `/visual-changesets/${visualChangeset.id}`, {
    visualChanges: [
      { variation: control, css: '' },
      { variation: red, css: redCss, domMutations: [{ selector: 'h1', action: 'set', attribute: 'html', value: 'Buy now' }] },
    ],
  });
  return { exp, page, changeset: changed as { id: string } };
}

const connection = async (settings: Record<string, unknown>) =>
  (await ok('POST', '/sdk-connections', { name: unique('web'), language: 'javascript', environment: 'production', ...settings })).sdkConnection as {
    key: string;
    encryptionKey: string;
  };

let plain: string;
let visual: string;
let visualWithDrafts: string;
let redirects: string;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  [plain, visual, visualWithDrafts, redirects] = (
    await Promise.all([
      connection({}),
      connection({ includeVisualExperiments: true }),
      connection({ includeVisualExperiments: true, includeDraftExperiments: true }),
      connection({ includeRedirectExperiments: true }),
    ])
  ).map((c) => c.key);
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('visual-editor experiments', () => {
  it('fire on a matching URL, with the variation’s changes, and not on another URL', async () => {
    const { exp, page } = await visualExperiment();

    const matching = await visit(visual, page);
    const elsewhere = await visit(visual, page.replace('/checkout', '/home'));

    expect(matching.tracked).toEqual([{ key: exp.trackingKey, variationId: 1 }]);
    expect(matching.applied).toEqual([{ css: redCss, js: '', domMutations: [{ selector: 'h1', action: 'set', attribute: 'html', value: 'Buy now' }] }]);
    expect(elsewhere.tracked).toEqual([]);
    expect(elsewhere.applied).toEqual([]);
  });

  it("go out with GrowthBook's auto-experiment fields", async () => {
    const { exp, page, changeset } = await visualExperiment();

    const served = (await payloadOf(visual)).experiments.find((e: { key: string }) => e.key === exp.trackingKey);

    expect(served).toEqual({
      key: exp.trackingKey,
      changeId: createHash('sha256').update(`${exp.trackingKey}_visual_${changeset.id}`).digest('hex'),
      status: 'running',
      variations: [
        { css: '', js: '', domMutations: [] },
        { css: redCss, js: '', domMutations: [{ selector: 'h1', action: 'set', attribute: 'html', value: 'Buy now' }] },
      ],
      hashVersion: expect.any(Number),
      hashAttribute: 'id',
      urlPatterns: [{ type: 'simple', pattern: page, include: true }],
      weights: [0, 1],
      meta: [{ key: 'control' }, { key: 'red' }],
      seed: expect.any(String),
      phase: '0',
      coverage: 1,
    });
  });

  it('follow an edit of a visual change at once (the cached payload is rebuilt)', async () => {
    const { exp, page, changeset } = await visualExperiment();
    await visit(visual, page);
    const [control, red] = exp.variations.map((v) => v.variationId);

    await ok('PUT', `/visual-changesets/${changeset.id}`, { visualChanges: [{ variation: control, css: '' }, { variation: red, css: 'h1 { color: blue }' }] });
    const after = await visit(visual, page);

    expect(after.applied).toEqual([{ css: 'h1 { color: blue }', js: '', domMutations: [] }]);
  });

  it('release the released variation of a stopped experiment (force), and leave out one stopped without a release', async () => {
    const released = await visualExperiment();
    const dropped = await visualExperiment();
    await ok('POST', `/experiments/${released.exp.id}/stop`, {
      results: 'won',
      winnerVariationId: released.exp.variations[1].variationId,
      enableTemporaryRollout: true,
    });
    await ok('POST', `/experiments/${dropped.exp.id}/stop`, { results: 'dnf' });

    const served = (await payloadOf(visual)).experiments.map((e: { key: string; status: string; force?: number }) => e);
    const seen = await visit(visual, released.page);

    expect(served.find((e: { key: string }) => e.key === released.exp.trackingKey)).toMatchObject({ status: 'stopped', force: 1 });
    expect(served.find((e: { key: string }) => e.key === dropped.exp.trackingKey)).toBeUndefined();
    expect(seen.applied).toEqual([expect.objectContaining({ css: redCss })]);
  });

  it('go out encrypted to a connection that encrypts, and the SDK decrypts them', async () => {
    const { exp, page } = await visualExperiment();
    const encrypted = await connection({ includeVisualExperiments: true, encryptPayload: true });

    const body = await payloadOf(encrypted.key);
    const seen = await visit(encrypted.key, page, { decryptionKey: encrypted.encryptionKey });

    expect(body.experiments).toEqual([]);
    expect(typeof body.encryptedExperiments).toBe('string');
    expect(JSON.stringify(body)).not.toContain(exp.trackingKey);
    expect(seen.tracked).toEqual([{ key: exp.trackingKey, variationId: 1 }]);
  });
});

describe('drafts', () => {
  it('are not served unless the connection includes drafts, and then run only when forced from the URL', async () => {
    const { exp, page } = await visualExperiment('draft');
    const forced = `${page}?${exp.trackingKey}=1`;

    const withoutDrafts = await visit(visual, forced);
    const unforced = await visit(visualWithDrafts, page);
    const preview = await visit(visualWithDrafts, forced);

    expect((await payloadOf(visual)).experiments.map((e: { key: string }) => e.key)).not.toContain(exp.trackingKey);
    expect(withoutDrafts.applied).toEqual([]);
    expect(unforced.applied).toEqual([]);
    expect(unforced.tracked).toEqual([]);
    expect(preview.applied).toEqual([expect.objectContaining({ css: redCss })]);
  });
});

describe('URL-redirect experiments', () => {
  async function redirectExperiment(persistQueryString = false) {
    const exp = await experiment();
    const origin = `https://${unique('site')}.example.com/pricing`;
    const { urlRedirect } = await ok('POST', '/url-redirects', {
      experiment: exp.id,
      urlPattern: origin,
      persistQueryString,
      destinationURLs: [
        { variation: exp.variations[0].variationId, url: '' },
        { variation: exp.variations[1].variationId, url: `${origin}-new` },
      ],
    });
    return { exp, origin, urlRedirect };
  }

  it('navigate a visitor of the origin to the variation’s destination, and nobody elsewhere', async () => {
    const { exp, origin } = await redirectExperiment();

    const there = await visit(redirects, origin);
    const elsewhere = await visit(redirects, origin.replace('/pricing', '/about'));

    expect(there.navigated).toEqual([`${origin}-new`]);
    expect(there.tracked).toEqual([{ key: exp.trackingKey, variationId: 1 }]);
    expect(elsewhere.navigated).toEqual([]);
  });

  it('keep the query string with persistQueryString', async () => {
    const { origin, exp, urlRedirect } = await redirectExperiment(true);

    const seen = await visit(redirects, `${origin}?utm_source=mail`);
    const served = (await payloadOf(redirects)).experiments.find((e: { key: string }) => e.key === exp.trackingKey);

    expect(seen.navigated).toEqual([`${origin}-new?utm_source=mail`]);
    expect(served).toMatchObject({
      changeId: createHash('sha256').update(`${exp.trackingKey}_redirect_${urlRedirect.id}`).digest('hex'),
      urlPatterns: [{ include: true, pattern: origin, type: 'simple' }],
      variations: [{ urlRedirect: '' }, { urlRedirect: `${origin}-new` }],
      persistQueryString: true,
    });
  });

  it('stop when the redirect is deleted', async () => {
    const { origin, urlRedirect } = await redirectExperiment();
    await visit(redirects, origin);

    await ok('DELETE', `/url-redirects/${urlRedirect.id}`);
    const after = await visit(redirects, origin);

    expect(after.navigated).toEqual([]);
  });
});

describe('connections that do not include them', () => {
  it('get no experiments field and see no page change or redirect', async () => {
    const { page } = await visualExperiment();
    const exp = await experiment();
    const origin = `https://${unique('plain')}.example.com/pricing`;
    await ok('POST', '/url-redirects', {
      experiment: exp.id,
      urlPattern: origin,
      destinationURLs: [
        { variation: exp.variations[0].variationId, url: '' },
        { variation: exp.variations[1].variationId, url: `${origin}-new` },
      ],
    });

    const onPage = await visit(plain, page);
    const onOrigin = await visit(plain, origin);
    const visualOnly = await visit(visual, origin);
    const redirectsOnly = await visit(redirects, page);

    expect((await payloadOf(plain)).experiments).toBeUndefined();
    expect([onPage, onOrigin].flatMap((seen) => [...seen.applied, ...seen.navigated, ...seen.tracked])).toEqual([]);
    expect(visualOnly.navigated).toEqual([]);
    expect(redirectsOnly.applied).toEqual([]);
  });
});

describe('cost', () => {
  const commandsFor = async (clientKey: string) => (await commandsDuring(() => api.request('GET', `/api/features/${clientKey}`))).sort();

  it('builds the experiments array with the same requests for 1 experiment as for 30', async () => {
    const home = org;
    const keys: string[] = [];
    for (const count of [1, 30]) {
      org = await createTestOrg();
      for (let i = 0; i < count; i++) await visualExperiment();
      keys.push((await connection({ includeVisualExperiments: true, includeRedirectExperiments: true })).key);
    }
    // The same payload without the array: an organization of its own, so no cache of the others helps it.
    org = await createTestOrg();
    const withoutArray = (await connection({})).key;
    org = home;

    // One after the other: the count sees every command the process sends.
    const one = await commandsFor(keys[0]);
    const thirty = await commandsFor(keys[1]);
    const without = await commandsFor(withoutArray);

    expect(thirty).toEqual(one);
    // What the array adds: the changesets and the redirects (one Query each), the experiments (one BatchGet); the
    // attribute types come with the payload's own references.
    const added = [...thirty];
    for (const command of without) added.splice(added.indexOf(command), 1);
    expect(added).toEqual(['BatchGetItemCommand', 'QueryCommand', 'QueryCommand']);
    expect((await payloadOf(keys[1])).experiments).toHaveLength(30);
  });
});
