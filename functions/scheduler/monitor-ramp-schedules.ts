import { logger } from '../../shared/logger';
import { dueRampSchedules } from '../../shared/store/ramp-schedules';
import { monitorRampSchedule, type MonitorOutcome } from '../../shared/use-cases/ramp-monitoring';

/**
 * The scheduler's monitoring stage: every due schedule running on a monitored step gets its snapshot
 * started when due, or the snapshot in flight judged once it has finished and the verdict applied
 * (shared/use-cases/ramp-monitoring.ts). The due index is the advancer's: a monitored step is due while
 * a snapshot is in flight and when the next one is planned. Schedules not on a monitored step are left
 * to the advancer, which in turn leaves monitored steps alone.
 */

export interface MonitorOptions {
  now?: Date;
  /** Schedules looked at side by side. */
  concurrency?: number;
  limit?: number;
}

export type MonitorResult = Record<MonitorOutcome, number>;

/** Runs the monitoring stage once over every due schedule; what each came to, counted. */
export async function monitorDueRampSchedules(options: MonitorOptions = {}): Promise<MonitorResult> {
  const now = options.now ?? new Date();
  const found = await dueRampSchedules(now, options.limit ?? 1000);
  const result: MonitorResult = { started: 0, waiting: 0, advance: 0, hold: 0, rollback: 0, failed: 0, skipped: 0 };
  let next = 0;
  const worker = async () => {
    while (next < found.length) {
      const ref = found[next++]!;
      try {
        result[await monitorRampSchedule(ref.orgId, ref.id, now, ref.featureId || undefined)] += 1;
      } catch (error) {
        // The store unreachable, say: nothing was written, and the schedule stays due for the next run.
        logger.error('Ramp monitoring failed', { orgId: ref.orgId, scheduleId: ref.id, error });
        result.failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  const acted = found.length - result.skipped;
  if (acted) logger.info('Ramp monitoring ran', { due: found.length, ...result });
  return result;
}
