import { logger } from '../../shared/logger';
import { fireExperimentStart } from '../../shared/store/experiment-schedule';
import { claimScheduleBoundary, dueScheduleBoundaries, putScheduleBoundary, type DueBoundary } from '../../shared/store/schedule-boundaries';
import { touchSdkPayloads } from '../../shared/payload/write';
import { fireScheduledPublish } from '../../shared/use-cases/scheduled-publish';
import { fireScheduledGroupPublish } from '../../shared/use-cases/saved-group-scheduled-publish';

/**
 * Fires the schedule boundaries that are due: a scheduled rule turned on or off at that moment, so
 * the payloads of its organization changed by themselves. The payload content already follows the
 * clock; firing bumps the stored payloads' version and date, so every cache keyed on them refreshes.
 * Each boundary is claimed by one run only (a conditional delete), so it bumps the payloads once.
 * The boundary of a staged experiment start starts the experiment, in the transaction that claims it;
 * the boundary of a draft's scheduled publish publishes the draft, likewise (use-cases/scheduled-publish.ts,
 * use-cases/saved-group-scheduled-publish.ts for a saved group's).
 */

export interface FireResult {
  /** Boundaries this run fired. */
  fired: number;
  /** Boundaries another run had fired already. */
  skipped: number;
  /** Boundaries whose payload bump failed: put back, to be fired by the next run. */
  failed: number;
  /** Experiments this run started (their boundaries count as fired). */
  started: number;
}

/** Fires every boundary due at `now` (at most `limit`); one payload bump per organization per run. */
export async function fireDueBoundaries(options: { now?: Date; limit?: number } = {}): Promise<FireResult> {
  const now = options.now ?? new Date();
  const due = await dueScheduleBoundaries(now, options.limit ?? 1000);
  const result: FireResult = { fired: 0, skipped: 0, failed: 0, started: 0 };
  const claimed = new Map<string, DueBoundary[]>();
  for (const boundary of due) {
    if (boundary.experimentId) {
      await fireStart({ ...boundary, experimentId: boundary.experimentId }, now, result);
      continue;
    }
    if (boundary.publish || boundary.groupPublish) {
      await firePublish(boundary, now, result);
      continue;
    }
    if (!(await claimScheduleBoundary(boundary))) {
      result.skipped += 1;
      continue;
    }
    claimed.set(boundary.orgId, [...(claimed.get(boundary.orgId) ?? []), boundary]);
  }
  await Promise.all(
    [...claimed].map(async ([orgId, boundaries]) => {
      try {
        await touchSdkPayloads(orgId);
        result.fired += boundaries.length;
      } catch (error) {
        logger.error('Schedule boundary could not bump the payloads; it is put back', { orgId, error });
        await Promise.all(boundaries.map((boundary) => putScheduleBoundary(boundary))).catch(() => undefined);
        result.failed += boundaries.length;
      }
    }),
  );
  if (due.length) logger.info('Schedule boundaries fired', { due: due.length, ...result });
  return result;
}

/** Fires one staged start; a failure leaves its boundary in place, so the next run tries again. */
async function fireStart(boundary: DueBoundary & { experimentId: string }, now: Date, result: FireResult): Promise<void> {
  try {
    const outcome = await fireExperimentStart(boundary, now);
    if (outcome === 'taken') result.skipped += 1;
    else result.fired += 1;
    if (outcome === 'started') result.started += 1;
  } catch (error) {
    logger.error('A scheduled experiment start failed; the next run tries again', { orgId: boundary.orgId, experimentId: boundary.experimentId, error });
    result.failed += 1;
  }
}

/**
 * Fires one scheduled publish (a feature draft's or a saved-group draft's); a failed publish is
 * recorded on its draft (retried later or given up) and counts as fired; an error past that leaves
 * the boundary in place for the next run.
 */
async function firePublish(boundary: DueBoundary, now: Date, result: FireResult): Promise<void> {
  try {
    const { publish, groupPublish } = boundary;
    const outcome = publish ? await fireScheduledPublish({ ...boundary, publish }, now) : await fireScheduledGroupPublish({ ...boundary, groupPublish: groupPublish! }, now);
    if (outcome === 'taken') result.skipped += 1;
    else if (outcome !== 'not-due') result.fired += 1;
  } catch (error) {
    logger.error('A scheduled publish could not be fired; the next run tries again', { orgId: boundary.orgId, ...(boundary.publish ?? boundary.groupPublish), error });
    result.failed += 1;
  }
}
