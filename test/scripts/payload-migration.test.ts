import { gzipSync } from 'node:zlib';
import { runAdmin } from '../../scripts/admin';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { allOrganizationIds } from '../../shared/payload/migration';
import { queryAll } from '../../shared/db/repository';
import { payloadFromScratch, withoutDate } from '../support/payload-oracle';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * `npm run admin -- migrate-payloads` on an organization whose payload is stored as before: one
 * gzip item per environment, per-environment `refs` versions, no entries and no attribute types.
 */
let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const sdkItems = async (orgId: string) =>
  (
    await queryAll({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.organization(orgId).PK },
      ProjectionExpression: 'PK, SK',
      ConsistentRead: true,
    })
  ).filter((item) => /^(SDK_|ATTRIBUTE_TYPES)/.test(item.SK));

/** Makes the organization look as a deployment from before the per-feature payload left it. */
async function storeAsBefore(org: TestOrg) {
  const current = await sdkItems(org.orgId);
  for (let start = 0; start < current.length; start += 25) {
    const batch = current.slice(start, start + 25).map(({ PK, SK }) => ({ DeleteRequest: { Key: { PK, SK } } }));
    await db.batchWrite({ RequestItems: { [tableName()]: batch } });
  }
  const blob = gzipSync(JSON.stringify({ entries: { old: { defaultValue: 'stale' } } })).toString('base64');
  const former = [
    { PK: keys.organization(org.orgId).PK, SK: 'SDK_PAYLOAD#production#0', entityType: 'SDK_PAYLOAD', version: 3, chunks: 1, payload: blob },
    { PK: keys.organization(org.orgId).PK, SK: 'SDK_PAYLOAD#dev#0', entityType: 'SDK_PAYLOAD', version: 1, chunks: 1, payload: blob },
    { ...keys.sdkVersion(org.orgId, 'production', 'refs'), entityType: 'SDK_VERSION', version: 4, dateUpdated: '2026-01-01T00:00:00.000Z' },
  ];
  for (const Item of former) await db.put({ TableName: tableName(), Item });
}

async function seed() {
  const org = await createTestOrg('Migration');
  const post = (path: string, body: unknown) => api.request('POST', `/api/v1${path}`, { key: org.keys.admin, body });
  await post('/attributes', { property: 'accountId', datatype: 'number' });
  const group = await post('/saved-groups', { name: 'Accounts', attributeKey: 'accountId', values: ['1', '2'] });
  for (let i = 0; i < 40; i++) {
    await post('/features', {
      id: `flag-${i}`,
      valueType: 'string',
      defaultValue: `value ${i}`,
      environments: {
        production: { enabled: true, rules: [{ type: 'force', value: 'grouped', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group.body.savedGroup.id] }] }] },
        dev: { enabled: i % 2 === 0, rules: [] },
      },
    });
  }
  const connection = await post('/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' });
  return { org, key: connection.body.sdkConnection.key as string };
}

describe('migrate-payloads', () => {
  it('stores every served feature as an entry, writes the attribute types, deletes the former items, and serves what a from-scratch build gives', async () => {
    const { org, key } = await seed();
    await storeAsBefore(org);

    const printed = await runAdmin(['migrate-payloads', '--org', org.orgId]);
    const served = await api.request('GET', `/api/features/${key}`);
    const items = await sdkItems(org.orgId);

    expect(printed).toBe(`${org.orgId}: 60 entries written, 0 already there, 3 former items deleted, attribute types written\n1 organizations migrated`);
    expect(items.filter((item) => item.SK.startsWith('SDK_ENTRY#production#'))).toHaveLength(40);
    expect(items.filter((item) => item.SK.startsWith('SDK_ENTRY#dev#'))).toHaveLength(20);
    expect(items.filter((item) => /^SDK_PAYLOAD#|#refs$/.test(item.SK))).toEqual([]);
    expect(items.some((item) => item.SK === 'ATTRIBUTE_TYPES')).toBe(true);
    expect(withoutDate(served.body)).toEqual(await payloadFromScratch(org.orgId, 'production'));
    // The attribute types come from the item the migration wrote: a number attribute's list group goes out as numbers.
    expect(JSON.stringify(served.body.features['flag-0'].rules[0].condition)).toContain('[1,2]');
  });

  it('changes nothing the second time, and a change after it is served on the next request', async () => {
    const { org, key } = await seed();
    await storeAsBefore(org);
    await runAdmin(['migrate-payloads', '--org', org.orgId]);
    const before = await sdkItems(org.orgId);

    const again = await runAdmin(['migrate-payloads', '--org', org.orgId]);
    await api.request('POST', '/api/v1/features/flag-3', { key: org.keys.admin, body: { defaultValue: 'after' } });
    const served = await api.request('GET', `/api/features/${key}`);

    expect(again).toBe(`${org.orgId}: 0 entries written, 60 already there, 0 former items deleted\n1 organizations migrated`);
    expect((await sdkItems(org.orgId)).map((item) => item.SK)).toEqual(before.map((item) => item.SK));
    expect(served.body.features['flag-3'].defaultValue).toBe('after');
  });

  it('finds every organization when no --org is given, with a Query of the organizations index', async () => {
    const { org } = await seed();

    expect(await allOrganizationIds()).toContain(org.orgId);
  });

  it('lists an organization made before the organizations index once it is migrated with --org', async () => {
    const { org } = await seed();
    await db.update({ TableName: tableName(), Key: keys.organization(org.orgId), UpdateExpression: 'REMOVE GSI2PK, GSI2SK' });
    const before = await allOrganizationIds();

    await runAdmin(['migrate-payloads', '--org', org.orgId]);

    expect(before).not.toContain(org.orgId);
    expect(await allOrganizationIds()).toContain(org.orgId);
  });
});
