import { InvalidInputError, NotFoundError } from '../errors';
import type {
  FactTable,
  FactTableColumn,
  FactTableColumnInput,
  FactTableCreate,
  FactTableFilter,
  FactTableFilterCreate,
  FactTableFilterUpdate,
  FactTableUpdate,
} from '../contracts/fact-tables';

/**
 * A fact table as stored: its API shape plus its filters. The filters live in the table's item
 * (as in GrowthBook), so a filter id is scoped to its table, a table and its filters change
 * atomically, and deleting a table takes its filters with it.
 */
export type StoredFactTable = FactTable & { filters: FactTableFilter[] };

export type { OwnerFields } from './owner';
import type { OwnerFields } from './owner';

type Draft<T> = Omit<T, 'dateCreated' | 'dateUpdated'>;

const bad = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** The list-index tag of a metric or segment that uses a fact table. */
export const usesTableTag = (factTableId: string) => `uses:${factTableId}`;
/** The list-index tag of a metric or segment that uses one filter of a fact table. */
export const usesFilterTag = (factTableId: string, filterId: string) => `filter:${factTableId}/${filterId}`;

/** The list-index tags recording that something uses a fact table and some of its filters. */
export function factTableTags(factTableId: string, filterIds: string[]): string[] {
  return [usesTableTag(factTableId), ...filterIds.map((filterId) => usesFilterTag(factTableId, filterId))];
}

/** The API shape of a stored fact table: its filters are served by their own endpoints. */
export function publicFactTable({ filters: _filters, ...table }: StoredFactTable): FactTable {
  return table;
}

/**
 * A new fact table with GrowthBook's defaults. It starts without columns: there is no query
 * engine here to discover them from `sql`, so columns come from updates.
 */
export function newFactTable(id: string, data: Omit<FactTableCreate, 'owner'>, owner: OwnerFields): Draft<StoredFactTable> {
  return {
    id,
    name: data.name,
    description: data.description ?? '',
    ...owner,
    projects: data.projects ?? [],
    tags: data.tags ?? [],
    datasource: data.datasource,
    userIdTypes: data.userIdTypes,
    sql: data.sql,
    eventName: data.eventName ?? '',
    columns: [],
    columnsError: null,
    archived: false,
    managedBy: data.managedBy ?? '',
    filters: [],
  };
}

/**
 * Applies the columns of an update: a named column that exists gets the given properties, an
 * unknown one is added with the reference defaults, and unnamed columns stay as they are
 * (mark one `deleted` to retire it).
 */
export function mergeColumns(existing: FactTableColumn[], inputs: FactTableColumnInput[], now: string, at = ''): FactTableColumn[] {
  const byName = new Map(existing.map((column) => [column.column, column]));
  const seen = new Set<string>();
  inputs.forEach(({ dateCreated: _created, dateUpdated: _updated, ...input }, i) => {
    if (seen.has(input.column)) throw bad(`${at}columns.${i}.column`, `column ${input.column} is named twice`);
    seen.add(input.column);
    const current = byName.get(input.column);
    byName.set(
      input.column,
      current
        ? { ...current, ...input, dateUpdated: now }
        : {
            numberFormat: '',
            jsonFields: {},
            name: input.column,
            description: '',
            alwaysInlineFilter: false,
            deleted: false,
            isAutoSliceColumn: false,
            autoSlices: [],
            lockedAutoSlices: [],
            ...input,
            dateCreated: now,
            dateUpdated: now,
          },
    );
  });
  return [...byName.values()];
}

/** The fact table after a partial update (owner already resolved by the caller). */
export function updatedFactTable(
  current: StoredFactTable,
  change: Omit<FactTableUpdate, 'owner'>,
  now: string,
  at = '',
): StoredFactTable {
  const { columns, ...fields } = change;
  return {
    ...current,
    ...fields,
    ...(columns ? { columns: mergeColumns(current.columns ?? [], columns, now, at) } : {}),
  };
}

/** A new filter; its `managedBy` defaults to `fallbackManagedBy`. */
export function newFilter(id: string, data: FactTableFilterCreate, now: string, fallbackManagedBy: '' | 'api' = ''): FactTableFilter {
  return {
    id,
    name: data.name,
    description: data.description ?? '',
    value: data.value,
    managedBy: data.managedBy ?? fallbackManagedBy,
    dateCreated: now,
    dateUpdated: now,
  };
}

/** The filter after a partial update. */
export function changedFilter(current: FactTableFilter, change: FactTableFilterUpdate, now: string): FactTableFilter {
  return { ...current, ...change, dateUpdated: now };
}

/** The filter `filterId` of the table; 404 when the table has no such filter. */
export function findFilter(table: StoredFactTable, filterId: string): FactTableFilter {
  const filter = table.filters.find((candidate) => candidate.id === filterId);
  if (!filter) throw new NotFoundError(`Fact table filter ${filterId} not found in fact table ${table.id}`);
  return filter;
}

/**
 * The table with `filter` added, or replacing the filter of the same id. An API-managed filter
 * needs an API-managed table, as in GrowthBook; `field` names `managedBy` in the error.
 */
export function withFilter(table: StoredFactTable, filter: FactTableFilter, field = 'managedBy'): StoredFactTable {
  if (filter.managedBy === 'api' && table.managedBy !== 'api') {
    throw bad(field, `a filter can be managed by the API only when its fact table ${table.id} is (set the table's managedBy to api first)`);
  }
  const index = table.filters.findIndex((candidate) => candidate.id === filter.id);
  const filters = index < 0 ? [...table.filters, filter] : table.filters.map((f, i) => (i === index ? filter : f));
  return { ...table, filters };
}

/** The table without the filter `filterId` (404 when it has none). */
export function withoutFilter(table: StoredFactTable, filterId: string): StoredFactTable {
  findFilter(table, filterId);
  return { ...table, filters: table.filters.filter((filter) => filter.id !== filterId) };
}

/** One page of an in-memory list, in the shape `paginated` expects. */
export function pageOf<T>(items: T[], page: { limit: number; offset: number }): { items: T[]; total: number } {
  return { items: items.slice(page.offset, page.offset + page.limit), total: items.length };
}
