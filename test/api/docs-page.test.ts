import { existsSync, readFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startApi, type Api } from '../support/api';

/**
 * The API reference page in a real browser (Debian's Chromium, driven by playwright-core): it must
 * render every operation of openapi.json from files of its own origin only, without a console error.
 */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const repoRoot = join(__dirname, '..', '..');

let api: Api;
let browser: Browser;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

interface Operation {
  method: string;
  path: string;
  operationId: string;
  summary: string;
}

const sorted = (operations: Operation[]) => [...operations].sort((a, b) => a.operationId.localeCompare(b.operationId));

/** Every operation of the served OpenAPI document. */
async function documentedOperations(): Promise<Operation[]> {
  const { body } = await api.request('GET', '/api/v1/openapi.json');
  return Object.entries(body.paths as Record<string, Record<string, { operationId: string; summary: string }>>).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, { operationId, summary }]) => ({ method: method.toUpperCase(), path, operationId, summary })),
  );
}

/** Opens the page, recording every console error, uncaught error, failed request and error answer. */
async function openDocs(path = '/api/v1/docs'): Promise<{ page: Page; problems: string[]; origins: Set<string> }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  // Swagger UI reads the 600 KB document, and resolves an operation when it is opened, in seconds; more on a loaded machine.
  page.setDefaultTimeout(120_000);
  const problems: string[] = [];
  const origins = new Set<string>();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('request', (request) => origins.add(new URL(request.url()).origin));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  await page.goto(`${api.baseUrl}${path}`, { waitUntil: 'load' });
  return { page, problems, origins };
}

/** What the scrolling below uses of the page's window (the tests compile without the DOM's types). */
interface BrowserWindow {
  scrollY: number;
  innerHeight: number;
  scrollBy(x: number, y: number): void;
  requestAnimationFrame(callback: () => void): void;
}

/**
 * Every operation the page renders, read from the row Swagger UI draws for each (`.opblock`). With more
 * than 150 rows it draws only those near the viewport, so the page is scrolled from top to bottom.
 */
async function renderedOperations(page: Page): Promise<Operation[]> {
  await page.locator('.opblock').first().waitFor();
  const seen = new Map<string, Operation>();
  for (;;) {
    const rows = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => ({
        id: block.id,
        method: block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
        path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        operationId: block.querySelector('.opblock-summary-operation-id')?.textContent?.trim() ?? '',
        summary: block.querySelector('.opblock-summary-description')?.textContent?.trim() ?? '',
      })),
    );
    for (const { id, ...operation } of rows) seen.set(id, operation);
    const moved = await page.evaluate(() => {
      const view = globalThis as unknown as BrowserWindow;
      const before = view.scrollY;
      view.scrollBy(0, view.innerHeight / 2);
      return view.scrollY !== before;
    });
    if (!moved) return [...seen.values()];
    // The rows for the new position are drawn on the next frames.
    await page.evaluate(() => {
      const view = globalThis as unknown as BrowserWindow;
      return new Promise<void>((resolve) => view.requestAnimationFrame(() => view.requestAnimationFrame(resolve)));
    });
  }
}

describe('the API reference page', () => {
  beforeAll(async () => {
    // CI installs Chromium (.ci/run): a machine without it fails here rather than skipping the page's browser tests.
    if (!existsSync(chromiumPath)) {
      throw new Error(`Chromium is missing at ${chromiumPath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
    }
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);
  afterAll(() => browser?.close());

  it('lists every operation of openapi.json with its method, path, operationId and summary, loading only from its own origin, without errors', async () => {
    const expected = await documentedOperations();
    const { page, problems, origins } = await openDocs();

    const rendered = await renderedOperations(page);
    await page.close();

    expect(expected.length).toBeGreaterThan(100);
    expect(sorted(rendered)).toEqual(sorted(expected));
    expect(problems).toEqual([]);
    expect([...origins]).toEqual([api.baseUrl]);
  }, 300_000);

  it('renders at /api/v1/docs/ too, with the trailing slash', async () => {
    const { page, problems } = await openDocs('/api/v1/docs/');

    await page.locator('#operations-system-getVersion').waitFor();
    await page.close();

    expect(problems).toEqual([]);
  }, 300_000);

  it('tries an operation out against this API from the page', async () => {
    const { page, problems } = await openDocs();

    const block = page.locator('#operations-system-getVersion');
    await block.locator('.opblock-summary-control').click();
    await block.getByRole('button', { name: 'Try it out' }).click();
    await block.getByRole('button', { name: 'Execute' }).click();
    const status = await block.locator('.live-responses-table .response .response-col_status').first().textContent();
    const body = await block.locator('.live-responses-table .response-col_description pre').first().textContent();
    await page.close();

    expect(status?.trim()).toBe('200');
    expect(JSON.parse(body ?? '')).toMatchObject({ version: expect.any(String), apiVersion: 1 });
    expect(problems).toEqual([]);
  }, 300_000);
});

describe('GET /api/v1/docs', () => {
  it('answers HTML without a key, allowing scripts and connections to its own origin only', async () => {
    const response = await api.request('GET', '/api/v1/docs');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self';");
    expect(response.body).toContain('data-url="/api/v1/openapi.json"');
    expect(response.body).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('is left out of the OpenAPI document, with its files', async () => {
    const { body } = await api.request('GET', '/api/v1/openapi.json');

    expect(Object.keys(body.paths).filter((path) => path.startsWith('/api/v1/docs'))).toEqual([]);
  });
});

describe('GET /api/v1/docs/{asset}', () => {
  const rendererFile = readFileSync(join(repoRoot, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'));

  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)('serves the renderer compressed with %s when the client accepts it, cached for good', async (encoding, decompress) => {
    const response = await rawGet('/api/v1/docs/swagger-ui-bundle.js', encoding);

    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'content-encoding': encoding,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'Accept-Encoding',
    });
    expect(decompress(response.body).equals(rendererFile)).toBe(true);
    expect(response.body.length).toBeLessThan(rendererFile.length / 3);
  });

  it('serves the file as it is to a client that accepts no compression', async () => {
    const response = await rawGet('/api/v1/docs/swagger-ui-bundle.js', 'identity');

    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body.equals(rendererFile)).toBe(true);
  });

  it.each([
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['favicon-32x32.png', 'image/png'],
    ['swagger-ui-init.js', 'text/javascript; charset=utf-8'],
  ])('serves %s as %s', async (name, contentType) => {
    const response = await rawGet(`/api/v1/docs/${name}`, 'identity');

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(contentType);
    expect(response.body.length).toBeGreaterThan(0);
  });

  it.each(['nope.js', 'package.json', '..%2Fpackage.json', 'swagger-ui-bundle.js.map', 'toString', '__proto__'])('answers 404 for %s, a file it does not serve', async (name) => {
    const response = await api.request('GET', `/api/v1/docs/${name}`);

    expect(response.status).toBe(404);
    expect(response.body.message).toMatch(/no file named/);
  });
});

/** A GET whose body is returned as sent: fetch would decode a compressed one. */
function rawGet(path: string, acceptEncoding: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(`${api.baseUrl}${path}`, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
