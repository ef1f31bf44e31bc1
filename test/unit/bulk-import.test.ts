import type { BulkImportFacts } from '../../shared/contracts/bulk-import';
import { factMetricId, planFactsImport, type ImportExisting, type ImportResolved } from '../../shared/domain/bulk-import';
import { newFactTable, type StoredFactTable } from '../../shared/domain/fact-tables';
import { factTables, transactInChunks, transactionChunks } from '../../shared/store/fact-tables';
import { newId } from '../../shared/ids';

const table = (name: string) => ({ name, datasource: 'ds', userIdTypes: ['id'], sql: 'S' });
const nothingStored: ImportExisting = { tables: new Map(), metrics: new Map() };
const resolved: ImportResolved = { owners: new Map(), unknownProjects: new Set(), defaultOwner: 'u_me' };
const body = (parts: Partial<BulkImportFacts>): BulkImportFacts => ({ factTables: [], factTableFilters: [], factMetrics: [], ...parts });

describe('planFactsImport', () => {
  it('applies filters to the table state the table items leave, and writes each table once', () => {
    const plan = planFactsImport(
      body({
        factTables: [{ id: 't', data: table('T') }],
        factTableFilters: [
          { factTableId: 't', id: 'a', data: { name: 'A', value: 'a' } },
          { factTableId: 't', id: 'b', data: { name: 'B', value: 'b' } },
        ],
      }),
      nothingStored,
      resolved,
      'now',
    );

    expect(plan.tables).toHaveLength(1);
    expect((plan.tables[0].next as StoredFactTable).filters.map((f) => [f.id, f.managedBy])).toEqual([
      ['a', 'api'],
      ['b', 'api'],
    ]);
    expect(plan.counts).toMatchObject({ factTablesAdded: 1, factTableFiltersAdded: 2 });
  });

  it('updates a stored table from its read version and keeps its owner', () => {
    const stored = { ...newFactTable('t', table('Old'), { owner: 'u_owner' }), dateCreated: 'c', dateUpdated: 'u' };
    const existing = { ...nothingStored, tables: new Map([['t', { entity: stored, version: 7 }]]) };

    const plan = planFactsImport(body({ factTables: [{ id: 't', data: table('New') }] }), existing, resolved, 'now');

    expect(plan.tables[0].current?.version).toBe(7);
    expect(plan.tables[0].next).toMatchObject({ name: 'New', owner: 'u_owner', managedBy: 'api' });
    expect(plan.counts).toMatchObject({ factTablesAdded: 0, factTablesUpdated: 1 });
  });

  it('gives new items the default owner and a named owner its member', () => {
    const owners = new Map([['me@example.com', { owner: 'u_1', ownerEmail: 'me@example.com' }]]);

    const plan = planFactsImport(
      body({ factTables: [{ id: 'a', data: table('A') }, { id: 'b', data: { ...table('B'), owner: 'me@example.com' } }] }),
      nothingStored,
      { ...resolved, owners },
      'now',
    );

    expect(plan.tables.map((u) => [u.next.owner, u.next.ownerEmail])).toEqual([
      ['u_me', undefined],
      ['u_1', 'me@example.com'],
    ]);
  });

  it('collects the error of every invalid item, in item order', () => {
    const plan = () =>
      planFactsImport(
        body({
          factTables: [{ id: 't', data: { ...table('T'), projects: ['prj_gone'] } }],
          factMetrics: [{ id: 'm', data: { name: 'M', metricType: 'proportion', numerator: { factTableId: 'nowhere' } } }],
        }),
        nothingStored,
        { ...resolved, unknownProjects: new Set(['prj_gone']) },
        'now',
      );

    expect(plan).toThrow(
      'Request body: [factTables.0.data.projects] unknown project prj_gone\nRequest body: [factMetrics.0.data.numerator.factTableId] no fact table nowhere',
    );
  });
});

describe('factMetricId', () => {
  it('adds the fact__ prefix only when it is missing', () => {
    expect([factMetricId('abc'), factMetricId('fact__abc')]).toEqual(['fact__abc', 'fact__abc']);
  });
});

describe('transactionChunks', () => {
  const op = (bytes: number) => ({ op: { Put: { TableName: 't', Item: { pad: 'x'.repeat(bytes) } } }, onConditionFailed: () => new Error() as never });

  it('keeps each transaction at 100 items at most', () => {
    expect(transactionChunks(Array.from({ length: 250 }, () => op(10))).map((chunk) => chunk.length)).toEqual([100, 100, 50]);
  });

  it('keeps each transaction under 4 MB', () => {
    const chunks = transactionChunks(Array.from({ length: 20 }, () => op(300 * 1024)));

    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(Buffer.byteLength(JSON.stringify(chunk.map((o) => o.op)))).toBeLessThan(4 * 1024 * 1024);
  });
});

describe('transactInChunks', () => {
  it('fails with 409 when a later chunk meets a concurrent change, and says how much was written', async () => {
    const orgId = newId('org_');
    await factTables.create(orgId, newFactTable('t120', table('Raced'), { owner: '' }));
    const ops = Array.from({ length: 150 }, (_, i) => factTables.prepareCreate(orgId, newFactTable(`t${i}`, table(`T${i}`), { owner: '' })));

    const attempt = transactInChunks(ops);

    await expect(attempt).rejects.toMatchObject({ name: 'ConflictError', message: expect.stringContaining('100 of 150 records were already written') });
    expect((await factTables.list(orgId, { limit: 1, offset: 0 })).total).toBe(101);
    expect((await factTables.get(orgId, 't120')).name).toBe('Raced');
  });
});
