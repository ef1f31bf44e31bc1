import { dynamoMeter, watchCommands } from '../../shared/db/client';
import { newId } from '../../shared/ids';
import { readPageIndex, rebuildDuePageIndexes, rebuildPageIndex } from '../../shared/db/page-index';
import { repository } from '../../shared/db/repository';

interface Row {
  id: string;
  dateCreated: string;
  dateUpdated: string;
  n: number;
}

const indexed = repository<Row>({ type: 'FEATURE', label: 'Row', pageIndex: true });

/** Creates `count` rows; the first create finds no index and leaves it stale, so the scheduler's rebuild follows. */
async function seed(orgId: string, count: number) {
  for (let n = 0; n < count; n++) await indexed.create(orgId, { id: `r${String(n).padStart(4, '0')}`, n });
  expect(await rebuildPageIndex(orgId, 'FEATURE')).toBe(true);
}

const ids = (rows: Row[]) => rows.map((row) => row.id);

let seeded: string;

beforeAll(async () => {
  process.env.PAGE_INDEX_SETTLE_MS = '0';
  seeded = newId('org_pi_');
  await seed(seeded, 250);
});

describe('the page index', () => {
  it('serves every page exactly as a walk of all keys would', async () => {
    const org = seeded;

    for (const offset of [0, 1, 99, 100, 101, 199, 200, 245, 249, 250, 300]) {
      const page = await indexed.list(org, { offset, limit: 7 });
      expect(page.total).toBe(250);
      const expected = Array.from({ length: 250 }, (_, n) => `r${String(n).padStart(4, '0')}`).slice(offset, offset + 7);
      expect(ids(page.items)).toEqual(expected);
    }
    expect(await readPageIndex(org, 'FEATURE')).toMatchObject({ count: 250, stale: false });
    expect((await readPageIndex(org, 'FEATURE'))!.marks).toHaveLength(3);
  });

  it('reads a far page for about what a near one costs', async () => {
    const org = seeded;
    await indexed.list(org, { offset: 0, limit: 10 });

    dynamoMeter.reset();
    await indexed.list(org, { offset: 0, limit: 10 });
    const near = dynamoMeter.snapshot();
    dynamoMeter.reset();
    await indexed.list(org, { offset: 240, limit: 10 });
    const far = dynamoMeter.snapshot();

    expect(far.calls).toBe(near.calls);
    expect(far.readUnits).toBeLessThanOrEqual(near.readUnits + 1);
  });

  it('stays exact under concurrent creates', async () => {
    const org = newId('org_pi_');

    await Promise.all(Array.from({ length: 15 }, (_, n) => indexed.create(org, { id: `c${n}`, n })));
    const page = await indexed.list(org, { offset: 0, limit: 100 });

    expect(page.total).toBe(15);
    expect(ids(page.items).sort()).toEqual(Array.from({ length: 15 }, (_, n) => `c${n}`).sort());
  });

  it('goes stale on delete, lists correctly meanwhile without writing, and is rebuilt by the scheduler', async () => {
    const org = newId('org_pi_');
    await seed(org, 120);

    await indexed.remove(org, 'r0005');
    const stale = await readPageIndex(org, 'FEATURE');
    expect(stale).toMatchObject({ stale: true, GSI2PK: 'PAGE_INDEX_DUE', organization: org, entityId: 'FEATURE' });
    const written: string[] = [];
    const stop = watchCommands((command) => void (/Put|Update|Delete|Write/.test(command) && written.push(command)));
    const page = await indexed.list(org, { offset: 100, limit: 5 }).finally(stop);

    expect(page.total).toBe(119);
    expect(ids(page.items)).toEqual(['r0101', 'r0102', 'r0103', 'r0104', 'r0105']);
    expect(written).toEqual([]);
    expect(await readPageIndex(org, 'FEATURE')).toEqual(stale);

    expect(await rebuildDuePageIndexes()).toBeGreaterThanOrEqual(1);
    const rebuilt = await readPageIndex(org, 'FEATURE');
    expect(rebuilt).toMatchObject({ stale: false, count: 119 });
    expect(rebuilt).not.toHaveProperty('GSI2PK');
    expect(ids((await indexed.list(org, { offset: 100, limit: 5 })).items)).toEqual(['r0101', 'r0102', 'r0103', 'r0104', 'r0105']);
  });

  it('is not rebuilt before the list index has settled', async () => {
    const org = newId('org_pi_');
    await seed(org, 3);
    process.env.PAGE_INDEX_SETTLE_MS = '60000';
    try {
      await indexed.remove(org, 'r0001');
      expect(await rebuildPageIndex(org, 'FEATURE')).toBe(false);
      const { GSI2SK } = (await readPageIndex(org, 'FEATURE')) as unknown as { GSI2SK: string };
      expect(Date.parse(GSI2SK)).toBeGreaterThan(Date.now() + 50_000);
    } finally {
      process.env.PAGE_INDEX_SETTLE_MS = '0';
    }
    expect(await rebuildPageIndex(org, 'FEATURE')).toBe(true);
    expect(await readPageIndex(org, 'FEATURE')).toMatchObject({ stale: false, count: 2 });
  });

  it('answers 404 for a delete of a missing id and leaves the index exact', async () => {
    const org = newId('org_pi_');
    await seed(org, 3);

    await expect(indexed.remove(org, 'nope')).rejects.toMatchObject({ name: 'NotFoundError' });
    expect(await readPageIndex(org, 'FEATURE')).toMatchObject({ stale: false, count: 3 });
  });

  it('refuses a duplicate id with 409 and does not count it', async () => {
    const org = newId('org_pi_');
    await seed(org, 2);

    await expect(indexed.create(org, { id: 'r0001', n: 9 })).rejects.toMatchObject({ code: 'already_exists' });
    expect((await indexed.list(org, { offset: 0, limit: 10 })).total).toBe(2);
  });
});
