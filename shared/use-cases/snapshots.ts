import * as contract from '../contracts/snapshots';
import { toExperimentResults } from '../analysis/experiment-results';
import { experimentMetricIds, freezeInputs, isUnitDimension } from '../analysis/freeze';
import { buildSnapshotQueries } from '../analysis/sql/snapshot-queries';
import { snapshotDeadline } from '../analysis/snapshot-outcome';
import { startSnapshotRun } from '../analysis/start-snapshot-run';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { transact } from '../db/repository';
import { assertAnalysable, newSnapshot, snapshotPhase, snapshotView, type SnapshotRequest } from '../domain/snapshots';
import { NotFoundError } from '../errors';
import { assertCan, type Principal } from '../permissions';
import type { Experiment } from '../contracts/experiments';
import type { StoredSnapshot } from '../contracts/snapshots';
import { dataSources } from '../store/data-sources';
import { dimensions } from '../store/dimensions';
import { newEvent, prepareEvent } from '../store/events';
import { experiments } from '../store/experiments';
import { factTables } from '../store/fact-tables';
import { analysisMetrics } from '../store/metrics';
import { readLatestPointers, readSnapshotResults } from '../store/snapshot-results';
import { segments } from '../store/segments';
import { prepareSnapshotWatch, snapshots } from '../store/snapshots';
import { prepareQueryCreates } from '../store/queries';
import { projectOf, readableOfExperimentOr404, readableOr404 } from './read-access';

/** Why there are no results: the latest snapshot of that phase and dimension is running or failed, or none was asked for. */
async function noResults(orgId: string, experimentId: string, phase: number, dimension: string): Promise<NotFoundError> {
  const asked = (await snapshots.allTagged(orgId, [`experiment:${experimentId}`])).filter(
    (s) => !s.report && s.phase === phase && (s.dimension ?? '') === dimension,
  );
  const latest = asked.at(-1);
  const what = `experiment ${experimentId}, phase ${phase}${dimension ? `, dimension ${dimension}` : ''}`;
  if (!latest) return new NotFoundError(`No results for ${what}: no snapshot has been run; POST /experiments/${experimentId}/snapshot`);
  if (latest.status === 'running') return new NotFoundError(`No results for ${what} yet: snapshot ${latest.id} is still running`);
  return new NotFoundError(`No results for ${what}: snapshot ${latest.id} failed: ${latest.error ?? 'unknown error'}`);
}

/** `GET /experiments/{id}/results`: get the results of the latest successful snapshot of an experiment. */
export async function getExperimentResults({
  params,
  query,
  auth,
}: UseCaseInput<typeof contract.getExperimentResults>): UseCaseOutput<typeof contract.getExperimentResults> {
  const dimension = query.dimension ?? '';
  // Round trip 1: the experiment, and the pointers to the latest successful snapshot of each phase. Round trip 2: its results.
  const [experiment, pointers] = await Promise.all([experiments.get(auth.orgId, params.id), readLatestPointers(auth.orgId, params.id, dimension)]);
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', params.id);
  const phase = query.phase ? Number(query.phase) : Math.max(0, experiment.phases.length - 1);
  const latest = pointers.get(phase);
  const stored = latest ? await readSnapshotResults(auth.orgId, latest.snapshotId) : undefined;
  if (!stored) throw await noResults(auth.orgId, params.id, phase, dimension);
  return { experiment, result: toExperimentResults(stored.summary, stored.metrics) };
}

/** `GET /snapshots/{id}`: get a snapshot by its own id. */
export async function getExperimentSnapshot({
  params,
  auth,
}: UseCaseInput<typeof contract.getExperimentSnapshot>): UseCaseOutput<typeof contract.getExperimentSnapshot> {
  const snapshot = await snapshots.get(auth.orgId, params.id);
  return { snapshot: snapshotView(await readableOfExperimentOr404(auth, snapshot, snapshot.experiment, 'Snapshot', params.id)) };
}

/**
 * Freezes the analysis of `experiment` as it stands (its settings and phases, which a report
 * replaces with its own), stores the snapshot with its queries and watch, and starts its run. A
 * report's snapshot names the report and leaves the experiment's own results alone.
 */
export async function startSnapshot(
  auth: Principal,
  experiment: Experiment,
  request: SnapshotRequest,
  report?: string,
): Promise<StoredSnapshot> {
  const activationId = experiment.settings.activationMetric?.metricId;
  const { segmentId } = experiment.settings;
  const [dataSource, analysed, segment, unitDimension] = await Promise.all([
    dataSources.find(auth.orgId, experiment.settings.datasourceId),
    // Fact and legacy metrics alike: a legacy metric is analysed as its fact equivalent.
    analysisMetrics(auth.orgId, [...experimentMetricIds(experiment), ...(activationId ? [activationId] : [])]),
    segmentId ? segments.find(auth.orgId, segmentId) : undefined,
    isUnitDimension(request.dimension) ? dimensions.find(auth.orgId, request.dimension!) : undefined,
  ]);
  // A fact segment reads its own fact table, which no metric may have brought.
  const segmentTableId = segment?.type === 'FACT' ? segment.factTableId : undefined;
  const segmentTables =
    segmentTableId && !analysed.factTables.some((t) => t.id === segmentTableId) ? await factTables.getMany(auth.orgId, [segmentTableId]) : [];
  const inputs = freezeInputs({
    experiment,
    dataSource,
    phase: snapshotPhase(experiment, request),
    dimension: request.dimension,
    metrics: analysed.metrics,
    factTables: [...analysed.factTables, ...segmentTables],
    ...(segment ? { segment } : {}),
    ...(unitDimension ? { unitDimension } : {}),
    now: new Date(),
  });
  // Building the SQL now turns a configuration the engine cannot run into a 400 instead of a failed snapshot.
  const planned = buildSnapshotQueries(inputs);
  const created = snapshots.prepareCreate(auth.orgId, { ...newSnapshot(experiment, request, auth, inputs), ...(report ? { report } : {}) });
  const { entity: snapshot } = created;
  // A scheduled refresh announces itself; a manual one stays quiet.
  const events =
    request.triggeredBy === 'schedule'
      ? [
          prepareEvent(
            newEvent(
              auth.orgId,
              'experiment.snapshot.scheduled',
              { type: 'experiment', id: experiment.id },
              {
                snapshotId: snapshot.id,
                phase: snapshot.phase,
                dimension: snapshot.dimension ?? null,
                status: snapshot.status,
                triggeredByKeyId: snapshot.triggeredByKeyId,
                triggeredByMemberId: snapshot.triggeredByMemberId ?? null,
              },
            ),
          ),
        ]
      : [];
  // The watch, written with the snapshot, lets the scheduler end it as `error` should this function die before the run starts.
  await transact([
    created,
    prepareSnapshotWatch(auth.orgId, snapshot.id, snapshotDeadline(new Date())),
    ...prepareQueryCreates(auth.orgId, snapshot, experiment.settings.datasourceId, planned),
    ...events,
  ]);
  await startSnapshotRun(auth.orgId, snapshot.id);
  return snapshot;
}

/** `POST /experiments/{id}/snapshot`: ask for a results snapshot of an experiment. */
export async function postExperimentSnapshot({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postExperimentSnapshot>): UseCaseOutput<typeof contract.postExperimentSnapshot> {
  const experiment = await experiments.get(auth.orgId, params.id);
  assertCan(auth, contract.postExperimentSnapshot.permission, experiment.project ? [experiment.project] : []);
  assertAnalysable(experiment, body.phase);
  return { snapshot: snapshotView(await startSnapshot(auth, experiment, body)) };
}
