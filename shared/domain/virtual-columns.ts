import type { FactTableColumn } from '../contracts/fact-tables';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import type { StoredFactTable } from './fact-tables';

type VirtualInput = Partial<Pick<FactTableColumn, 'name' | 'description' | 'numberFormat' | 'sql'>> & { datatype?: FactTableColumn['datatype'] };

/** The virtual column `column` of the table: 404 when it has none of that name, 400 when that column is a real one. */
export function findVirtualColumn(table: StoredFactTable, column: string): FactTableColumn {
  const found = (table.columns ?? []).find((c) => c.column === column && !c.deleted);
  if (!found) throw new NotFoundError(`Fact table ${table.id} has no virtual column ${column}`);
  if (!found.isVirtual) throw new InvalidInputError(`Column ${column} of fact table ${table.id} comes from its SQL, not a virtual column`);
  return found;
}

/** The table with a new virtual column (409 when the name is taken by a live column). */
export function withNewVirtualColumn(table: StoredFactTable, input: VirtualInput & { column: string; datatype: FactTableColumn['datatype']; sql: string }, now: string): StoredFactTable {
  const columns = table.columns ?? [];
  if (columns.some((c) => c.column === input.column && !c.deleted)) throw new ConflictError('already_exists', `Fact table ${table.id} already has a column ${input.column}`);
  const column: FactTableColumn = {
    column: input.column,
    datatype: input.datatype,
    numberFormat: input.numberFormat ?? '',
    jsonFields: {},
    name: input.name ?? input.column,
    description: input.description ?? '',
    alwaysInlineFilter: false,
    deleted: false,
    isAutoSliceColumn: false,
    autoSlices: [],
    lockedAutoSlices: [],
    isVirtual: true,
    sql: input.sql,
    dateCreated: now,
    dateUpdated: now,
  };
  return { ...table, columns: [...columns.filter((c) => c.column !== input.column), column] };
}

/** The table with its virtual column `column` changed, or removed (`change` undefined). */
export function withVirtualColumnChanged(table: StoredFactTable, column: string, change: VirtualInput | undefined, now: string): StoredFactTable {
  findVirtualColumn(table, column);
  const given = Object.fromEntries(Object.entries(change ?? {}).filter(([, v]) => v !== undefined));
  const columns = (table.columns ?? []).flatMap((c) => (c.column !== column ? [c] : change ? [{ ...c, ...given, dateUpdated: now }] : []));
  return { ...table, columns };
}

/**
 * The fact table's SQL as an analysis reads it: with virtual columns, its rows gain each one,
 * computed from the table's own columns; without, the SQL unchanged.
 */
export function sqlWithVirtualColumns(table: Pick<StoredFactTable, 'sql' | 'columns'>): string {
  const virtual = (table.columns ?? []).filter((c) => c.isVirtual && !c.deleted && c.sql);
  if (!virtual.length) return table.sql;
  const computed = virtual.map((c) => `(${c.sql}) AS "${c.column}"`).join(', ');
  return `SELECT __table.*, ${computed} FROM (\n${table.sql}\n) AS __table`;
}
