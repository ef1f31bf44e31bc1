import { InvalidInputError } from '../errors';
import type { Segment, SegmentUpdate } from '../contracts/segments';
import type { FactTableLookup } from './fact-metrics';

/** What defines a segment: a SQL query, or a fact table and some of its filters. */
export interface SegmentDefinitionInput {
  type: 'SQL' | 'FACT';
  datasourceId: string;
  query?: string;
  factTableId?: string;
  filters?: string[];
}
export type SegmentDefinition = Pick<Segment, 'type' | 'query' | 'factTableId' | 'filters'>;

const bad = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/**
 * The definition of a segment after checking it: a SQL segment needs `query` and takes no fact
 * table; a FACT segment needs an existing `factTableId` in the segment's datasource, and its
 * `filters` must be filters of that table.
 */
export function segmentDefinition(input: SegmentDefinitionInput, lookup: FactTableLookup): SegmentDefinition {
  // Every segment carries all three fields, `""`/`[]` where its type does not use them, as in GrowthBook.
  if (input.type === 'SQL') {
    if (input.factTableId) throw bad('factTableId', 'is only for FACT segments');
    if (input.filters?.length) throw bad('filters', 'are only for FACT segments');
    if (!input.query) throw bad('query', 'is required for a SQL segment');
    return { type: 'SQL', query: input.query, factTableId: '', filters: [] };
  }
  if (input.query) throw bad('query', 'is only for SQL segments');
  if (!input.factTableId) throw bad('factTableId', 'is required for a FACT segment');
  const table = lookup(input.factTableId);
  if (!table) throw bad('factTableId', `no fact table ${input.factTableId}`);
  if (table.datasource !== input.datasourceId) {
    throw bad('datasourceId', `must be the datasource of fact table ${input.factTableId} (${table.datasource})`);
  }
  const known = new Set(table.filters.map((filter) => filter.id));
  const filters = input.filters ?? [];
  filters.forEach((id, i) => {
    if (!known.has(id)) throw bad(`filters.${i}`, `${id} is not a filter of fact table ${input.factTableId}`);
  });
  return { type: 'FACT', query: '', factTableId: input.factTableId, filters };
}

/**
 * The definition input of `current` with `change` applied. A new type starts from the change
 * alone (the old type's fields go); a new fact table without new filters drops the old filters.
 */
export function segmentDefinitionAfter(current: Segment, change: SegmentUpdate): SegmentDefinitionInput {
  const datasourceId = change.datasourceId ?? current.datasourceId;
  const type = current.type ?? 'SQL';
  if (change.type && change.type !== type) throw bad('type', `cannot change: this is a ${type} segment, as GrowthBook keeps it`);
  const tableChanged = change.factTableId !== undefined && change.factTableId !== current.factTableId;
  return {
    type,
    datasourceId,
    query: change.query ?? current.query,
    factTableId: change.factTableId ?? current.factTableId,
    filters: change.filters ?? (tableChanged ? undefined : current.filters),
  };
}
