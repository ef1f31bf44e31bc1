import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { parse } from 'yaml';
import * as contract from '../../shared/contracts/system';
import { expectShape, startApi, type Api } from '../support/api';

let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

// SERVICE_VERSION is kept by hand next to package.json's version; this is what keeps the two equal.
const packageVersion = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).version;

describe('GET /api/v1 (health check)', () => {
  it.each(['/api/v1', '/api/v1/'])('answers %s without a key with the name, API version and build', async (path) => {
    const response = await api.request('GET', path);

    expect(response.status).toBe(200);
    expectShape(contract.getApiInfo, response.body);
    expect(response.body).toEqual({ name: 'Switchyard API', apiVersion: 1, build: { sha: '', date: '', lastVersion: packageVersion } });
  });

  it('answers a key that is not valid the same way, as it needs none', async () => {
    const response = await api.request('GET', '/api/v1', { headers: { authorization: 'Bearer nonsense' } });

    expect(response.status).toBe(200);
  });
});

describe('GET /api/v1/version', () => {
  it('answers the release of package.json without a key', async () => {
    const response = await api.request('GET', '/api/v1/version');

    expect(response.status).toBe(200);
    expectShape(contract.getVersion, response.body);
    expect(response.body.version).toBe(packageVersion);
  });
});

describe('GET /api/v1/openapi.yaml', () => {
  it('serves the same document as openapi.json, as YAML, without a key', async () => {
    const [yamlResponse, jsonResponse] = await Promise.all([
      api.request('GET', '/api/v1/openapi.yaml'),
      api.request('GET', '/api/v1/openapi.json'),
    ]);

    expect(yamlResponse.status).toBe(200);
    expect(yamlResponse.headers.get('content-type')).toMatch(/^text\/yaml/);
    expect(typeof yamlResponse.body).toBe('string');
    expect(parse(yamlResponse.body)).toEqual(jsonResponse.body);
  });

  it('lists the health check, version and YAML routes themselves', async () => {
    const document = parse((await api.request('GET', '/api/v1/openapi.yaml')).body);

    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/v1', '/api/v1/version', '/api/v1/openapi.yaml']));
  });

  it('answers 404 Unknown API endpoint for a method it does not serve', async () => {
    const response = await api.request('DELETE', '/api/v1/openapi.yaml');

    expect(response.status).toBe(404);
  });
});

describe('GET /healthcheck (GrowthBook Proxy)', () => {
  it("answers at the root, as GrowthBook does, without a key, with GrowthBook's body", async () => {
    const response = await api.request('GET', '/healthcheck');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expectShape(contract.getHealthcheck, response.body);
    expect(response.body).toEqual({ status: 200, healthy: true });
  });

  it('answers a key that is not valid the same way, as it needs none', async () => {
    const response = await api.request('GET', '/healthcheck', { headers: { authorization: 'Bearer nonsense' } });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 200, healthy: true });
  });

  it('is not under /api/v1, as it is not in GrowthBook', async () => {
    const response = await api.request('GET', '/api/v1/healthcheck');

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Unknown API endpoint' });
  });

  it.each(['POST', 'PUT', 'DELETE'])('answers %s with 404 Unknown API endpoint, as it serves only GET', async (method) => {
    const response = await api.request(method, '/healthcheck', { body: {} });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Unknown API endpoint' });
  });
});

describe('a path with a trailing slash (the $default route)', () => {
  /** The status and Location of a request sent with `path` exactly as written (fetch would rewrite a backslash). */
  const redirectOf = (path: string) =>
    new Promise<{ status: number; location?: string }>((resolve, reject) => {
      const url = new URL(api.baseUrl);
      request({ host: url.hostname, port: url.port, path, method: 'GET' }, (response) => {
        response.resume();
        resolve({ status: response.statusCode!, location: response.headers.location });
      })
        .on('error', reject)
        .end();
    });

  it.each(['//evil.example.com/', '///evil.example.com//', '/\\evil.example.com/', '//evil.example.com/?next=1'])(
    'redirects %p to a path on this host, never to one starting with // or /\\',
    async (path) => {
      const { status, location } = await redirectOf(path);

      expect(status).toBe(308);
      expect(location).toMatch(/^\/evil\.example\.com(\?next=1)?$/);
    },
  );
});
