import { ConflictError, NotFoundError } from '../errors';
import { assertCan, type Permission, type Principal } from '../permissions';
import { assertValuesValid, type StoredFeature } from '../domain/features';
import type { NewRampSchedule } from '../domain/ramp-definition';
import { applyRuleWrites, type RuleWrite } from '../domain/ramp-rules';
import { act, nextDueAt, rampEnvironments, recordAdvanceFailure, type FailurePolicy, type LifecycleAction, type RampScheduleRecord } from '../domain/ramp-schedule';
import type { EnvironmentParents } from '../payload/environment-inheritance';
import { isLostRace, retryOnConflict } from '../db/optimistic';
import { db, tableName } from '../db/client';
import { features, prepareFeatureChanges, readEnvironmentParents, type FeatureChange } from './features';
import { keys } from '../db/keys';
import { getItems, queryAll, repository, toVersioned, transact, type ListTagFilter, type TransactionOp, type Versioned } from '../db/repository';
import { prepareEvent, type DomainEvent } from './events';

/**
 * Ramp schedules in the single table. Besides the schedule item itself:
 * - a schedule with pending work carries the keys of the sparse due index (GSI2), sorted by
 *   `nextDueAt`, so the advancer finds due schedules without scanning;
 * - an unfinished schedule holds a lock item per rule it controls (feature + rule id, whatever the
 *   environment), written in the same transaction as the schedule, so two schedules can never
 *   control one rule, however the requests race.
 * Every change that patches rules writes the feature (revision, SDK payloads) and the schedule in
 * one transaction, conditional on the versions read.
 */

/** The list tags of a filter by feature and status; a schedule carries the tags of its own. */
export const rampListTags = (filter: { featureId?: string; status?: string }) => [
  ...(filter.featureId !== undefined ? [`feature:${filter.featureId}`] : []),
  ...(filter.status !== undefined ? [`status:${filter.status}`] : []),
];

/**
 * The list filter of `GET /ramp-schedules`: as `rampListTags`, except that `running` also finds the
 * schedules stored as `pending-approval`, which GrowthBook 5 answers as running (awaiting approval).
 */
export const rampListFilter = (filter: { featureId?: string; status?: string }): ListTagFilter[] =>
  rampListTags(filter).map((tag) => (tag === 'status:running' ? [tag, 'status:pending-approval'] : tag));

/** The schedules themselves; write them through this module's functions, which keep the due index and rule locks right. */
export const rampSchedules = repository<RampScheduleRecord>({
  type: 'RAMP_SCHEDULE',
  label: 'Ramp schedule',
  listTags: (schedule) => rampListTags({ featureId: schedule.entityId, status: schedule.status }),
});


const isFinished = (schedule: Pick<RampScheduleRecord, 'status'>) => schedule.status === 'completed' || schedule.status === 'rolled-back';

interface RuleRef {
  featureId: string;
  ruleId: string;
}

/** Every rule a schedule targets, once each (a rule may be a target in several environments). */
function targetedRules(schedule: RampScheduleRecord | NewRampSchedule): Map<string, RuleRef> {
  const rules = new Map<string, RuleRef>();
  for (const target of schedule.targets) {
    if (target.ruleId) rules.set(JSON.stringify([target.entityId, target.ruleId]), { featureId: target.entityId, ruleId: target.ruleId });
  }
  return rules;
}

/** The rules a schedule holds locks on: every rule it targets while unfinished, none once finished. */
const heldRules = (schedule: RampScheduleRecord | NewRampSchedule | undefined): Map<string, RuleRef> =>
  !schedule || isFinished(schedule) ? new Map() : targetedRules(schedule);

/** A lock is free, or already this schedule's. */
const lockIsMine = (scheduleId: string) => ({
  ConditionExpression: 'attribute_not_exists(PK) OR scheduleId = :me',
  ExpressionAttributeValues: { ':me': scheduleId },
});

/**
 * The lock writes that go with moving a schedule from `before` to `after` (undefined: created or
 * deleted): take the rules it starts to control, free the ones it lets go. A finished schedule
 * that rewrites rules (rollback after completion) checks that no other schedule took them meanwhile.
 */
function lockOps(
  orgId: string,
  scheduleId: string,
  before: RampScheduleRecord | undefined,
  after: RampScheduleRecord | NewRampSchedule | undefined,
  writesRules: boolean,
): TransactionOp[] {
  const held = heldRules(before);
  const wanted = heldRules(after);
  const ops: TransactionOp[] = [];
  for (const [rule, { featureId, ruleId }] of wanted) {
    if (held.has(rule)) continue;
    ops.push({
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.rampRuleLock(orgId, featureId, ruleId), entityType: 'RAMP_RULE_LOCK', version: 1, scheduleId, featureId, ruleId },
          ...lockIsMine(scheduleId),
        },
      },
      onConditionFailed: () =>
        new ConflictError('already_exists', `Rule ${ruleId} of feature ${featureId} is already controlled by another unfinished ramp schedule`),
    });
  }
  for (const [rule, { featureId, ruleId }] of held) {
    if (wanted.has(rule)) continue;
    ops.push({
      op: { Delete: { TableName: tableName(), Key: keys.rampRuleLock(orgId, featureId, ruleId), ...lockIsMine(scheduleId) } },
      onConditionFailed: () => new ConflictError('conflict', `The lock on rule ${ruleId} of feature ${featureId} is held by another schedule`),
    });
  }
  if (before && isFinished(before) && after && writesRules) {
    for (const [rule, { featureId, ruleId }] of targetedRules(before)) {
      // Taken again by this change (restart): the lock's own Put checks it is free or ours.
      if (wanted.has(rule)) continue;
      ops.push({
        op: { ConditionCheck: { TableName: tableName(), Key: keys.rampRuleLock(orgId, featureId, ruleId), ...lockIsMine(scheduleId) } },
        onConditionFailed: () =>
          new ConflictError(
            'invalid_status',
            `Ramp schedule ${scheduleId} cannot change rule ${ruleId} of feature ${featureId}: another ramp schedule controls it now`,
          ),
      });
    }
  }
  return ops;
}

/**
 * Runs a write that may take rule locks; when a lock turns out to be held, answers 409 naming the
 * schedule that holds it (read only then, so a successful write costs no extra read).
 */
async function namingLockHolder<T>(
  orgId: string,
  scheduleId: string,
  before: RampScheduleRecord | undefined,
  after: RampScheduleRecord | NewRampSchedule,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof ConflictError && error.code === 'already_exists')) throw error;
    const held = heldRules(before);
    for (const [rule, { featureId, ruleId }] of heldRules(after)) {
      if (held.has(rule)) continue;
      const { Item } = await db.get({ TableName: tableName(), Key: keys.rampRuleLock(orgId, featureId, ruleId), ConsistentRead: true });
      if (Item && Item.scheduleId !== scheduleId) {
        throw new ConflictError(
          'already_exists',
          `Rule ${ruleId} of feature ${featureId} is already controlled by ramp schedule ${Item.scheduleId}, which has not finished`,
        );
      }
    }
    throw error;
  }
}

/** The schedule's Put (create, or update conditional on the version read), in the due index exactly while it has pending work. */
function prepareSchedulePut(orgId: string, current: Versioned<RampScheduleRecord> | undefined, next: RampScheduleRecord | NewRampSchedule) {
  const prepared = current ? rampSchedules.prepareUpdate(orgId, current, next as RampScheduleRecord) : rampSchedules.prepareCreate(orgId, next);
  const due = nextDueAt(prepared.entity);
  // A Put replaces the whole item, so leaving the keys out takes the schedule out of the index.
  if (due) Object.assign(prepared.op.Put!.Item!, { GSI2PK: keys.rampDuePartition(), GSI2SK: due });
  return prepared;
}

/**
 * The transaction ops that store a new schedule (in any status, e.g. started by a publish) and take the
 * locks on the rules it controls, for a caller's own transaction; a held lock fails it with 409 `already_exists`.
 */
export function prepareRampScheduleCreate(orgId: string, schedule: RampScheduleRecord | NewRampSchedule): TransactionOp[] {
  return [prepareSchedulePut(orgId, undefined, schedule), ...lockOps(orgId, schedule.id, undefined, schedule, false)];
}

/** The id of the unfinished schedule that controls a rule (it holds the rule's lock), or undefined. One GetItem. */
export async function scheduleControlling(orgId: string, featureId: string, ruleId: string): Promise<string | undefined> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.rampRuleLock(orgId, featureId, ruleId), ConsistentRead: true });
  return Item?.scheduleId as string | undefined;
}

/** Stores a new schedule and takes the locks on the rules it controls; 409 when another unfinished schedule controls one. */
export async function insertRampSchedule(orgId: string, schedule: NewRampSchedule): Promise<RampScheduleRecord> {
  const created = prepareSchedulePut(orgId, undefined, schedule);
  await namingLockHolder(orgId, schedule.id, undefined, schedule, () => transact([created, ...lockOps(orgId, schedule.id, undefined, schedule, false)]));
  return created.entity;
}

/** A schedule as read, with the feature it controls (as read too, when it has one and it exists). */
export interface RampWorld {
  schedule: Versioned<RampScheduleRecord>;
  feature?: Versioned<StoredFeature>;
}

/**
 * Reads a schedule and its feature; 404 when the schedule does not exist. `featureId` reads another
 * feature (add-target). With `expectedFeatureId` (the advancer knows it from the due index) both
 * are read at once, and the feature again only when the schedule turns out to have moved on.
 */
export async function readRampWorld(orgId: string, id: string, options: { featureId?: string; expectedFeatureId?: string } = {}): Promise<RampWorld> {
  const guess = options.featureId ?? options.expectedFeatureId;
  const [schedule, guessed] = await Promise.all([rampSchedules.read(orgId, id), guess ? features.read(orgId, guess) : undefined]);
  if (!schedule) throw new NotFoundError(`Ramp schedule ${id} not found`);
  const wanted = options.featureId ?? schedule.entity.entityId;
  if (wanted === guess) return { schedule, feature: guessed };
  return { schedule, feature: wanted ? await features.read(orgId, wanted) : undefined };
}

/** What the advancer reads for a batch of one organization: each schedule's world (or NotFoundError), and the environments' parents. */
export interface RampWorlds {
  worlds: Array<RampWorld | NotFoundError>;
  parents: EnvironmentParents;
}

/**
 * `readRampWorld` for many schedules of one organization at once (the advancer's batch): the
 * schedules and the features the due index names in one BatchGet, and the features of schedules
 * that moved to another feature in a second one; the environments' parents (which the feature
 * writes need) in a Query alongside, so committing the batch reads nothing more.
 */
export async function readRampWorlds(orgId: string, refs: Array<{ id: string; expectedFeatureId?: string }>): Promise<RampWorlds> {
  const [worlds, parents] = await Promise.all([readWorlds(orgId, refs), readEnvironmentParents(orgId)]);
  return { worlds, parents };
}

async function readWorlds(orgId: string, refs: Array<{ id: string; expectedFeatureId?: string }>): Promise<Array<RampWorld | NotFoundError>> {
  const scheduleKeys = refs.map((ref) => keys.entity(orgId, 'RAMP_SCHEDULE', ref.id));
  const guessed = refs.flatMap((ref) => (ref.expectedFeatureId ? [ref.expectedFeatureId] : []));
  const items = await getItems([...scheduleKeys, ...guessed.map((id) => keys.entity(orgId, 'FEATURE', id))]);
  const featuresById = new Map<string, Versioned<StoredFeature> | undefined>(guessed.map((id, i) => {
    const item = items[refs.length + i];
    return [id, item ? toVersioned<StoredFeature>(item) : undefined];
  }));
  const schedules = items.slice(0, refs.length).map((item) => (item ? toVersioned<RampScheduleRecord>(item) : undefined));
  const missing = [...new Set(schedules.flatMap((s) => (s?.entity.entityId && !featuresById.has(s.entity.entityId) ? [s.entity.entityId] : [])))];
  if (missing.length) {
    const more = await getItems(missing.map((id) => keys.entity(orgId, 'FEATURE', id)));
    missing.forEach((id, i) => featuresById.set(id, more[i] ? toVersioned<StoredFeature>(more[i]!) : undefined));
  }
  return schedules.map((schedule, i) => {
    if (!schedule) return new NotFoundError(`Ramp schedule ${refs[i].id} not found`);
    return { schedule, feature: schedule.entity.entityId ? featuresById.get(schedule.entity.entityId) : undefined };
  });
}

/** What a change does to a schedule: the next schedule with the rule writes to make (a domain `Transition`), or its deletion. */
export type RampOutcome = { schedule: RampScheduleRecord; writes: RuleWrite[]; comment: string; events?: DomainEvent[] } | { deleted: true };

/**
 * Writes an outcome computed from `world` in one transaction: the feature with the rule writes
 * applied (revision, SDK payloads), the schedule (or its deletion) conditional on the version read,
 * the rule locks and `extra`. A lost race raises ConflictError `conflict`: read again and recompute.
 */
export async function commitRampOutcome(
  orgId: string,
  world: RampWorld,
  outcome: RampOutcome,
  by: string,
  extra: TransactionOp[] = [],
): Promise<RampScheduleRecord | undefined> {
  const current = world.schedule;
  // `extra`: writes that belong to the same change (its events, a snapshot it starts), all or nothing with it.
  const ops: TransactionOp[] = [...extra];
  const id = current.entity.id;
  if ('deleted' in outcome) {
    ops.push({
      op: {
        Delete: {
          TableName: tableName(),
          Key: keys.entity(orgId, 'RAMP_SCHEDULE', id),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': current.version },
        },
      },
      onConditionFailed: () => new ConflictError('conflict', `Ramp schedule ${id} was changed by another request; retry`),
    });
    ops.push(...lockOps(orgId, id, current.entity, undefined, false));
    await transact(ops);
    return undefined;
  }
  const { writes, comment } = outcome;
  if (writes.length) {
    if (!world.feature) throw new ConflictError('invalid_status', `Feature ${current.entity.entityId} no longer exists`);
    const next = applyRuleWrites(world.feature.entity, writes);
    await assertValuesValid(next);
    ops.push(...(await prepareFeatureChanges(orgId, [{ current: world.feature, next, author: { by, comment } }])).ops);
  }
  const put = prepareSchedulePut(orgId, current, outcome.schedule);
  ops.push(put, ...lockOps(orgId, id, current.entity, outcome.schedule, writes.length > 0), ...(outcome.events ?? []).map(prepareEvent));
  await namingLockHolder(orgId, id, current.entity, outcome.schedule, () => transact(ops));
  return put.entity;
}

/** One schedule's move in a batch: the outcome computed from `world` (never a deletion). */
export interface RampStep {
  world: RampWorld;
  outcome: Extract<RampOutcome, { schedule: RampScheduleRecord }>;
  by: string;
}

/**
 * The transaction ops that apply several schedules' outcomes at once, all or nothing: their
 * features in one feature change (so the payload version of a shard is bumped once), each schedule
 * conditional on the version read, and the rule locks. Each feature may appear in one step only.
 * `parents` as `readRampWorlds` read them (read here when absent).
 * Throws what `commitRampOutcome` would refuse (a feature gone, a value that no longer fits).
 */
export async function prepareRampSteps(orgId: string, steps: RampStep[], parents?: EnvironmentParents): Promise<TransactionOp[]> {
  const changes: FeatureChange[] = [];
  const ops: TransactionOp[] = [];
  for (const { world, outcome, by } of steps) {
    const current = world.schedule;
    if (outcome.writes.length) {
      if (!world.feature) throw new ConflictError('invalid_status', `Feature ${current.entity.entityId} no longer exists`);
      const next = applyRuleWrites(world.feature.entity, outcome.writes);
      await assertValuesValid(next);
      changes.push({ current: world.feature, next, author: { by, comment: outcome.comment } });
    }
    ops.push(prepareSchedulePut(orgId, current, outcome.schedule), ...lockOps(orgId, current.entity.id, current.entity, outcome.schedule, outcome.writes.length > 0));
  }
  if (changes.length) ops.push(...(await prepareFeatureChanges(orgId, changes, { parents })).ops);
  return ops;
}

/**
 * Who changes a schedule through the API: the revision author, the permission they need on the feature's project,
 * and whether the change arms the schedule to change rules (then its target rules' environments must be publishable).
 */
export interface RampActor {
  by: string;
  /** Whether the action lets the schedule change rules, now or when the advancer moves it on (start, resume, ...). */
  publishes: boolean;
  assertAllowed(feature: Pick<StoredFeature, 'project'> | undefined): void;
  /** `publishFeatures` on the feature's project in each of `environments`, as GrowthBook's `canPublishFeature`. */
  assertMayPublish(feature: Pick<StoredFeature, 'project' | 'environments'> | undefined, environments: string[]): void;
}

/**
 * The actor for a request: `permission` on the project of the schedule's feature (globally when it has none); with
 * `publishes`, also `publishFeatures` where the schedule's rules are (the advancer later acts for the schedule unchecked).
 */
export function rampActor(auth: Principal, permission: Permission, publishes = false): RampActor {
  const projects = (feature: Pick<StoredFeature, 'project'> | undefined) => (feature?.project ? [feature.project] : []);
  return {
    by: auth.memberId ?? auth.keyId,
    publishes,
    assertAllowed: (feature) => assertCan(auth, permission, projects(feature)),
    assertMayPublish: (feature, environments) => {
      if (environments.length) assertCan(auth, 'publishFeatures', projects(feature), environments);
    },
  };
}

/**
 * Read-modify-write of a schedule through the API: `change` gets the schedule and its feature as
 * they are now and returns the outcome (or throws to refuse, changing nothing). The actor's
 * permission is checked first. A lost race re-reads and recomputes, so a 409 reaches the caller
 * only when the state no longer allows the change. Returns the schedule as written (undefined when deleted).
 */
export async function changeRampSchedule(
  orgId: string,
  id: string,
  actor: RampActor,
  change: (schedule: RampScheduleRecord, feature: StoredFeature | undefined) => RampOutcome,
  options: { featureId?: string } = {},
): Promise<RampScheduleRecord | undefined> {
  return retryOnConflict(async () => {
    const world = await readRampWorld(orgId, id, { featureId: options.featureId });
    // A schedule without a feature belongs to no project: the global role decides. So does a
    // request naming another feature than the schedule's (add-target refuses it anyway).
    const own = world.feature?.entity.id === world.schedule.entity.entityId ? world.feature?.entity : undefined;
    actor.assertAllowed(own);
    const outcome = change(world.schedule.entity, world.feature?.entity);
    if (!('deleted' in outcome)) {
      // Rules changed now, and (for an action that arms the schedule) every rule it will change later.
      const armed = actor.publishes ? rampEnvironments(outcome.schedule, world.feature?.entity) : [];
      actor.assertMayPublish(world.feature?.entity, [...new Set([...outcome.writes.map((write) => write.environment), ...armed])]);
    }
    return commitRampOutcome(orgId, world, outcome, actor.by);
  });
}

/** Applies a lifecycle action (start, pause, ..., approve-step) now, through `changeRampSchedule`. */
export async function actOnRampSchedule(orgId: string, id: string, actor: RampActor, action: LifecycleAction): Promise<RampScheduleRecord> {
  const changed = await changeRampSchedule(orgId, id, actor, (schedule, feature) => act(schedule, action, new Date(), feature ? [feature] : []));
  return changed!;
}

/**
 * Records a failed advance on the schedule read at `current` (retry later, or paused with the reason
 * after too many in a row), conditional on that version. False when the schedule changed meanwhile.
 */
export async function recordRampFailure(
  orgId: string,
  current: Versioned<RampScheduleRecord>,
  now: Date,
  reason: string,
  policy?: FailurePolicy,
): Promise<boolean> {
  const put = prepareSchedulePut(orgId, current, recordAdvanceFailure(current.entity, now, reason, policy));
  try {
    await transact([put]);
    return true;
  } catch (error) {
    if (isLostRace(error)) return false;
    throw error;
  }
}

/** A due schedule as the index names it. */
export interface DueRef {
  orgId: string;
  id: string;
  /** The schedule's feature when the index entry was written, so it can be read alongside. */
  featureId: string;
}

/**
 * Schedules with work due at `now`, earliest first, at most `limit`: a Query of the sparse due
 * index. The index is eventually consistent, so read each schedule again before acting on it.
 */
export async function dueRampSchedules(now: Date, limit: number): Promise<DueRef[]> {
  const items = await queryAll(
    {
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':pk': keys.rampDuePartition(), ':now': now.toISOString() },
      ExpressionAttributeNames: { '#org': 'organization', '#id': 'id', '#feature': 'entityId' },
      ProjectionExpression: '#org, #id, #feature',
    },
    limit,
  );
  return items.map((item) => ({ orgId: item.organization, id: item.id, featureId: item.entityId }));
}

/**
 * The unfinished schedules holding a rule of `featureId`: one Query of the rule locks (nothing for a
 * feature no schedule controls), then the schedules the locks name.
 */
export async function schedulesControlling(orgId: string, featureId: string): Promise<RampScheduleRecord[]> {
  const { PK, SK } = keys.rampRuleLock(orgId, featureId, '');
  const locks = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': SK },
    ProjectionExpression: 'scheduleId',
    ConsistentRead: true,
  });
  const ids = [...new Set(locks.map((lock) => lock.scheduleId as string))];
  return ids.length ? rampSchedules.getMany(orgId, ids) : [];
}
