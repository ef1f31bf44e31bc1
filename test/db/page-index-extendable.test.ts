import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { newId } from '../../shared/ids';
import {
  EXTEND_EVERY_MS,
  EXTEND_IDLE_MS,
  STRIDE,
  prepareEnsureExtendable,
  readPageIndex,
  rebuildDuePageIndexes,
  rebuildPageIndex,
  tailKeys,
} from '../../shared/db/page-index';
import { transact } from '../../shared/db/repository';

/** List-index entries of the revision list, `count` of them, `ageMs` old and one second apart. */
async function listed(orgId: string, count: number, ageMs: number) {
  const start = Date.now() - ageMs;
  for (let n = 0; n < count; n++) {
    const date = new Date(start + n * 1000).toISOString();
    await db.put({
      TableName: tableName(),
      Item: { PK: `TEST#${orgId}`, SK: `ENTRY#${date}#${n}`, GSI1PK: keys.listPartition(orgId, 'FEATURE_REVISION'), GSI1SK: `${date}#${n}` },
    });
  }
}

afterEach(() => {
  delete process.env.PAGE_INDEX_SETTLE_MS;
});

describe('an extendable page index', () => {
  it('is made, stale and due, by the first ensure, and left as it is by the next ones', async () => {
    const orgId = newId('org_ext_');

    await transact([prepareEnsureExtendable(orgId, 'FEATURE_REVISION')]);
    const made = await readPageIndex(orgId, 'FEATURE_REVISION');
    await transact([prepareEnsureExtendable(orgId, 'FEATURE_REVISION')]);

    expect(made).toEqual(expect.objectContaining({ count: 0, stale: true, extendable: true, version: 1 }));
    expect(await readPageIndex(orgId, 'FEATURE_REVISION')).toEqual(made);
  });

  it('folds the keys written since its last build in, and stays due for the next time', async () => {
    process.env.PAGE_INDEX_SETTLE_MS = '0';
    const orgId = newId('org_ext_');
    await listed(orgId, 150, 3_600_000);
    await transact([prepareEnsureExtendable(orgId, 'FEATURE_REVISION')]);
    expect(await rebuildPageIndex(orgId, 'FEATURE_REVISION')).toBe(true);
    const built = (await readPageIndex(orgId, 'FEATURE_REVISION'))!;
    await listed(orgId, 120, 1_800_000);

    expect((await tailKeys(keys.listPartition(orgId, 'FEATURE_REVISION'), built)).length).toBe(120);
    // What the scheduler's run does for this index once it is due again.
    expect(await rebuildPageIndex(orgId, 'FEATURE_REVISION')).toBe(true);

    const extended = (await readPageIndex(orgId, 'FEATURE_REVISION'))!;
    expect(extended).toEqual(expect.objectContaining({ count: 270, stale: false, extendable: true }));
    // A mark at every STRIDE-th key of the whole list, the folded tail included.
    expect(extended.marks).toHaveLength(Math.ceil(270 / STRIDE));
    expect((await tailKeys(keys.listPartition(orgId, 'FEATURE_REVISION'), extended)).length).toBe(0);
    const { Item } = await db.get({ TableName: tableName(), Key: keys.pageIndex(orgId, 'FEATURE_REVISION') });
    expect(Item?.GSI2PK).toBe(keys.pageIndexDuePartition());
    expect(Date.parse(Item?.GSI2SK) - Date.now()).toBeGreaterThan(EXTEND_EVERY_MS - 10_000);
  });

  it('leaves keys newer than the settle time in the tail: one still on its way to the list index would shift every position', async () => {
    process.env.PAGE_INDEX_SETTLE_MS = '0';
    const orgId = newId('org_ext_');
    await listed(orgId, 5, 3_600_000);
    await transact([prepareEnsureExtendable(orgId, 'FEATURE_REVISION')]);
    await rebuildPageIndex(orgId, 'FEATURE_REVISION');
    await listed(orgId, 3, 0);
    process.env.PAGE_INDEX_SETTLE_MS = '600000';

    expect(await rebuildPageIndex(orgId, 'FEATURE_REVISION')).toBe(true);

    const extended = (await readPageIndex(orgId, 'FEATURE_REVISION'))!;
    expect(extended.count).toBe(5);
    expect((await tailKeys(keys.listPartition(orgId, 'FEATURE_REVISION'), extended)).length).toBe(3);
  });

  it('with nothing new to fold in, is due again only after EXTEND_IDLE_MS (an idle organization costs a write per 10 minutes)', async () => {
    process.env.PAGE_INDEX_SETTLE_MS = '0';
    const orgId = newId('org_ext_');
    await listed(orgId, 3, 3_600_000);
    await transact([prepareEnsureExtendable(orgId, 'FEATURE_REVISION')]);
    expect(await rebuildPageIndex(orgId, 'FEATURE_REVISION')).toBe(true);

    expect(await rebuildPageIndex(orgId, 'FEATURE_REVISION')).toBe(true);

    const { Item } = await db.get({ TableName: tableName(), Key: keys.pageIndex(orgId, 'FEATURE_REVISION') });
    expect(Item).toEqual(expect.objectContaining({ count: 3, stale: false }));
    expect(Date.parse(Item?.GSI2SK) - Date.now()).toBeGreaterThan(EXTEND_IDLE_MS - 10_000);
  });

  it('are all reached by one scheduler run, page after page, however many are due before them', async () => {
    process.env.PAGE_INDEX_SETTLE_MS = '0';
    const orgs = [newId('org_ext_'), newId('org_ext_'), newId('org_ext_')];
    for (const orgId of orgs) {
      await listed(orgId, 2, 3_600_000);
      await transact([prepareEnsureExtendable(orgId, 'FEATURE_REVISION')]);
    }

    // Two indexes a page: a run that read a single page would leave one of the three stale.
    await rebuildDuePageIndexes(new Date(Date.now() + 1_000), 2, 10_000);

    for (const orgId of orgs) expect(await readPageIndex(orgId, 'FEATURE_REVISION')).toEqual(expect.objectContaining({ count: 2, stale: false }));
  }, 60_000);
});
