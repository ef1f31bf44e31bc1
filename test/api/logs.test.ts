import { randomBytes } from 'node:crypto';
import type { Api, TestOrg } from '../support/api';
import { captureOutput } from '../support/capture-output';

/**
 * No secret key reaches a log, even at DEBUG and even for refused or failing requests. The level
 * is set before any module loads, as LOG_LEVEL is in a Lambda container.
 */
let api: Api;
let org: TestOrg;

beforeAll(async () => {
  process.env.LOG_LEVEL = 'DEBUG';
  const support = await import('../support/api');
  api = await support.startApi();
  org = await support.createTestOrg('Logs');
});
afterAll(() => api.close());

describe('the logs', () => {
  it('never hold a secret key, not even for refused or failing requests', async () => {
    const unknownKey = `secret_admin_${randomBytes(32).toString('base64url')}`;
    const keys = [org.keys.admin, org.keys.readonly, org.keys.noaccess, unknownKey, org.admin.token];
    const created = await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body: { name: 'g', condition: '{"id":"1"}' } });
    const previousEndpoint = process.env.DYNAMODB_ENDPOINT;

    const output = await captureOutput(async () => {
      await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body: { name: 42 } }); // 400
      await api.request('POST', '/api/v1/saved-groups', { key: org.keys.readonly, body: { name: 'x', condition: '{"id":"1"}' } }); // 403
      await api.request('GET', '/api/v1/saved-groups', { key: org.keys.noaccess }); // 403
      await api.request('GET', '/api/v1/saved-groups/grp_missing', { key: org.admin.token }); // 404
      await api.request('GET', '/api/v1/saved-groups', { key: unknownKey }); // 401
      await api.request('GET', '/api/v1/saved-groups', { headers: { authorization: `Basic ${Buffer.from(`${unknownKey}:`).toString('base64')}` } }); // 401
      await api.request('GET', '/api/v1/saved-groups', { headers: { authorization: `Token ${org.keys.admin}` } }); // 401, unsupported scheme
      // DynamoDB out of reach: the handler throws an error that is not an ApiError, which is logged.
      process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
      try {
        const failing = await api.request('GET', `/api/v1/saved-groups/${created.body.savedGroup.id}`, { key: org.keys.admin });
        expect(failing.status).toBeGreaterThanOrEqual(500);
      } finally {
        process.env.DYNAMODB_ENDPOINT = previousEndpoint;
        }
    });

    expect(output).toContain('getSavedGroup'); // the failure was logged, so the capture saw the logs
    const randomParts = keys.map((key) => key.replace(/^secret_[a-z]+_/, ''));
    expect([...keys, ...randomParts].filter((secret) => output.includes(secret))).toEqual([]);
  }, 60_000);
});
