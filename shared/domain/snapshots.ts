import { InvalidInputError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import type { StoredSnapshot } from '../contracts/snapshots';
import { newId } from '../ids';

/**
 * Why every snapshot ends in `error`: this service stores experiments but runs no queries and no
 * statistics, so nothing would ever finish a snapshot. `running` would keep a polling client
 * waiting forever; `error` is final and true.
 */
export const NO_RESULTS_ENGINE = 'No results engine is connected: this service records snapshot requests but does not compute results';

export interface SnapshotRequest {
  triggeredBy: 'manual' | 'schedule';
  phase?: number;
  dimension?: string;
}

/** Raises 400 unless the experiment can be analysed: started, with a phase and a datasource. */
export function assertAnalysable(experiment: Experiment, phase: number | undefined): void {
  if (experiment.status === 'draft') throw new InvalidInputError(`Experiment ${experiment.id} is a draft; start it before asking for results`);
  if (experiment.phases.length === 0) throw new InvalidInputError(`Experiment ${experiment.id} has no phases`);
  if (!experiment.settings.datasourceId) throw new InvalidInputError(`Experiment ${experiment.id} has no datasource`);
  if (phase !== undefined && phase >= experiment.phases.length) {
    throw new InvalidInputError(`Request body: [phase] the experiment has phases 0 to ${experiment.phases.length - 1}`);
  }
}

/** The record of a snapshot request: who asked, how, for which phase (the latest by default). */
export function newSnapshot(
  experiment: Experiment,
  request: SnapshotRequest,
  caller: { keyId: string; memberId?: string },
): Omit<StoredSnapshot, 'dateCreated' | 'dateUpdated'> {
  return {
    id: newId('snp_'),
    experiment: experiment.id,
    status: 'error',
    error: NO_RESULTS_ENGINE,
    triggeredBy: request.triggeredBy,
    triggeredByKeyId: caller.keyId,
    ...(caller.memberId ? { triggeredByMemberId: caller.memberId } : {}),
    phase: request.phase ?? experiment.phases.length - 1,
    ...(request.dimension ? { dimension: request.dimension } : {}),
  };
}

/** A snapshot as the API shows it. */
export const snapshotView = ({ id, experiment, status }: StoredSnapshot) => ({ id, experiment, status });
