import type { ScheduledEvent } from 'aws-lambda';
import { NotFoundError } from '../../shared/errors';
import { logger } from '../../shared/logger';
import { advance, due, type FailurePolicy, type RampScheduleRecord } from '../../shared/domain/ramp-schedule';
import { fireDueBoundaries, type FireResult } from './fire-schedule-boundaries';
import {
  commitRampOutcome,
  dueRampSchedules,
  isRaceLost,
  readRampWorld,
  recordRampFailure,
  type DueRef,
  type RampWorld,
} from '../../shared/store/ramp-schedules';

/**
 * The scheduler: every minute in AWS (EventBridge), every RAMP_TICK_SECONDS under `npm start`. It
 * advances ramp schedules, then fires schedule boundaries (fire-schedule-boundaries.ts).
 * The ramp advancer asks the sparse due index for schedules whose time has come and moves each one on in one
 * transaction conditional on the versions it read, so advancers running at once, or a crashed run
 * and its retry, never apply a step twice or skip one.
 */

export interface AdvanceOptions {
  /** The time to advance to (tests move it). */
  now?: Date;
  /**
   * Organizations worked on at once. One organization's schedules go one after another: every
   * transition rewrites the organization's SDK payload, so running them side by side only makes
   * them retry each other.
   */
  concurrency?: number;
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
  /** Schedules whose advance failed: retried after a delay, paused after too many failures in a row. */
  failed: number;
}

/** Attempts per schedule when its transaction loses a race on the feature or the SDK payload. */
const ATTEMPTS = 8;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));

/** Advances every due schedule (at most `limit`), and reports and logs how many it advanced, skipped and failed. */
export async function advanceDueSchedules(options: AdvanceOptions = {}): Promise<AdvanceResult> {
  const now = options.now ?? new Date();
  const found = await dueRampSchedules(now, options.limit ?? 1000);
  const lanes = new Map<string, DueRef[]>();
  for (const ref of found) {
    if (!lanes.has(ref.orgId)) lanes.set(ref.orgId, []);
    lanes.get(ref.orgId)!.push(ref);
  }
  const queue = [...lanes.values()];
  const result: AdvanceResult = { advanced: 0, skipped: 0, failed: 0 };
  const worker = async () => {
    for (let lane = queue.shift(); lane; lane = queue.shift()) {
      for (const ref of lane) result[await advanceOrFail(ref, now, options)] += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  if (found.length) logger.info('Ramp schedules advanced', { due: found.length, ...result });
  else logger.debug('No ramp schedule due');
  return result;
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

async function advanceOne(ref: DueRef, now: Date, options: AdvanceOptions): Promise<keyof AdvanceResult> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
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
      if (isRaceLost(error)) {
        await backoff(attempt);
        continue;
      }
      await fail(ref, world, now, error as Error, options.failurePolicy);
      return 'failed';
    }
  }
  // Still racing after every attempt: nothing was written, and the next run tries again.
  logger.warn('Ramp schedule advance kept losing races', { orgId: ref.orgId, scheduleId: ref.id });
  return 'failed';
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

/** One scheduler run: ramp schedules first (their steps rewrite payloads), then schedule boundaries. */
export async function runScheduler(options: AdvanceOptions = {}): Promise<AdvanceResult & { boundaries: FireResult }> {
  const ramps = await advanceDueSchedules(options);
  const boundaries = await fireDueBoundaries({ now: options.now });
  return { ...ramps, boundaries };
}

/** The EventBridge target: one run over everything due now. */
export const handler = async (_event: ScheduledEvent) => runScheduler();
