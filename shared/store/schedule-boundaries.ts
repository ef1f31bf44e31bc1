import { ConflictError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import { stagedStartAt } from '../domain/experiment-status';
import { payloadEntry, scheduleBoundaries } from '../payload/entries';
import type { FeatureContent } from '../domain/features';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { queryAll, type TransactionOp } from '../db/repository';

/**
 * Schedule boundaries: the moments a scheduled rule turns on or off, when a payload changes with
 * no write. Each is one item in the organization's partition that the sparse index GSI2 lists under
 * `SCHEDULE_DUE` by date, so the scheduler finds the due ones with a Query (never a scan), fires
 * each exactly once (the conditional delete decides who fires it), and the item is gone after.
 * A staged experiment start is a boundary of its own, naming the experiment: firing it starts the
 * experiment (see experiment-schedule.ts). So is a draft's scheduled publish, naming the revision:
 * firing it publishes the draft (see use-cases/scheduled-publish.ts); so is a saved-group draft's
 * (use-cases/saved-group-scheduled-publish.ts).
 */

export interface DueBoundary {
  orgId: string;
  at: string;
  /** Set on the boundary of a staged experiment start. */
  experimentId?: string;
  /** Set on the boundary of a draft's scheduled publish: the feature and the revision number. */
  publish?: { featureId: string; version: number };
  /** Set on the boundary of a saved-group draft's scheduled publish: the group and the revision number. */
  groupPublish?: GroupPublish;
}

/** The saved-group revision a scheduled-publish boundary publishes. */
export interface GroupPublish {
  savedGroupId: string;
  version: number;
}

const boundaryKey = ({ orgId, at, experimentId, publish, groupPublish }: DueBoundary) =>
  publish
    ? keys.revisionPublishBoundary(orgId, at, publish.featureId, publish.version)
    : groupPublish
      ? keys.savedGroupRevisionPublishBoundary(orgId, at, groupPublish.savedGroupId, groupPublish.version)
      : experimentId
      ? keys.experimentStartBoundary(orgId, at, experimentId)
      : keys.scheduleBoundary(orgId, at);

function boundaryItem(boundary: DueBoundary) {
  return {
    ...boundaryKey(boundary),
    entityType: 'SCHEDULE_BOUNDARY',
    version: 1,
    organization: boundary.orgId,
    at: boundary.at,
    ...(boundary.experimentId ? { entityId: boundary.experimentId } : {}),
    ...(boundary.publish ? { entityId: boundary.publish.featureId, id: String(boundary.publish.version) } : {}),
    ...(boundary.groupPublish ? { entityId: boundary.groupPublish.savedGroupId, id: String(boundary.groupPublish.version) } : {}),
    GSI2PK: keys.scheduleDuePartition(),
    GSI2SK: boundary.at,
  };
}

/**
 * The writes that keep a draft's scheduled-publish boundary (a feature's or a saved group's) in step
 * with a change of when it is due (`before` to `after`, absent for none): the old one deleted, the new one put.
 */
export function preparePublishBoundary(
  orgId: string,
  target: { featureId: string; version: number } | GroupPublish,
  before?: string,
  after?: string,
): TransactionOp[] {
  if (before === after) return [];
  const which = 'featureId' in target ? { publish: target } : { groupPublish: target };
  const subject = 'featureId' in target ? `feature ${target.featureId}` : `saved group ${target.savedGroupId}`;
  const changedMeanwhile = () => new ConflictError('conflict', `The scheduled publish of revision ${target.version} of ${subject} changed meanwhile; retry`);
  return [
    ...(before ? [{ op: { Delete: { TableName: tableName(), Key: boundaryKey({ orgId, at: before, ...which }) } }, onConditionFailed: changedMeanwhile }] : []),
    ...(after ? [{ op: { Put: { TableName: tableName(), Item: boundaryItem({ orgId, at: after, ...which }) } }, onConditionFailed: changedMeanwhile }] : []),
  ];
}

/** The boundary was fired (or cancelled) by someone else first. */
export class BoundaryGoneError extends ConflictError {
  constructor() {
    super('conflict', 'The schedule boundary was already fired or cancelled');
  }
}

/** The boundaries after `now` that these features' served rules have, as transaction ops (one per date). */
export function prepareScheduleBoundaries(orgId: string, written: Array<FeatureContent | undefined>, now = new Date()): TransactionOp[] {
  const entries = written.flatMap((feature) =>
    feature ? Object.keys(feature.environments).flatMap((env) => payloadEntry(feature, env) ?? []) : [],
  );
  const future = scheduleBoundaries(entries).filter((at) => at > now.toISOString());
  return future.map((at) => ({
    // Unconditional: two features with a step at the same moment share one boundary.
    op: { Put: { TableName: tableName(), Item: boundaryItem({ orgId, at }) } },
    onConditionFailed: () => new ConflictError('conflict', 'A schedule boundary changed meanwhile; retry'),
  }));
}

/**
 * The writes that keep an experiment's staged-start boundary in step with a change from `before`
 * to `after`: the old one deleted, the new one put, nothing when the staged date is unchanged.
 */
export function prepareExperimentStartBoundary(orgId: string, before: Experiment | undefined, after: Experiment | undefined): TransactionOp[] {
  const [was, next] = [before && stagedStartAt(before), after && stagedStartAt(after)];
  if (was === next) return [];
  const experimentId = (after ?? before)!.id;
  const changedMeanwhile = () => new ConflictError('conflict', `The scheduled start of experiment ${experimentId} changed meanwhile; retry`);
  return [
    ...(was ? [{ op: { Delete: { TableName: tableName(), Key: keys.experimentStartBoundary(orgId, was, experimentId) } }, onConditionFailed: changedMeanwhile }] : []),
    ...(next ? [{ op: { Put: { TableName: tableName(), Item: boundaryItem({ orgId, at: next, experimentId }) } }, onConditionFailed: changedMeanwhile }] : []),
  ];
}

/** Records a boundary outside a transaction (a boundary lost to a crash here only delays a cache refresh). */
export async function putScheduleBoundary(boundary: DueBoundary): Promise<void> {
  await db.put({ TableName: tableName(), Item: boundaryItem(boundary) });
}

/** Boundaries due at `now`, earliest first, at most `limit`: a Query of the sparse index. */
export async function dueScheduleBoundaries(now: Date, limit: number): Promise<DueBoundary[]> {
  const items = await queryAll(
    {
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':pk': keys.scheduleDuePartition(), ':now': now.toISOString() },
      // The index projects the organization; its sort key is the date; the table's keys are in every index.
      ExpressionAttributeNames: { '#org': 'organization' },
      ProjectionExpression: '#org, SK, GSI2SK, entityId, id',
    },
    limit,
  );
  return items.map((item) => ({
    orgId: item.organization,
    at: item.GSI2SK,
    ...(item.entityId && item.id
      ? keys.isSavedGroupRevisionPublishBoundary(item.SK)
        ? { groupPublish: { savedGroupId: item.entityId, version: Number(item.id) } }
        : { publish: { featureId: item.entityId, version: Number(item.id) } }
      : item.entityId
        ? { experimentId: item.entityId }
        : {}),
  }));
}

/** The conditional delete that takes a due boundary, for a transaction that fires it: fails with BoundaryGoneError when it is gone. */
export function prepareClaim(boundary: DueBoundary): TransactionOp {
  return {
    op: { Delete: { TableName: tableName(), Key: boundaryKey(boundary), ConditionExpression: 'attribute_exists(PK)' } },
    onConditionFailed: () => new BoundaryGoneError(),
  };
}

/** Takes a due boundary for this run: true for exactly one of the runs that try (the index lags, so it may be gone). */
export async function claimScheduleBoundary(boundary: DueBoundary): Promise<boolean> {
  try {
    await db.delete({
      TableName: tableName(),
      Key: boundaryKey(boundary),
      ConditionExpression: 'attribute_exists(PK)',
    });
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
