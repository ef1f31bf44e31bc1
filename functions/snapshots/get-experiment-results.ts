import { endpoint } from '../../shared/api/endpoint';
import { getExperimentResults } from '../../shared/contracts/snapshots';
import { toExperimentResults } from '../../shared/analysis/experiment-results';
import { NotFoundError } from '../../shared/errors';
import { experiments } from '../../shared/store/experiments';
import { readLatestPointers, readSnapshotResults } from '../../shared/store/snapshot-results';
import { snapshots } from '../../shared/store/snapshots';

/** Why there are no results: the latest snapshot of that phase and dimension is running or failed, or none was asked for. */
async function noResults(orgId: string, experimentId: string, phase: number, dimension: string): Promise<NotFoundError> {
  const asked = (await snapshots.allTagged(orgId, [`experiment:${experimentId}`])).filter(
    (s) => s.phase === phase && (s.dimension ?? '') === dimension,
  );
  const latest = asked.at(-1);
  const what = `experiment ${experimentId}, phase ${phase}${dimension ? `, dimension ${dimension}` : ''}`;
  if (!latest) return new NotFoundError(`No results for ${what}: no snapshot has been run; POST /experiments/${experimentId}/snapshot`);
  if (latest.status === 'running') return new NotFoundError(`No results for ${what} yet: snapshot ${latest.id} is still running`);
  return new NotFoundError(`No results for ${what}: snapshot ${latest.id} failed: ${latest.error ?? 'unknown error'}`);
}

export const handler = endpoint(getExperimentResults, async ({ params, query, auth }) => {
  const dimension = query.dimension ?? '';
  // Round trip 1: the experiment, and the pointers to the latest successful snapshot of each phase. Round trip 2: its results.
  const [experiment, pointers] = await Promise.all([
    experiments.get(auth.orgId, params.id),
    readLatestPointers(auth.orgId, params.id, dimension),
  ]);
  const phase = query.phase ? Number(query.phase) : Math.max(0, experiment.phases.length - 1);
  const latest = pointers.get(phase);
  const stored = latest ? await readSnapshotResults(auth.orgId, latest.snapshotId) : undefined;
  if (!stored) throw await noResults(auth.orgId, params.id, phase, dimension);
  return { experiment, result: toExperimentResults(stored.summary, stored.metrics) };
});
