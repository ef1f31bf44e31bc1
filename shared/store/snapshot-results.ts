import type { SnapshotTraffic } from '../contracts/snapshots';
import { ConflictError } from '../errors';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { queryAll, type TransactionOp } from '../db/repository';

/** One variation's analyses of one metric in one dimension value, in the API's shape. */
export interface StoredVariationResult {
  variationId: string;
  users: number;
  analyses: Record<string, unknown>[];
}

/** One metric of a snapshot: the aggregates it was analysed from (so it can be re-analysed without a query) and the analyses. */
export interface StoredMetricResult {
  metricId: string;
  metricName: string;
  queryId: string;
  /** The query's rows for this metric, without the `m<i>_` prefix. */
  rows: Record<string, unknown>[];
  dimensions: { dimension: string; variations: StoredVariationResult[] }[];
}

/** What a snapshot's results say overall: per dimension value its users and SRM, and how they were computed. */
export interface StoredResultSummary {
  snapshotId: string;
  experimentId: string;
  phase: number;
  dimension: string;
  dateStart: string;
  dateEnd: string;
  dateUpdated: string;
  queryIds: string[];
  /** Units seen in more than one variation, left out of every metric. */
  multipleExposures: number;
  settings: Record<string, unknown>;
  dimensions: { dimension: string; totalUsers: number; srm: number }[];
  /** Units per variation and SRM, overall and per dimension value (absent from results stored before it existed). */
  traffic?: SnapshotTraffic;
  metricCount: number;
}

/** Where `/results` looks: the latest successful snapshot of an experiment, phase and dimension. */
export interface LatestSnapshotPointer {
  snapshotId: string;
  /** `<dateCreated>#<snapshotId>`: the order snapshots were asked for in, which decides which one is newer. */
  createdOrder: string;
}

const BATCH = 25;

/**
 * Writes a snapshot's result items (summary and one per metric). They sit under keys of their own
 * snapshot, so nothing reads them before the pointer (`prepareLatestPointer`) names that snapshot.
 */
export async function writeSnapshotResults(orgId: string, summary: StoredResultSummary, metrics: StoredMetricResult[]): Promise<void> {
  const items = [
    { ...keys.snapshotResult(orgId, summary.snapshotId, 'SUMMARY'), entityType: 'SNAPSHOT_RESULT', version: 1, ...summary },
    ...metrics.map((metric, i) => ({
      ...keys.snapshotResult(orgId, summary.snapshotId, `M#${String(i).padStart(4, '0')}`),
      entityType: 'SNAPSHOT_RESULT',
      version: 1,
      ...metric,
    })),
  ];
  for (let start = 0; start < items.length; start += BATCH) {
    let request: Record<string, unknown[]> | undefined = {
      [tableName()]: items.slice(start, start + BATCH).map((Item) => ({ PutRequest: { Item } })),
    };
    while (request && Object.keys(request).length) {
      const result = await db.batchWrite({ RequestItems: request as never });
      request = result.UnprocessedItems as typeof request;
    }
  }
}

/** Raised inside a transaction when a newer snapshot already holds the pointer. */
export class NewerSnapshotHoldsPointerError extends ConflictError {
  constructor() {
    super('conflict', 'A newer snapshot already provides these results');
  }
}

/**
 * The write that points the results of an experiment's phase and dimension at a snapshot, only if
 * no snapshot asked for later already holds it: finishing order does not matter, creation order does.
 */
export function prepareLatestPointer(
  orgId: string,
  pointer: LatestSnapshotPointer & { experimentId: string; phase: number; dimension: string },
): TransactionOp {
  return {
    op: {
      Put: {
        TableName: tableName(),
        Item: { ...keys.latestSnapshot(orgId, pointer.experimentId, pointer.dimension, pointer.phase), entityType: 'SNAPSHOT_LATEST', version: 1, ...pointer },
        ConditionExpression: 'attribute_not_exists(PK) OR createdOrder < :order',
        ExpressionAttributeValues: { ':order': pointer.createdOrder },
      },
    },
    onConditionFailed: () => new NewerSnapshotHoldsPointerError(),
  };
}

/** The pointers to the latest successful snapshot of each phase of an experiment's dimension, by phase (one Query). */
export async function readLatestPointers(orgId: string, experimentId: string, dimension: string): Promise<Map<number, LatestSnapshotPointer>> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.organization(orgId).PK, ':prefix': keys.latestSnapshotPrefix(experimentId, dimension) },
    ConsistentRead: true,
  });
  return new Map(items.map((item) => [item.phase as number, { snapshotId: item.snapshotId, createdOrder: item.createdOrder }]));
}

/** A snapshot's stored results, read with one Query: the summary and its metrics in order; undefined when absent. */
export async function readSnapshotResults(orgId: string, snapshotId: string): Promise<{ summary: StoredResultSummary; metrics: StoredMetricResult[] } | undefined> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.organization(orgId).PK, ':prefix': keys.snapshotResultPrefix(snapshotId) },
    ConsistentRead: true,
  });
  const strip = ({ PK: _pk, SK: _sk, entityType: _type, version: _version, ...rest }: Record<string, unknown>) => rest;
  const summaryItem = items.find((item) => (item.SK as string).endsWith('#SUMMARY'));
  if (!summaryItem) return undefined;
  const summary = strip(summaryItem) as unknown as StoredResultSummary;
  const metrics = items.filter((item) => item !== summaryItem).map((item) => strip(item) as unknown as StoredMetricResult);
  // A summary whose metrics are not all there yet is not a result.
  if (metrics.length !== summary.metricCount) return undefined;
  return { summary, metrics };
}
