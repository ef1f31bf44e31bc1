import { mergeColumns, newFactTable, newFilter, pageOf, withFilter, withoutFilter, type StoredFactTable } from '../../shared/domain/fact-tables';

const table = (managedBy: '' | 'api' | 'admin' = ''): StoredFactTable => ({
  ...newFactTable('ftb_1', { name: 'T', datasource: 'ds', userIdTypes: ['id'], sql: 'S', managedBy }, { owner: '' }),
  dateCreated: 'c',
  dateUpdated: 'u',
});

describe('mergeColumns', () => {
  it('adds unknown columns with defaults, updates named ones, and keeps the rest', () => {
    const first = mergeColumns([], [{ column: 'a', datatype: 'number' }, { column: 'b', datatype: 'string' }], 't1');

    const second = mergeColumns(first, [{ column: 'a', datatype: 'number', deleted: true }], 't2');

    expect(second.map((c) => [c.column, c.deleted, c.dateCreated, c.dateUpdated])).toEqual([
      ['a', true, 't1', 't2'],
      ['b', false, 't1', 't1'],
    ]);
  });

  it('refuses a column named twice in one update', () => {
    expect(() => mergeColumns([], [{ column: 'a', datatype: 'number' }, { column: 'a', datatype: 'number' }], 't')).toThrow('[columns.1.column]');
  });
});

describe('filters of a fact table', () => {
  it('replaces a filter with the same id instead of adding a second one', () => {
    const once = withFilter(table(), newFilter('f', { name: 'A', value: 'a' }, 't'));

    const twice = withFilter(once, newFilter('f', { name: 'B', value: 'b' }, 't'));

    expect(twice.filters.map((f) => f.name)).toEqual(['B']);
  });

  it('lets a filter be API-managed only on an API-managed table', () => {
    const filter = newFilter('f', { name: 'A', value: 'a', managedBy: 'api' }, 't');

    expect(() => withFilter(table(''), filter)).toThrow('[managedBy]');
    expect(withFilter(table('api'), filter).filters).toHaveLength(1);
  });

  it('answers 404 when removing a filter the table does not have', () => {
    expect(() => withoutFilter(table(), 'missing')).toThrow(expect.objectContaining({ name: 'NotFoundError' }));
  });
});

describe('pageOf', () => {
  it('slices a page and reports the total', () => {
    expect(pageOf([1, 2, 3, 4, 5], { limit: 2, offset: 3 })).toEqual({ items: [4, 5], total: 5 });
  });
});
