import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../errors';
import { payloadEntry, scheduleBoundaries } from '../domain/sdk-payload';
import type { FeatureContent } from '../domain/features';
import { db, tableName } from './client';
import { keys } from './keys';
import { queryAll, type TransactionOp } from './repository';

/**
 * Schedule boundaries: the moments a scheduled rule turns on or off, when a payload changes with
 * no write. Each is one item in the organization's partition that the sparse index GSI2 lists under
 * `SCHEDULE_DUE` by date, so the scheduler finds the due ones with a Query (never a scan), fires
 * each exactly once (the conditional delete decides who fires it), and the item is gone after.
 */

export interface DueBoundary {
  orgId: string;
  at: string;
}

function boundaryItem(orgId: string, at: string) {
  return {
    ...keys.scheduleBoundary(orgId, at),
    entityType: 'SCHEDULE_BOUNDARY',
    version: 1,
    organization: orgId,
    at,
    GSI2PK: keys.scheduleDuePartition(),
    GSI2SK: at,
  };
}

/** The boundaries after `now` that these features' served rules have, as transaction ops (one per date). */
export function prepareScheduleBoundaries(orgId: string, written: Array<FeatureContent | undefined>, now = new Date()): TransactionOp[] {
  const entries = written.flatMap((feature) =>
    feature ? Object.keys(feature.environments).flatMap((env) => payloadEntry(feature, env) ?? []) : [],
  );
  const future = scheduleBoundaries(entries).filter((at) => at > now.toISOString());
  return future.map((at) => ({
    // Unconditional: two features with a step at the same moment share one boundary.
    op: { Put: { TableName: tableName(), Item: boundaryItem(orgId, at) } },
    onConditionFailed: () => new ConflictError('conflict', 'A schedule boundary changed meanwhile; retry'),
  }));
}

/** Records boundaries outside a transaction (a boundary lost to a crash here only delays a cache refresh). */
export async function putScheduleBoundary(orgId: string, at: string): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: boundaryItem(orgId, at) }));
}

/** Boundaries due at `now`, earliest first, at most `limit`: a Query of the sparse index. */
export async function dueScheduleBoundaries(now: Date, limit: number): Promise<DueBoundary[]> {
  const items = await queryAll(
    {
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':pk': keys.scheduleDuePartition(), ':now': now.toISOString() },
      // The index projects the organization; its sort key is the date.
      ExpressionAttributeNames: { '#org': 'organization' },
      ProjectionExpression: '#org, GSI2SK',
    },
    limit,
  );
  return items.map((item) => ({ orgId: item.organization, at: item.GSI2SK }));
}

/** Takes a due boundary for this run: true for exactly one of the runs that try (the index lags, so it may be gone). */
export async function claimScheduleBoundary(boundary: DueBoundary): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.scheduleBoundary(boundary.orgId, boundary.at),
        ConditionExpression: 'attribute_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
