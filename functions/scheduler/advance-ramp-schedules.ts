import type { ScheduledEvent } from 'aws-lambda';
import { NotFoundError } from '../../shared/errors';
import { logger } from '../../shared/logger';
import { emitMetrics } from '../../shared/metrics';
import { advance, due, type FailurePolicy, type RampScheduleRecord } from '../../shared/domain/ramp-schedule';
import { fireDueBoundaries, type FireResult } from './fire-schedule-boundaries';
import { sweepLostSnapshots, type SweepResult } from './sweep-lost-snapshots';
import { monitorDueRampSchedules, type MonitorResult } from './monitor-ramp-schedules';
import type { EnvironmentParents } from '../../shared/payload/environment-inheritance';
import {
  commitRampOutcome,
  dueRampSchedules,
  prepareRampSteps,
  readRampWorld,
  readRampWorlds,
  recordRampFailure,
  type DueRef,
  type RampStep,
  type RampWorld,
  type RampWorlds,
} from '../../shared/store/ramp-schedules';
import { isLostRace, retryOnConflict } from '../../shared/db/optimistic';
import { rebuildDuePageIndexes } from '../../shared/db/page-index';
import { transact } from '../../shared/db/repository';
import { shardOf } from '../../shared/payload/write';

/**
 * The scheduler: every minute in AWS (EventBridge), every RAMP_TICK_SECONDS under `npm start`. It
 * advances ramp schedules, then fires schedule boundaries (fire-schedule-boundaries.ts), then ends
 * snapshots whose run was lost (sweep-lost-snapshots.ts), then rebuilds stale page indexes (shared/db/page-index.ts).
 * The ramp advancer asks the sparse due index for schedules whose time has come and moves them on
 * in batches: due schedules of one organization, read together (one BatchGet) and written in one
 * transaction (at most 100 items), conditional on every version read. A batch takes its schedules
 * from as few payload shards as it can, so it bumps few shard versions, and batches of one
 * organization run side by side when their shards differ (side by side on a shard, they would
 * meet on its version items and undo each other's work). A batch that fails (a race lost, one bad
 * schedule) is split in halves and tried again, down to single schedules, which retry and record
 * their own failures. So advancers running at once, or a crashed run and its retry, never apply a
 * step twice or skip one, and one bad schedule holds up no other.
 */

export interface AdvanceOptions {
  /** The time to advance to (tests move it). */
  now?: Date;
  /** Batches in flight at once, over all organizations. */
  concurrency?: number;
  /** Schedules per batch transaction (fewer when their items would exceed 100); 1 turns batching off. */
  batchSize?: number;
  /** At most this many due schedules per run; the rest wait for the next run. */
  limit?: number;
  failurePolicy?: FailurePolicy;
  /** Runs after a schedule and its feature are read, before anything is written (tests inject failures here). */
  afterRead?: (schedule: RampScheduleRecord) => void | Promise<void>;
}

export interface AdvanceResult {
  /** Schedules this run moved on. */
  advanced: number;
  /** Schedules found due that were no longer due when read (another advancer got there first, or they changed). */
  skipped: number;
  /** Schedules whose advance failed: retried after a delay, paused after too many in a row. */
  failed: number;
}

/** DynamoDB's limit of items in one TransactWriteItems call. */
const TRANSACTION_MAX_ITEMS = 100;
/**
 * Four items per schedule (feature, revision, schedule, payload entry) and the version of each
 * shard it touches: 24 from one shard fill 97 items. A step that frees rule locks writes one more
 * item per schedule; such a batch is cut where it fits (see commitBatch).
 */
const BATCH_SIZE = 24;
/**
 * Batches in flight: enough to keep the store busy while others are read or prepared. DynamoDB
 * Local writes one transaction at a time, and more waiting on it costs it CPU: 4 moved 1.3–2× as
 * many schedules per second as 8 there.
 */
const CONCURRENCY = 4;

/** Advances every due schedule (at most `limit`), and reports and logs how many it advanced, skipped and failed. */
export async function advanceDueSchedules(options: AdvanceOptions = {}): Promise<AdvanceResult> {
  const now = options.now ?? new Date();
  const found = await dueRampSchedules(now, options.limit ?? 1000);
  const result: AdvanceResult = { advanced: 0, skipped: 0, failed: 0 };
  const batches = planBatches(found, Math.max(1, options.batchSize ?? BATCH_SIZE));
  await runApart(batches, Math.max(1, options.concurrency ?? CONCURRENCY), async ({ refs }) => {
    try {
      for (const outcome of await advanceBatch(refs, now, options)) result[outcome] += 1;
    } catch (error) {
      // The batch ended in an error before it said what each schedule came to (a store that stayed unreachable,
      // say): counted as failed, so the run's report and metrics add up; what is still due, the next run tries again.
      result.failed += refs.length;
      throw error;
    }
  });
  if (found.length) logger.info('Ramp schedules advanced', { due: found.length, ...result });
  else logger.debug('No ramp schedule due');
  return result;
}

/** Due schedules of one organization to move on together, and the payload shards (`org#shard`) their features write. */
interface Batch {
  refs: DueRef[];
  shards: Set<string>;
}

/**
 * Cuts each organization's due schedules into batches of at most `size`, ordered by the payload
 * shard of their feature (as the due index names it), so that a batch spans as few shards as it can.
 */
export function planBatches(found: DueRef[], size: number): Batch[] {
  const byOrg = new Map<string, Array<{ ref: DueRef; shard: string }>>();
  for (const ref of found) {
    if (!byOrg.has(ref.orgId)) byOrg.set(ref.orgId, []);
    byOrg.get(ref.orgId)!.push({ ref, shard: shardOf(ref.featureId) });
  }
  const batches: Batch[] = [];
  for (const [orgId, refs] of byOrg) {
    // Stable: within a shard, the earliest due first, as the index gave them.
    refs.sort((a, b) => (a.shard === b.shard ? 0 : a.shard < b.shard ? -1 : 1));
    for (let start = 0; start < refs.length; start += size) {
      const slice = refs.slice(start, start + size);
      batches.push({ refs: slice.map(({ ref }) => ref), shards: new Set(slice.map(({ shard }) => `${orgId}#${shard}`)) });
    }
  }
  return batches;
}

/**
 * Runs `work` on every batch, at most `concurrency` at once, never two at once that share a shard.
 * A batch whose shards are taken waits for the batch holding them; the others go ahead of it.
 */
function runApart(batches: Batch[], concurrency: number, work: (batch: Batch) => Promise<void>): Promise<void> {
  const pending = [...batches];
  const held = new Set<string>();
  let running = 0;
  return new Promise((resolve) => {
    const next = () => {
      while (running < concurrency) {
        const free = pending.findIndex((batch) => [...batch.shards].every((shard) => !held.has(shard)));
        if (free < 0) break;
        const [batch] = pending.splice(free, 1);
        for (const shard of batch.shards) held.add(shard);
        running += 1;
        work(batch)
          .catch((error) => logger.error('Ramp schedule batch failed', { orgId: batch.refs[0].orgId, error }))
          .finally(() => {
            for (const shard of batch.shards) held.delete(shard);
            running -= 1;
            next();
          });
      }
      if (running === 0) resolve();
    };
    next();
  });
}

/**
 * Moves on the due schedules `refs` of one organization in one transaction; what each came to.
 * Schedules that need no batch (not due, failed when read or computed, a feature already in the
 * batch) are settled one by one; a batch whose transaction fails is split in halves and tried again.
 */
async function advanceBatch(refs: DueRef[], now: Date, options: AdvanceOptions): Promise<Array<keyof AdvanceResult>> {
  if (refs.length === 1) return [await advanceOrFail(refs[0], now, options)];
  let read: RampWorlds;
  try {
    read = await readRampWorlds(refs[0].orgId, refs.map((ref) => ({ id: ref.id, expectedFeatureId: ref.featureId })));
  } catch {
    // The batch could not be read (the store unreachable, say): each schedule on its own.
    return Promise.all(refs.map((ref) => advanceOrFail(ref, now, options)));
  }
  const outcomes: Array<keyof AdvanceResult> = [];
  const alone: DueRef[] = [];
  const batch: Array<RampStep & { ref: DueRef }> = [];
  const features = new Set<string>();
  for (const [i, world] of read.worlds.entries()) {
    const ref = refs[i];
    if (world instanceof NotFoundError) outcomes.push('skipped');
    else if (!due(world.schedule.entity, now)) outcomes.push('skipped');
    else if (world.feature && features.has(world.feature.entity.id)) alone.push(ref);
    else {
      const schedule = world.schedule.entity;
      try {
        await options.afterRead?.(schedule);
        const transition = advance(schedule, now, world.feature ? [world.feature.entity] : []);
        if (!transition) outcomes.push('skipped');
        else {
          batch.push({ ref, world, outcome: transition, by: schedule.id });
          if (world.feature) features.add(world.feature.entity.id);
        }
      } catch (error) {
        await fail(ref, world, now, error as Error, options.failurePolicy);
        outcomes.push('failed');
      }
    }
  }
  outcomes.push(...(await commitBatch(batch, read.parents, now, options)));
  for (const ref of alone) outcomes.push(await advanceOrFail(ref, now, options));
  return outcomes;
}

/** One transaction for the whole batch; on any failure, each half again (read afresh). */
async function commitBatch(
  batch: Array<RampStep & { ref: DueRef }>,
  parents: EnvironmentParents,
  now: Date,
  options: AdvanceOptions,
): Promise<Array<keyof AdvanceResult>> {
  if (batch.length === 0) return [];
  const split = async () => {
    const half = Math.ceil(batch.length / 2);
    const refs = batch.map((step) => step.ref);
    return [...(await advanceBatch(refs.slice(0, half), now, options)), ...(await advanceBatch(refs.slice(half), now, options))];
  };
  let ops;
  try {
    ops = await prepareRampSteps(batch[0].ref.orgId, batch, parents);
  } catch {
    return split();
  }
  if (ops.length > TRANSACTION_MAX_ITEMS) {
    // Too many items: nothing was written, so both parts keep what was read. The first takes as
    // many schedules as about fit (items grow with schedules), the rest follow.
    const fit = Math.max(1, Math.min(batch.length - 1, Math.floor((batch.length * TRANSACTION_MAX_ITEMS) / ops.length)));
    return [...(await commitBatch(batch.slice(0, fit), parents, now, options)), ...(await commitBatch(batch.slice(fit), parents, now, options))];
  }
  try {
    await transact(ops);
    return batch.map(() => 'advanced' as const);
  } catch {
    return split();
  }
}

/** One schedule; an error that escapes (the store unreachable, say) fails this schedule only, not the run. */
async function advanceOrFail(ref: DueRef, now: Date, options: AdvanceOptions): Promise<keyof AdvanceResult> {
  try {
    return await advanceOne(ref, now, options);
  } catch (error) {
    logger.error('Ramp schedule advance failed', { orgId: ref.orgId, scheduleId: ref.id, error });
    return 'failed';
  }
}

/** Advances one schedule; a transaction that loses a race on the feature or the SDK payload reads again (retryOnConflict). */
async function advanceOne(ref: DueRef, now: Date, options: AdvanceOptions): Promise<keyof AdvanceResult> {
  try {
    return await retryOnConflict(() => advanceAttempt(ref, now, options));
  } catch (error) {
    if (!isLostRace(error)) throw error;
    // Still racing after every attempt: nothing was written, and the next run tries again.
    logger.warn('Ramp schedule advance kept losing races', { orgId: ref.orgId, scheduleId: ref.id });
    return 'failed';
  }
}

/** One attempt at advancing a schedule: a lost race is thrown for advanceOne to read again. */
async function advanceAttempt(ref: DueRef, now: Date, options: AdvanceOptions): Promise<keyof AdvanceResult> {
  let world: RampWorld;
  try {
    world = await readRampWorld(ref.orgId, ref.id, { expectedFeatureId: ref.featureId });
  } catch (error) {
    if (error instanceof NotFoundError) return 'skipped';
    throw error;
  }
  const schedule = world.schedule.entity;
  // The index lags the table, and another advancer may have done this work since the query.
  if (!due(schedule, now)) return 'skipped';
  try {
    await options.afterRead?.(schedule);
    const transition = advance(schedule, now, world.feature ? [world.feature.entity] : []);
    if (!transition) return 'skipped';
    await commitRampOutcome(ref.orgId, world, transition, schedule.id);
    return 'advanced';
  } catch (error) {
    // Lost a race: read again; if someone else advanced the schedule, it is no longer due.
    if (isLostRace(error)) throw error;
    await fail(ref, world, now, error as Error, options.failurePolicy);
    return 'failed';
  }
}

/** Records the failure on the schedule, so it is retried after a delay and not on every run. */
async function fail(ref: DueRef, world: RampWorld, now: Date, error: Error, policy: FailurePolicy | undefined): Promise<void> {
  const reason = error.message || error.name;
  logger.warn('Ramp schedule advance failed', { orgId: ref.orgId, scheduleId: ref.id, reason });
  try {
    await recordRampFailure(ref.orgId, world.schedule, now, reason, policy);
  } catch (recordError) {
    // The schedule stays due as it was: the next run tries it again.
    logger.error('Could not record a failed ramp schedule advance', { orgId: ref.orgId, scheduleId: ref.id, error: recordError });
  }
}

/**
 * One scheduler run: monitored ramp steps (snapshots started, verdicts applied), then ramp schedules
 * (their steps rewrite payloads), then schedule boundaries, lost snapshots and stale page indexes.
 */
export async function runScheduler(
  options: AdvanceOptions = {},
): Promise<AdvanceResult & { monitoring: MonitorResult; boundaries: FireResult; snapshots: SweepResult; pageIndexes: number }> {
  const monitoring = await monitorDueRampSchedules({ now: options.now, limit: options.limit });
  const ramps = await advanceDueSchedules(options);
  const boundaries = await fireDueBoundaries({ now: options.now });
  const snapshots = await sweepLostSnapshots({ now: options.now });
  // Lists only read (their roles may not write), so stale page indexes are rebuilt here.
  const pageIndexes = await rebuildDuePageIndexes(options.now);
  const count = (name: string, value: number) => ({ name, unit: 'Count' as const, value });
  emitMetrics({ Function: 'advance-ramp-schedules' }, [
    {
      dimensions: [['Service', 'Function']],
      metrics: [
        count('RampsAdvanced', ramps.advanced),
        count('RampsSkipped', ramps.skipped),
        count('RampsFailed', ramps.failed),
        count('RampSnapshotsStarted', monitoring.started),
        count('RampVerdicts', monitoring.advance + monitoring.hold + monitoring.rollback),
        count('RampRollbacks', monitoring.rollback),
        count('RampMonitoringFailed', monitoring.failed),
        count('BoundariesFired', boundaries.fired),
        count('BoundariesFailed', boundaries.failed),
        count('LostSnapshotsEnded', snapshots.ended),
        count('PageIndexesRebuilt', pageIndexes),
      ],
    },
  ]);
  return { ...ramps, monitoring, boundaries, snapshots, pageIndexes };
}

/** The EventBridge target: one run over everything due now. */
export const handler = async (_event: ScheduledEvent) => runScheduler();
