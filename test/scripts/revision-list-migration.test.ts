import { runAdmin } from '../../scripts/admin';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { readPageIndex, rebuildPageIndex } from '../../shared/db/page-index';
import { createTestOrg, startApi, type Api } from '../support/api';

let api: Api;
beforeAll(async () => {
  process.env.PAGE_INDEX_SETTLE_MS = '0';
  api = await startApi();
});
afterAll(async () => {
  delete process.env.PAGE_INDEX_SETTLE_MS;
  await api.close();
});

describe('admin migrate-revisions', () => {
  it('puts revisions stored before the revision list on it, and the list shows them once the index is rebuilt', async () => {
    const org = await createTestOrg();
    const get = (path: string) => api.request('GET', `/api/v2${path}`, { key: org.keys.admin });
    await api.request('POST', '/api/v1/features', { key: org.keys.admin, body: { id: 'old-flag', valueType: 'boolean', defaultValue: 'false' } });
    await api.request('POST', '/api/v1/features/old-flag', { key: org.keys.admin, body: { defaultValue: 'true' } });
    // As an earlier release stored them: no list keys.
    for (const version of [1, 2]) {
      await db.update({ TableName: tableName(), Key: keys.featureRevision(org.orgId, 'old-flag', version), UpdateExpression: 'REMOVE GSI1PK, GSI1SK, listTags' });
    }
    expect((await get('/feature-revisions')).body.total).toBe(0);

    const printed = await runAdmin(['migrate-revisions', '--org', org.orgId]);

    expect(printed).toContain(`${org.orgId}: 2 revisions listed`);
    expect((await readPageIndex(org.orgId, 'FEATURE_REVISION'))!.stale).toBe(true);
    const walked = (await get('/feature-revisions')).body;
    expect(walked.revisions.map((r: any) => r.version)).toEqual([2, 1]);
    await rebuildPageIndex(org.orgId, 'FEATURE_REVISION');
    expect((await get('/feature-revisions')).body).toEqual(walked);
    expect(await runAdmin(['migrate-revisions', '--org', org.orgId])).toContain(`${org.orgId}: 0 revisions listed`);
  });
});
