import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chooseEncoding } from '../../shared/api/encoding';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { commandsDuring } from '../support/dynamo-commands';

/**
 * How the payload travels: compressed when the client accepts it, cached in the warm container,
 * and with PAYLOAD_CACHE_MS served without any read for that long.
 */
let api: Api;
let org: TestOrg;
let key: string;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Serving');
  for (let i = 0; i < 30; i++) {
    await api.request('POST', '/api/v1/features', {
      key: org.keys.admin,
      body: {
        id: `flag-${i}`,
        valueType: 'string',
        defaultValue: `value ${i}`,
        environments: { production: { enabled: true, rules: [{ type: 'rollout', value: 'on', coverage: 0.3, hashAttribute: 'id', condition: '{"country":"NL"}' }] } },
      },
    });
  }
  const created = await api.request('POST', '/api/v1/sdk-connections', {
    key: org.keys.admin,
    body: { name: 'Web', language: 'javascript', environment: 'production' },
  });
  key = created.body.sdkConnection.key;
});
afterAll(() => api.close());

/** A raw GET (fetch would decompress for us), returning the bytes as sent. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${api.baseUrl}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('compression', () => {
  it('sends gzip, br or plain JSON as the client accepts, all the same payload, and says it varies by Accept-Encoding', async () => {
    const plain = await rawGet(`/api/features/${key}`, {});
    const gzip = await rawGet(`/api/features/${key}`, { 'accept-encoding': 'gzip, deflate' });
    const br = await rawGet(`/api/features/${key}`, { 'accept-encoding': 'gzip, deflate, br' });

    const payload = JSON.parse(plain.bytes.toString('utf8'));
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(gunzipSync(gzip.bytes).toString('utf8'))).toEqual(payload);
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString('utf8'))).toEqual(payload);
    expect(gzip.bytes.length).toBeLessThan(plain.bytes.length / 4);
    expect(br.bytes.length).toBeLessThan(gzip.bytes.length);
    for (const response of [plain, gzip, br]) {
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(response.headers.etag).toBe(plain.headers.etag);
    }
  });

  it('picks the encoding by the q-values of Accept-Encoding', () => {
    expect(chooseEncoding(undefined)).toBeUndefined();
    expect(chooseEncoding('identity')).toBeUndefined();
    expect(chooseEncoding('gzip;q=0, br;q=0')).toBeUndefined();
    expect(chooseEncoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(chooseEncoding('GZIP, BR')).toBe('br');
    expect(chooseEncoding('*')).toBe('br');
  });

  it('answers a revalidation with 304 and no body, compressed or not', async () => {
    const first = await rawGet(`/api/features/${key}`, { 'accept-encoding': 'gzip' });

    const again = await rawGet(`/api/features/${key}`, { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag as string });

    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    // A cache revalidating keeps the body it has under the headers the 304 carries: the same as the 200's.
    expect(again.headers['cache-control']).toBe('public, max-age=30, stale-while-revalidate=3600, stale-if-error=36000');
    expect(again.headers['access-control-expose-headers']).toBe(first.headers['access-control-expose-headers']);
  });
});

describe('CORS', () => {
  it('answers a preflight for the payload with any requested headers, and the GET lets the browser read the body and ETag', async () => {
    const preflight = await fetch(`${api.baseUrl}/api/features/${key}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match,x-sdk-version' },
    });
    const get = await api.request('GET', `/api/features/${key}`, { headers: { origin: 'https://shop.example', 'x-sdk-version': '1.2.0' } });

    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('if-none-match,x-sdk-version');
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    expect(get.headers.get('access-control-expose-headers')).toMatch(/etag/i);
  });
});

describe('the warm container', () => {
  it('answers a revalidation with one Query of the versions, and nothing else', async () => {
    const first = await api.request('GET', `/api/features/${key}`);

    const sent = await commandsDuring(() => api.request('GET', `/api/features/${key}`, { headers: { 'if-none-match': first.headers.get('etag')! } }));

    expect(sent).toEqual(['QueryCommand']);
  });

  it('sees a saved group change on the next request; the change is two reads side by side (the group, the approval settings) and one transaction that also moves the version', async () => {
    const group = await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body: { name: 'Dutch', attributeKey: 'id', values: ['u1'] } });
    await api.request('POST', '/api/v1/features/flag-5', {
      key: org.keys.admin,
      body: { environments: { production: { enabled: true, rules: [{ type: 'force', value: 'grouped', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group.body.savedGroup.id] }] }] } } },
    });
    const before = await api.request('GET', `/api/features/${key}`);

    const sent = await commandsDuring(() =>
      api.request('POST', `/api/v1/saved-groups/${group.body.savedGroup.id}`, { key: org.keys.admin, body: { values: ['u1', 'u2'] } }),
    );
    const after = await api.request('GET', `/api/features/${key}`, { headers: { 'if-none-match': before.headers.get('etag')! } });

    expect(sent).toEqual(['GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
    expect(JSON.stringify(before.body.features['flag-5'])).not.toContain('u2');
    expect(after.status).toBe(200);
    expect(JSON.stringify(after.body.features['flag-5'])).toContain('u2');
    expect(after.body.dateUpdated > before.body.dateUpdated).toBe(true);
  });

  it('keeps serving its cached body when only another environment changed', async () => {
    const first = await api.request('GET', `/api/features/${key}`);
    await api.request('POST', '/api/v1/features/flag-6', { key: org.keys.admin, body: { environments: { dev: { enabled: true, rules: [] } } } });

    const sent = await commandsDuring(() => api.request('GET', `/api/features/${key}`, { headers: { 'if-none-match': first.headers.get('etag')! } }));

    expect(sent).toEqual(['QueryCommand']);
  });

  it('follows a change of its connection on the next request: encryption turned on, then the connection deleted', async () => {
    const created = await api.request('POST', '/api/v1/sdk-connections', {
      key: org.keys.admin,
      body: { name: 'Changing', language: 'javascript', environment: 'production' },
    });
    const { id, key: changingKey } = created.body.sdkConnection;
    const clear = await api.request('GET', `/api/features/${changingKey}`);

    await api.request('PUT', `/api/v1/sdk-connections/${id}`, { key: org.keys.admin, body: { encryptPayload: true } });
    const encrypted = await api.request('GET', `/api/features/${changingKey}`);
    await api.request('DELETE', `/api/v1/sdk-connections/${id}`, { key: org.keys.admin });
    const deleted = await api.request('GET', `/api/features/${changingKey}`);

    expect(Object.keys(clear.body.features).length).toBeGreaterThan(0);
    expect(encrypted.body.features).toEqual({});
    expect(encrypted.body.encryptedFeatures).toEqual(expect.any(String));
    expect(deleted.status).toBe(404);
  });

  it('with PAYLOAD_CACHE_MS, serves without any read for that long, then sees the change', async () => {
    await api.request('GET', `/api/features/${key}`);
    process.env.PAYLOAD_CACHE_MS = '600000';
    try {
      await api.request('GET', `/api/features/${key}`);
      await api.request('POST', '/api/v1/features/flag-3', { key: org.keys.admin, body: { defaultValue: 'changed' } });
      let cached: any;
      const sent = await commandsDuring(async () => {
        cached = (await api.request('GET', `/api/features/${key}`)).body;
      });

      expect(sent).toEqual([]);
      expect(cached.features['flag-3'].defaultValue).toBe('value 3');
    } finally {
      delete process.env.PAYLOAD_CACHE_MS;
    }
    const fresh = (await api.request('GET', `/api/features/${key}`)).body;
    expect(fresh.features['flag-3'].defaultValue).toBe('changed');
  });

  it('keeps an encrypted payload the same between requests while nothing changes, and a new one after a change', async () => {
    const created = await api.request('POST', '/api/v1/sdk-connections', {
      key: org.keys.admin,
      body: { name: 'Encrypted', language: 'javascript', environment: 'production', encryptPayload: true },
    });
    const encryptedKey = created.body.sdkConnection.key;

    const first = await api.request('GET', `/api/features/${encryptedKey}`);
    const second = await api.request('GET', `/api/features/${encryptedKey}`);
    await api.request('POST', '/api/v1/features/flag-4', { key: org.keys.admin, body: { defaultValue: 'changed' } });
    const third = await api.request('GET', `/api/features/${encryptedKey}`);

    expect(second.body.encryptedFeatures).toBe(first.body.encryptedFeatures);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(third.body.encryptedFeatures).not.toBe(first.body.encryptedFeatures);
    expect(third.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });
});
