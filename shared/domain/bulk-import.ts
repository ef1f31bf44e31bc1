import { InvalidInputError } from '../errors';
import type { BulkImportFacts } from '../contracts/bulk-import';
import type { FactMetric } from '../contracts/fact-metrics';
import { buildFactMetric, factMetricInputAfter, redefined } from './fact-metrics';
import { changedFilter, newFactTable, newFilter, updatedFactTable, withFilter, type OwnerFields, type StoredFactTable } from './fact-tables';

/** An item as read, with the version a write is conditional on (shared/db's Versioned). */
interface Versioned<T> {
  entity: T;
  version: number;
}

/** An entity to write: a new one (no current), or a new state of one read at a known version. */
export type Upsert<T> =
  | { current: Versioned<T>; next: T }
  | { current?: undefined; next: Omit<T, 'dateCreated' | 'dateUpdated'> };

/** What the import found stored, read before planning. */
export interface ImportExisting {
  tables: Map<string, Versioned<StoredFactTable>>;
  metrics: Map<string, Versioned<FactMetric>>;
}

/** What the import resolved from other resources, read before planning. */
export interface ImportResolved {
  /** Each owner given in the import, resolved; absent when it names an unknown member id. */
  owners: Map<string, OwnerFields>;
  /** Project ids named in the import that do not exist. */
  unknownProjects: Set<string>;
  /** The owner of a new item that names none. */
  defaultOwner: string;
}

export interface ImportCounts {
  factTablesAdded: number;
  factTablesUpdated: number;
  factTableFiltersAdded: number;
  factTableFiltersUpdated: number;
  factMetricsAdded: number;
  factMetricsUpdated: number;
}

export interface ImportPlan {
  /** Every fact table the import writes (filters live in their table), in first-touched order. */
  tables: Upsert<StoredFactTable>[];
  metrics: Upsert<FactMetric>[];
  counts: ImportCounts;
}

const METRIC_PREFIX = 'fact__';
const bad = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** A fact metric id as stored: with the `fact__` prefix, added when missing. */
export const factMetricId = (id: string) => (id.startsWith(METRIC_PREFIX) ? id : `${METRIC_PREFIX}${id}`);

/** Fact table ids an import reads: its tables, its filters' tables and its metrics' tables. */
export function factTableIdsOf(body: BulkImportFacts): string[] {
  return [
    ...new Set([
      ...body.factTables.map((item) => item.id),
      ...body.factTableFilters.map((item) => item.factTableId),
      ...body.factMetrics.flatMap((item) => [item.data.numerator.factTableId, ...(item.data.denominator ? [item.data.denominator.factTableId] : [])]),
    ]),
  ];
}

/**
 * Validates every item of an import and plans its writes, without I/O. Items are upserts by id,
 * applied in order (tables, then filters, then metrics), each seeing the state the items before
 * it leave, so an item may use a table or filter created earlier in the same import. An
 * existing item is updated by the fields its `data` gives; `managedBy` defaults to `api`.
 * Every invalid item is reported, each on its own line naming its path; then nothing is planned.
 */
export function planFactsImport(body: BulkImportFacts, existing: ImportExisting, resolved: ImportResolved, now: string): ImportPlan {
  const errors: string[] = [];
  const collect = (check: () => void) => {
    try {
      check();
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      errors.push(error.message);
    }
  };
  const counts: ImportCounts = {
    factTablesAdded: 0,
    factTablesUpdated: 0,
    factTableFiltersAdded: 0,
    factTableFiltersUpdated: 0,
    factMetricsAdded: 0,
    factMetricsUpdated: 0,
  };

  const ownerOf = (given: string | undefined, at: string, current?: OwnerFields): OwnerFields => {
    if (given === undefined) {
      if (!current) return { owner: resolved.defaultOwner };
      return { owner: current.owner, ...(current.ownerEmail ? { ownerEmail: current.ownerEmail } : {}) };
    }
    const owner = resolved.owners.get(given);
    if (!owner) throw bad(`${at}owner`, `no member has the id ${given}`);
    return owner;
  };
  const checkProjects = (projects: string[] | undefined, at: string) => {
    const unknown = (projects ?? []).filter((id) => resolved.unknownProjects.has(id));
    if (unknown.length) throw bad(`${at}projects`, `unknown project ${unknown.join(', ')}`);
  };
  const once = (seen: Set<string>, id: string, field: string) => {
    if (seen.has(id)) throw bad(field, `${id} appears more than once in this import`);
    seen.add(id);
  };

  const tables = new Map<string, Upsert<StoredFactTable>>();
  const tableState = (id: string): Upsert<StoredFactTable> | undefined => {
    const stored = existing.tables.get(id);
    return tables.get(id) ?? (stored ? { current: stored, next: stored.entity } : undefined);
  };

  const tableIds = new Set<string>();
  body.factTables.forEach((item, i) =>
    collect(() => {
      const at = `factTables.${i}.data.`;
      once(tableIds, item.id, `factTables.${i}.id`);
      checkProjects(item.data.projects, at);
      const { owner: given, ...data } = { ...item.data, managedBy: item.data.managedBy ?? 'api' };
      const current = existing.tables.get(item.id);
      if (!current) {
        tables.set(item.id, { next: newFactTable(item.id, data, ownerOf(given, at)) as StoredFactTable });
        counts.factTablesAdded++;
        return;
      }
      const { datasource, ...change } = data;
      if (datasource !== current.entity.datasource) {
        throw bad(`${at}datasource`, `fact table ${item.id} is in datasource ${current.entity.datasource}; its datasource cannot change`);
      }
      tables.set(item.id, { current, next: { ...updatedFactTable(current.entity, change, now), ...ownerOf(given, at, current.entity) } });
      counts.factTablesUpdated++;
    }),
  );

  const filterIds = new Set<string>();
  body.factTableFilters.forEach((item, i) =>
    collect(() => {
      const at = `factTableFilters.${i}.`;
      once(filterIds, `${item.factTableId}/${item.id}`, `${at}id`);
      const state = tableState(item.factTableId);
      if (!state) throw bad(`${at}factTableId`, `no fact table ${item.factTableId}`);
      const table = state.next as StoredFactTable;
      // An API-managed filter needs an API-managed table, so the default follows the table.
      const data = { ...item.data, managedBy: item.data.managedBy ?? (table.managedBy === 'api' ? 'api' : '') };
      const found = table.filters.find((filter) => filter.id === item.id);
      const filter = found ? changedFilter(found, data, now) : newFilter(item.id, data, now);
      tables.set(item.factTableId, { ...state, next: withFilter(table, filter, `${at}data.managedBy`) } as Upsert<StoredFactTable>);
      if (found) counts.factTableFiltersUpdated++;
      else counts.factTableFiltersAdded++;
    }),
  );

  const lookup = (id: string) => tableState(id)?.next as StoredFactTable | undefined;
  const metrics: Upsert<FactMetric>[] = [];
  const metricIds = new Set<string>();
  body.factMetrics.forEach((item, i) =>
    collect(() => {
      const at = `factMetrics.${i}.data.`;
      const id = factMetricId(item.id);
      once(metricIds, id, `factMetrics.${i}.id`);
      checkProjects(item.data.projects, at);
      const data = { ...item.data, managedBy: item.data.managedBy ?? 'api' };
      const current = existing.metrics.get(id);
      if (!current) {
        metrics.push({ next: { id, ...buildFactMetric(data, lookup, at), ...ownerOf(data.owner, at) } });
        counts.factMetricsAdded++;
        return;
      }
      const draft = buildFactMetric(factMetricInputAfter(current.entity, data), lookup, at);
      metrics.push({ current, next: { ...redefined(current.entity, draft), ...ownerOf(data.owner, at, current.entity) } });
      counts.factMetricsUpdated++;
    }),
  );

  if (errors.length) throw new InvalidInputError(errors.join('\n'), { invalidItems: errors.length });
  return { tables: [...tables.values()], metrics, counts };
}
