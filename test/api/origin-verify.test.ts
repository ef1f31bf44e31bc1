import { ORIGIN_VERIFY_ENV, ORIGIN_VERIFY_HEADER } from '../../shared/api/origin';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
const secret = 'a-secret-only-cloudfront-sends-0123456789abcdef';
const viaCloudFront = { [ORIGIN_VERIFY_HEADER]: secret };

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
});
afterAll(() => api.close());

describe('with requireCloudFront (ORIGIN_VERIFY_SECRET set)', () => {
  beforeAll(() => (process.env[ORIGIN_VERIFY_ENV] = secret));
  afterAll(() => delete process.env[ORIGIN_VERIFY_ENV]);

  const savedGroupNames = async () => {
    const response = await api.request('GET', '/api/v1/saved-groups', { key: org.keys.admin, headers: viaCloudFront });
    return (response.body.savedGroups as { name: string }[]).map((group) => group.name);
  };

  it('refuses a keyed write without the origin header with 403 naming CloudFront, and writes nothing', async () => {
    const response = await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body: { name: 'Bypass', condition: '{"id":"1"}' } });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: 'forbidden', message: expect.stringMatching(/CloudFront/) });
    expect(await savedGroupNames()).not.toContain('Bypass');
  });

  it('refuses a wrong origin header value, and one of the same length', async () => {
    const wrong = await api.request('GET', '/api/v1/saved-groups', { key: org.keys.admin, headers: { [ORIGIN_VERIFY_HEADER]: 'guess' } });
    const sameLength = await api.request('GET', '/api/v1/saved-groups', {
      key: org.keys.admin,
      headers: { [ORIGIN_VERIFY_HEADER]: secret.replace(/.$/, 'X') },
    });

    expect(wrong.status).toBe(403);
    expect(sameLength.status).toBe(403);
  });

  it('refuses the public SDK payload route without the header, before looking at the client key', async () => {
    const response = await api.request('GET', '/api/features/sdk-unknown');

    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
  });

  it('serves requests that carry the header, as CloudFront sends them', async () => {
    const created = await api.request('POST', '/api/v1/saved-groups', {
      key: org.keys.admin,
      body: { name: 'Through CloudFront', condition: '{"id":"1"}' },
      headers: viaCloudFront,
    });

    expect(created.status).toBe(200);
    expect(await savedGroupNames()).toContain('Through CloudFront');
  });

  it('still checks the key of a request that carries the header', async () => {
    const response = await api.request('GET', '/api/v1/saved-groups', { key: 'secret_admin_not-a-key', headers: viaCloudFront });

    expect(response.status).toBe(401);
  });
});

describe('without requireCloudFront (no ORIGIN_VERIFY_SECRET, as locally and by default)', () => {
  it('serves requests without the origin header', async () => {
    const response = await api.request('GET', '/api/v1/saved-groups', { key: org.keys.admin });

    expect(process.env[ORIGIN_VERIFY_ENV]).toBeUndefined();
    expect(response.status).toBe(200);
  });
});
