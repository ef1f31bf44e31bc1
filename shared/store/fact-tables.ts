import { ConflictError, DomainError } from '../errors';
import { logger } from '../logger';
import type { FactMetric } from '../contracts/fact-metrics';
import type { FactTableLookup } from '../domain/fact-metrics';
import { projectTags } from '../domain/project-tags';
import { usesFilterTag, usesTableTag, type StoredFactTable } from '../domain/fact-tables';
import { dataSources } from './data-sources';
import { factMetrics } from './fact-metrics';
import { keys } from '../db/keys';
import { getItems, repository, toVersioned, transact, type TransactionOp, type Versioned } from '../db/repository';
import { segments } from './segments';

export const factTables = repository<StoredFactTable>({
  type: 'FACT_TABLE',
  label: 'Fact table',
  listTags: (table) => [`datasource:${table.datasource}`, ...projectTags(table.projects)],
});

/** A lookup over the fact tables that `refs` name (absent refs are skipped), read in one batch. */
export async function factTableLookup(orgId: string, refs: ({ factTableId?: string } | undefined)[]): Promise<FactTableLookup> {
  const ids = refs.flatMap((ref) => (ref?.factTableId ? [ref.factTableId] : []));
  const tables = new Map((await factTables.getMany(orgId, ids)).map((table) => [table.id, table]));
  return (id) => tables.get(id);
}

/**
 * Ids of some fact metrics and segments that use the fact table (or one filter of it), found on
 * the list index; empty when nothing does. Used to refuse deleting what is still in use.
 */
export async function usersOfFactTable(orgId: string, factTableId: string, filterId?: string): Promise<string[]> {
  const tags = [filterId ? usesFilterTag(factTableId, filterId) : usesTableTag(factTableId)];
  const page = { limit: 5, offset: 0, tags };
  const [metrics, segmentPage] = await Promise.all([factMetrics.list(orgId, page), segments.list(orgId, page)]);
  return [...metrics.items, ...segmentPage.items].map((item) => item.id);
}

/**
 * The fact tables and fact metrics that exist among these ids, each with the version it was read
 * at, and which of `dataSourceIds` exist, read together: one BatchGet per hundred ids, whatever
 * their type.
 */
export async function readFactsVersioned(
  orgId: string,
  tableIds: string[],
  metricIds: string[],
  dataSourceIds: string[] = [],
): Promise<{
  tables: Map<string, Versioned<StoredFactTable>>;
  metrics: Map<string, Versioned<FactMetric>>;
  dataSources: Set<string>;
}> {
  const [tableSet, metricSet, dataSourceSet] = [[...new Set(tableIds)], [...new Set(metricIds)], [...new Set(dataSourceIds)]];
  const items = await getItems([
    ...tableSet.map((id) => keys.entity(orgId, factTables.type, id)),
    ...metricSet.map((id) => keys.entity(orgId, factMetrics.type, id)),
    ...dataSourceSet.map((id) => keys.entity(orgId, dataSources.type, id)),
  ]);
  const found = <T>(ids: string[], offset: number) =>
    new Map(ids.flatMap((id, i) => (items[offset + i] ? [[id, toVersioned<T>(items[offset + i]!)] as const] : [])));
  const dataSourceOffset = tableSet.length + metricSet.length;
  return {
    tables: found<StoredFactTable>(tableSet, 0),
    metrics: found<FactMetric>(metricSet, tableSet.length),
    dataSources: new Set(dataSourceSet.filter((_, i) => items[dataSourceOffset + i])),
  };
}

/** DynamoDB's limits for one TransactWriteItems call. */
const TRANSACTION_MAX_ITEMS = 100;
/** 4 MB per transaction, minus room for attribute names and request overhead. */
const TRANSACTION_MAX_BYTES = 3.5 * 1024 * 1024;

/** Splits `ops` into transactions within DynamoDB's item and size limits, keeping their order. */
export function transactionChunks(ops: TransactionOp[]): TransactionOp[][] {
  const chunks: TransactionOp[][] = [];
  let current: TransactionOp[] = [];
  let bytes = 0;
  for (const op of ops) {
    const size = Buffer.byteLength(JSON.stringify(op.op));
    if (current.length && (current.length === TRANSACTION_MAX_ITEMS || bytes + size > TRANSACTION_MAX_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(op);
    bytes += size;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/**
 * Writes `ops` in order, as few transactions as DynamoDB's limits allow. Every op is
 * conditional, so a concurrent change fails its chunk with 409 instead of being overwritten.
 * Chunks are not atomic with each other: when a later chunk fails, the earlier ones stay
 * written, and the error says how many items were.
 */
export async function transactInChunks(ops: TransactionOp[]): Promise<void> {
  let written = 0;
  for (const chunk of transactionChunks(ops)) {
    try {
      await transact(chunk);
    } catch (error) {
      if (written === 0) throw error;
      logger.warn('Chunked write stopped part way', { written, total: ops.length, error: (error as Error).name });
      if (!(error instanceof ConflictError)) throw error;
      throw new ConflictError(
        error.code,
        `${error.message}. ${written} of ${ops.length} records were already written; sending the same import again completes it.`,
        error.details,
      );
    }
    written += chunk.length;
  }
}
