import { NotFoundError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import { scheduledStart, withStagingInStep } from '../domain/experiment-status';
import { experiments } from './experiments';
import { retryOnConflict } from '../db/optimistic';
import { transact } from '../db/repository';
import { BoundaryGoneError, prepareClaim, prepareExperimentStartBoundary, type DueBoundary } from './schedule-boundaries';
import { prepareTouch } from '../payload/write';

/**
 * Experiment writes that keep a staged start's schedule boundary in step, and the scheduler's side:
 * firing that boundary starts the experiment. Both are single transactions conditional on the
 * experiment's version, so a staging and its boundary never part, and a start happens once.
 */

/**
 * Read-modify-write of an experiment: `change` applied to the current one, a staging that no
 * longer holds dropped, and its start boundary put, moved or deleted in the same transaction.
 * Retried (with `change` applied again) when another write wins the race.
 */
export async function changeExperiment(orgId: string, id: string, change: (current: Experiment) => Experiment | Promise<Experiment>): Promise<Experiment> {
  return retryOnConflict(async () => {
    const current = await experiments.read(orgId, id);
    if (!current) throw new NotFoundError(`Experiment ${id} not found`);
    const update = experiments.prepareUpdate(orgId, current, withStagingInStep(await change(current.entity)));
    // The references version moves with it: cached SDK payloads show experiments.
    await transact([update, ...prepareExperimentStartBoundary(orgId, current.entity, update.entity), prepareTouch(orgId, id)]);
    return update.entity;
  });
}

/** What firing a staged start's boundary did. */
export type StartOutcome = 'started' | 'stale' | 'taken' | 'not-due';

/**
 * Fires the boundary of a staged start at `now`: in one transaction, takes the boundary, starts the
 * experiment as POST /start does (conditional on the version read) and bumps the organization's
 * payload references version, so cached payloads are rebuilt with its rules. `stale` when the staging no
 * longer holds (the boundary is only removed); `taken` when another run fired it first; `not-due`
 * (nothing written) before its time.
 */
export async function fireExperimentStart(boundary: DueBoundary & { experimentId: string }, now: Date): Promise<StartOutcome> {
  const { orgId, experimentId } = boundary;
  if (boundary.at > now.toISOString()) return 'not-due';
  return retryOnConflict(async () => {
    const current = await experiments.read(orgId, experimentId);
    const started = current && scheduledStart(current.entity, boundary.at, now.toISOString());
    const ops = [prepareClaim(boundary), ...(current && started ? [experiments.prepareUpdate(orgId, current, started), prepareTouch(orgId, experimentId)] : [])];
    try {
      await transact(ops);
      return started ? 'started' : 'stale';
    } catch (error) {
      // Another run fired it first: an outcome, not a race to retry.
      if (error instanceof BoundaryGoneError) return 'taken';
      throw error;
    }
  });
}
