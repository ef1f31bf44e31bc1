import { InvalidInputError } from '../../errors';
import type { FactMetric } from '../../contracts/fact-metrics';
import type { StoredFactTable } from '../../domain/fact-tables';
import { identifier, literal } from './dialect';

type Side = FactMetric['numerator'] | NonNullable<FactMetric['denominator']>;
type RowFilter = NonNullable<Side['rowFilters']>[number];

const numeric = /^-?\d+(\.\d+)?$/;

/** A value compared with a column: a bare number for numeric columns, a string literal otherwise. */
function valueSql(table: StoredFactTable, column: string, value: string): string {
  const datatype = table.columns?.find((c) => c.column === column)?.datatype;
  return datatype !== 'string' && numeric.test(value) ? value : literal(value);
}

function filterValue(table: StoredFactTable, id: string): string {
  const filter = table.filters.find((f) => f.id === id);
  if (!filter) throw new InvalidInputError(`Filter ${id} of fact table ${table.id} no longer exists`);
  return `(${filter.value})`;
}

function rowFilterSql(table: StoredFactTable, row: RowFilter): string[] {
  const values = row.values ?? [];
  if (row.operator === 'sql_expr') return values.map((v) => `(${v})`);
  if (row.operator === 'saved_filter') return values.map((id) => filterValue(table, id));
  const col = identifier(row.column ?? '');
  const first = values[0] ?? '';
  const like = (pattern: string) => `${col} LIKE ${literal(pattern)}`;
  switch (row.operator) {
    case '=':
    case '>':
    case '<':
    case '>=':
    case '<=':
      return [`${col} ${row.operator} ${valueSql(table, row.column!, first)}`];
    case '!=':
      return [`${col} <> ${valueSql(table, row.column!, first)}`];
    case 'in':
    case 'not_in':
      if (values.length === 0) return [];
      return [`${col} ${row.operator === 'in' ? 'IN' : 'NOT IN'} (${values.map((v) => valueSql(table, row.column!, v)).join(', ')})`];
    case 'is_null':
      return [`${col} IS NULL`];
    case 'not_null':
      return [`${col} IS NOT NULL`];
    case 'is_true':
      return [`${col} IS TRUE`];
    case 'is_false':
      return [`${col} IS FALSE`];
    case 'contains':
      return [like(`%${first}%`)];
    case 'not_contains':
      return [`NOT (${like(`%${first}%`)})`];
    case 'starts_with':
      return [like(`${first}%`)];
    case 'ends_with':
      return [like(`%${first}`)];
  }
}

/**
 * The SQL conditions one side of a metric puts on its fact table's rows: its fact-table filters,
 * inline filters (column IN values) and row filters, to be ANDed.
 */
export function sideConditions(table: StoredFactTable, side: Side): string[] {
  const conditions = (side.filters ?? []).map((id) => filterValue(table, id));
  for (const [column, values] of Object.entries(side.inlineFilters ?? {})) {
    const nonEmpty = values.filter((v) => v !== '');
    if (nonEmpty.length === 1) conditions.push(`${identifier(column)} = ${valueSql(table, column, nonEmpty[0]!)}`);
    else if (nonEmpty.length > 1) conditions.push(`${identifier(column)} IN (${nonEmpty.map((v) => valueSql(table, column, v)).join(', ')})`);
  }
  for (const row of side.rowFilters ?? []) conditions.push(...rowFilterSql(table, row));
  return conditions;
}
