import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/experiment-screenshots';
import { MAX_SCREENSHOT_BYTES } from '../../shared/domain/screenshots';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceResponseValidator } from '../support/reference';

let api: Api;
let org: TestOrg;
let other: TestOrg;
const screenshotsDir = mkdtempSync(path.join(tmpdir(), 'screenshots-'));

beforeAll(async () => {
  process.env.SCREENSHOTS_DIR = screenshotsDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Screenshots'), createTestOrg('Other org')]);
});
afterAll(() => api.close());

/** A valid PNG of `size` bytes: the signature and header of a 1x1 image, padded (image readers stop at IEND; the service checks the signature only). */
function png(size = 68): Buffer {
  const base = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  return size <= base.length ? base : Buffer.concat([base, Buffer.alloc(size - base.length, 7)]);
}
const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])]);

/** Every file under the screenshots folder, as paths relative to it. */
const storedFiles = () => readdirSync(screenshotsDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.relative(screenshotsDir, path.join(entry.parentPath, entry.name)));

let counter = 0;
async function experiment(testOrg = org) {
  const response = await api.request('POST', '/api/v1/experiments', {
    key: testOrg.keys.admin,
    body: { trackingKey: `shots-${Date.now()}-${++counter}`, name: 'Shots', variations: [{ key: '0', name: 'Control' }, { key: '1', name: 'Blue' }] },
  });
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  const { id, variations } = response.body.experiment as { id: string; variations: { variationId: string }[] };
  return { id, variationId: variations[1].variationId };
}

const upload = (exp: { id: string; variationId: string }, body: unknown, key = org.keys.admin) =>
  api.request('POST', `/api/v1/experiments/${exp.id}/variation/${exp.variationId}/screenshot/upload`, { key, body });
const remove = (exp: { id: string; variationId: string }, body: unknown, key = org.keys.admin) =>
  api.request('DELETE', `/api/v1/experiments/${exp.id}/variation/${exp.variationId}/screenshot`, { key, body });
const listed = async (exp: { id: string; variationId: string }) =>
  ((await api.request('GET', `/api/v1/experiments/${exp.id}`, { key: org.keys.admin })).body.experiment.variations as { variationId: string; screenshots: string[] }[]).find(
    (v) => v.variationId === exp.variationId,
  )!.screenshots;
/** The image at a listed path, as bytes. */
async function fetchImage(listedPath: string, key = org.keys.admin) {
  const response = await fetch(`${api.baseUrl}${listedPath}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('POST /experiments/{id}/variation/{variationId}/screenshot/upload', () => {
  it('stores the image, lists its path on the variation, and serves the same bytes there', async () => {
    const exp = await experiment();
    const image = png(5000);

    const response = await upload(exp, { screenshot: image.toString('base64'), contentType: 'image/png', description: 'Blue button' });

    expect(response.status).toBe(200);
    expectShape(contract.postVariationImageUpload, response.body);
    expect(referenceResponseValidator('POST', '/v1/experiments/{id}/variation/{variationId}/screenshot/upload')(response.body)).toBe(true);
    const { path: listedPath, description } = response.body.screenshot;
    expect(description).toBe('Blue button');
    expect(listedPath).toMatch(new RegExp(`^/api/v1/experiments/${exp.id}/variation/${exp.variationId}/screenshot/img_[\\w-]+\\.png$`));
    expect(await listed(exp)).toEqual([listedPath]);
    const served = await fetchImage(listedPath);
    expect(served.status).toBe(200);
    expect(served.type).toBe('image/png');
    expect(served.bytes.equals(image)).toBe(true);
    expect(storedFiles().filter((file) => file.startsWith(`${org.orgId}/${exp.id}/`))).toHaveLength(1);
  });

  it('keeps each upload: a GIF beside a PNG, each served with its own type, and an empty description by default', async () => {
    const exp = await experiment();

    const first = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });
    const second = await upload(exp, { screenshot: gif.toString('base64'), contentType: 'image/gif' });

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.screenshot.description).toBe('');
    expect(await listed(exp)).toEqual([first.body.screenshot.path, second.body.screenshot.path]);
    const served = await fetchImage(second.body.screenshot.path);
    expect(served.type).toBe('image/gif');
    expect(served.bytes.equals(gif)).toBe(true);
  });

  it('takes an image of exactly the largest size', async () => {
    const exp = await experiment();
    const image = png(MAX_SCREENSHOT_BYTES);

    const response = await upload(exp, { screenshot: image.toString('base64'), contentType: 'image/png' });

    expect(response.status).toBe(200);
    expect((await fetchImage(response.body.screenshot.path)).bytes.equals(image)).toBe(true);
  });

  it.each([
    ['a content type GrowthBook does not take', { screenshot: png().toString('base64'), contentType: 'image/webp' }, /contentType/],
    ['bytes that are not an image of the declared type', { screenshot: Buffer.from('<html><script>alert(1)</script></html>').toString('base64'), contentType: 'image/png' }, /is not a PNG image/],
    ['a JPEG declared as a PNG', { screenshot: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]).toString('base64'), contentType: 'image/png' }, /is not a PNG image/],
    ['text that is not base64', { screenshot: 'not base64!!', contentType: 'image/png' }, /is not valid base64/],
    ['base64 without its padding', { screenshot: png().toString('base64').replace(/=+$/, ''), contentType: 'image/png' }, /is not valid base64/],
    ['an empty screenshot', { screenshot: '', contentType: 'image/png' }, /is empty/],
    ['an image over the limit', { screenshot: png(MAX_SCREENSHOT_BYTES + 1).toString('base64'), contentType: 'image/png' }, /at most 4194304 bytes/],
    ['an unknown field', { screenshot: png().toString('base64'), contentType: 'image/png', width: 10 }, /width/],
  ])('refuses %s with 400 naming the problem, and stores nothing', async (_case, body, message) => {
    const exp = await experiment();
    const before = storedFiles();

    const response = await upload(exp, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await listed(exp)).toEqual([]);
    expect(storedFiles()).toEqual(before);
  });

  it('refuses a body over Lambda’s 6 MB with 413, and stores nothing', async () => {
    const exp = await experiment();
    const before = storedFiles();

    const response = await upload(exp, { screenshot: 'A'.repeat(6 * 1024 * 1024), contentType: 'image/png' });

    expect(response.status).toBe(413);
    expect(storedFiles()).toEqual(before);
  });

  it('refuses an unknown variation with 400 and a role that may not change experiments with 403, storing nothing', async () => {
    const exp = await experiment();
    const before = storedFiles();
    const body = { screenshot: png().toString('base64'), contentType: 'image/png' };

    const unknown = await upload({ id: exp.id, variationId: 'var_missing' }, body);
    const readonly = await upload(exp, body, org.keys.readonly);

    expect([unknown.status, unknown.body.message]).toEqual([400, 'Unknown variation var_missing']);
    expect(readonly.status).toBe(403);
    expect(await listed(exp)).toEqual([]);
    expect(storedFiles()).toEqual(before);
  });

  it("answers 404 for another organization's experiment, and stores nothing", async () => {
    const exp = await experiment(other);
    const before = storedFiles();

    const response = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });

    expect(response.status).toBe(404);
    expect(storedFiles()).toEqual(before);
  });
});

describe('GET /experiments/{id}/variation/{variationId}/screenshot/{file}', () => {
  it("never serves one organization's screenshot to another: 404 at the same path, and 404 from its own experiment of the same variation id", async () => {
    const exp = await experiment();
    const { body } = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });
    const file = body.screenshot.path.split('/').pop();
    // The other organization lists the same path on an experiment of its own, as POST /experiments/{id} lets it.
    const theirs = await experiment(other);
    const theirPath = `/api/v1/experiments/${theirs.id}/variation/${theirs.variationId}/screenshot/${file}`;
    await api.request('POST', `/api/v1/experiments/${theirs.id}`, {
      key: other.keys.admin,
      body: { variations: [{ key: '0', name: 'Control' }, { id: theirs.variationId, key: '1', name: 'Blue', screenshots: [{ path: theirPath }] }] },
    });

    const sameUrl = await fetchImage(body.screenshot.path, other.keys.admin);
    const ownExperiment = await fetchImage(theirPath, other.keys.admin);

    expect(sameUrl.status).toBe(404);
    expect(ownExperiment.status).toBe(404);
    expect((await fetchImage(body.screenshot.path)).status).toBe(200);
  });

  it('answers 401 without a key and 404 for a file the variation does not list', async () => {
    const exp = await experiment();
    const { body } = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });

    const anonymous = await fetch(`${api.baseUrl}${body.screenshot.path}`);
    const unlisted = await fetchImage(body.screenshot.path.replace(/img_[^/]+$/, 'img_other.png'));

    expect(anonymous.status).toBe(401);
    expect(unlisted.status).toBe(404);
  });
});

describe('DELETE /experiments/{id}/variation/{variationId}/screenshot', () => {
  it('unlists the screenshot and removes its image', async () => {
    const exp = await experiment();
    const kept = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });
    const removed = await upload(exp, { screenshot: gif.toString('base64'), contentType: 'image/gif' });

    const response = await remove(exp, { path: removed.body.screenshot.path });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    expect(await listed(exp)).toEqual([kept.body.screenshot.path]);
    expect((await fetchImage(removed.body.screenshot.path)).status).toBe(404);
    expect(storedFiles().filter((file) => file.startsWith(`${org.orgId}/${exp.id}/`))).toEqual([`${org.orgId}/${exp.id}/${exp.variationId}/${kept.body.screenshot.path.split('/').pop()}`]);
  });

  it('takes the path as an absolute URL with a query, as a client may send it back', async () => {
    const exp = await experiment();
    const { body } = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });

    const response = await remove(exp, { path: `https://switchyard.example.com${body.screenshot.path}?v=1` });

    expect(response.status).toBe(200);
    expect(await listed(exp)).toEqual([]);
    expect(storedFiles().some((file) => file.startsWith(`${org.orgId}/${exp.id}/`))).toBe(false);
  });

  it('answers 404 for a path the variation does not list, changing nothing', async () => {
    const exp = await experiment();
    const { body } = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });

    const response = await remove(exp, { path: '/api/v1/somewhere/else.png' });

    expect(response.status).toBe(404);
    expect(await listed(exp)).toEqual([body.screenshot.path]);
    expect((await fetchImage(body.screenshot.path)).status).toBe(200);
  });

  it("answers 404 for another organization's experiment, and its image stays", async () => {
    const exp = await experiment();
    const { body } = await upload(exp, { screenshot: png().toString('base64'), contentType: 'image/png' });

    const response = await remove(exp, { path: body.screenshot.path }, other.keys.admin);

    expect(response.status).toBe(404);
    expect((await fetchImage(body.screenshot.path)).status).toBe(200);
  });
});
