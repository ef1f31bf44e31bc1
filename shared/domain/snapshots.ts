import { InvalidInputError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import type { StoredSnapshot } from '../contracts/snapshots';
import type { AnalysisInputs } from '../analysis/inputs';
import { newId } from '../ids';

export interface SnapshotRequest {
  triggeredBy: 'manual' | 'schedule';
  phase?: number;
  dimension?: string;
}

/** Raises 400 unless the experiment can be analysed: started, with a phase and a datasource (metrics are optional: without them only traffic is analysed). */
export function assertAnalysable(experiment: Experiment, phase: number | undefined): void {
  if (experiment.status === 'draft') throw new InvalidInputError(`Experiment ${experiment.id} is a draft; start it before asking for results`);
  if (experiment.phases.length === 0) throw new InvalidInputError(`Experiment ${experiment.id} has no phases`);
  if (!experiment.settings.datasourceId) throw new InvalidInputError(`Experiment ${experiment.id} has no datasource`);
  if (phase !== undefined && phase >= experiment.phases.length) {
    throw new InvalidInputError(`Request body: [phase] the experiment has phases 0 to ${experiment.phases.length - 1}`);
  }
}

/** The phase a snapshot analyses: the one asked for, or the latest. */
export const snapshotPhase = (experiment: Experiment, request: SnapshotRequest) => request.phase ?? experiment.phases.length - 1;

/** A running snapshot: who asked, how, for which phase and dimension, and the analysis inputs it froze. */
export function newSnapshot(
  experiment: Experiment,
  request: SnapshotRequest,
  caller: { keyId: string; memberId?: string },
  inputs: AnalysisInputs,
): Omit<StoredSnapshot, 'dateCreated' | 'dateUpdated'> {
  return {
    id: newId('snp_'),
    experiment: experiment.id,
    status: 'running',
    inputs,
    triggeredBy: request.triggeredBy,
    triggeredByKeyId: caller.keyId,
    ...(caller.memberId ? { triggeredByMemberId: caller.memberId } : {}),
    phase: snapshotPhase(experiment, request),
    ...(request.dimension ? { dimension: request.dimension } : {}),
  };
}

/** A snapshot as the API shows it. */
export const snapshotView = ({ id, experiment, status, health }: StoredSnapshot) => ({ id, experiment, status, ...(health ? { health } : {}) });
