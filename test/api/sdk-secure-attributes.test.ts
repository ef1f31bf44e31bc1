import { createHash } from 'node:crypto';
import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { runAdmin } from '../../scripts/admin';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * `hashSecureAttributes` as a user of the real GrowthBook SDK meets it: values compared with
 * secureString attributes go out as sha256(salt + value), an app that hashes its user's values the
 * same way gets the same answers, and no clear value is anywhere in the body.
 */

let api: Api;
let org: TestOrg;
let salt: string;
let hashedKey: string;
let plainKey: string;

const secrets = ['ann@vip.example', 'vip@corp.example', 'beta-tester', 'exp@vip.example'];
const hash = (value: string) => createHash('sha256').update(salt + value).digest('hex');

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

const production = (rules: unknown[]) => ({ production: { enabled: true, rules } });

async function sdkFor(attributes: Record<string, unknown>) {
  clearCache();
  const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey: hashedKey, attributes });
  await gb.init({ timeout: 5000 });
  return gb;
}

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  salt = await runAdmin(['salt', 'set', '--org', org.orgId, '--salt', 'pepper-1']);
  await ok('POST', '/attributes', { property: 'email', datatype: 'secureString' });
  await ok('POST', '/attributes', { property: 'labels', datatype: 'secureString[]' });
  const vips = (await ok('POST', '/saved-groups', { name: 'VIPs', attributeKey: 'email', values: ['vip@corp.example'] })).savedGroup.id;
  await ok('POST', '/features', {
    id: 'vip-banner',
    valueType: 'boolean',
    defaultValue: 'false',
    environments: production([
      { type: 'force', value: 'true', condition: '{"email":{"$in":["ann@vip.example"]}}' },
      { type: 'force', value: 'true', savedGroupTargeting: [{ matchType: 'any', savedGroups: [vips] }] },
    ]),
  });
  await ok('POST', '/features', {
    id: 'beta-tools',
    valueType: 'boolean',
    defaultValue: 'false',
    environments: production([{ type: 'force', value: 'true', condition: '{"labels":{"$elemMatch":{"$eq":"beta-tester"}}}' }]),
  });
  const { experiment } = await ok('POST', '/experiments', {
    trackingKey: 'secure-exp',
    name: 'Secure',
    status: 'running',
    variations: [{ key: 'a', name: 'A' }, { key: 'b', name: 'B' }],
    phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 1, variationWeights: [0, 1], condition: '{"email":"exp@vip.example"}' }],
  });
  const [a, b] = experiment.variations.map((v: { variationId: string }) => v.variationId);
  await ok('POST', '/features', {
    id: 'exp-flag',
    valueType: 'string',
    defaultValue: 'none',
    environments: production([{ type: 'experiment-ref', experimentId: experiment.id, variations: [{ variationId: a, value: 'A' }, { variationId: b, value: 'B' }] }]),
  });
  const connection = (body: Record<string, unknown>) =>
    ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production', ...body });
  hashedKey = (await connection({ hashSecureAttributes: true })).sdkConnection.key;
  plainKey = (await connection({})).sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('hashSecureAttributes', () => {
  it('sends no clear value of a secure attribute anywhere in the body, where a plain connection does', async () => {
    const hashed = await fetch(`${api.baseUrl}/api/features/${hashedKey}`).then((response) => response.text());
    const plain = await fetch(`${api.baseUrl}/api/features/${plainKey}`).then((response) => response.text());

    for (const secret of secrets) {
      expect(hashed).not.toContain(secret);
      expect(plain).toContain(secret);
    }
    expect(hashed).toContain(hash('ann@vip.example'));
  });

  it('matches a user whose app hashes the value with the salt, and not one sending it in clear', async () => {
    const hashedUser = await sdkFor({ email: hash('ann@vip.example') });
    const clearUser = await sdkFor({ email: 'ann@vip.example' });

    expect(hashedUser.isOn('vip-banner')).toBe(true);
    expect(clearUser.isOn('vip-banner')).toBe(false);
    hashedUser.destroy();
    clearUser.destroy();
  });

  it('hashes list-group values, array attributes and experiment conditions alike', async () => {
    const groupMember = await sdkFor({ email: hash('vip@corp.example') });
    const labelled = await sdkFor({ labels: ['x', hash('beta-tester')] });
    const enrolled = await sdkFor({ id: 'u-1', email: hash('exp@vip.example') });

    expect(groupMember.isOn('vip-banner')).toBe(true);
    expect(labelled.isOn('beta-tools')).toBe(true);
    expect(enrolled.getFeatureValue('exp-flag', '')).toBe('B');
    for (const gb of [groupMember, labelled, enrolled]) gb.destroy();
  });

  it('follows a new salt set with the admin CLI', async () => {
    const next = await runAdmin(['salt', 'set', '--org', org.orgId]);
    salt = next;

    const gb = await sdkFor({ email: hash('ann@vip.example') });

    expect(next).not.toBe('pepper-1');
    expect(await runAdmin(['salt', 'show', '--org', org.orgId])).toBe(next);
    expect(gb.isOn('vip-banner')).toBe(true);
    gb.destroy();
  });
});
