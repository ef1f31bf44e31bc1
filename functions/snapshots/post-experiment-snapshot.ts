import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postExperimentSnapshot } from '../../shared/contracts/snapshots';
import { assertAnalysable, newSnapshot, snapshotPhase, snapshotView } from '../../shared/domain/snapshots';
import { experimentMetricIds, freezeInputs } from '../../shared/analysis/freeze';
import { startSnapshotRun } from '../../shared/analysis/start-snapshot-run';
import { buildSnapshotQueries } from '../../shared/analysis/sql/snapshot-queries';
import { dataSources } from '../../shared/store/data-sources';
import { newEvent, prepareEvent } from '../../shared/store/events';
import { experiments } from '../../shared/store/experiments';
import { factMetrics } from '../../shared/store/fact-metrics';
import { factTables } from '../../shared/store/fact-tables';
import { transact } from '../../shared/db/repository';
import { snapshots } from '../../shared/store/snapshots';

export const handler = endpoint(postExperimentSnapshot, async ({ params, body, auth }) => {
  const experiment = await experiments.get(auth.orgId, params.id);
  assertCan(auth, postExperimentSnapshot.permission, experiment.project ? [experiment.project] : []);
  assertAnalysable(experiment, body.phase);
  const [dataSource, metrics] = await Promise.all([
    dataSources.find(auth.orgId, experiment.settings.datasourceId),
    factMetrics.getMany(auth.orgId, experimentMetricIds(experiment)),
  ]);
  const tableIds = metrics.flatMap((m) => [m.numerator.factTableId, ...(m.denominator ? [m.denominator.factTableId] : [])]);
  const inputs = freezeInputs({
    experiment,
    dataSource,
    phase: snapshotPhase(experiment, body),
    dimension: body.dimension,
    metrics,
    factTables: await factTables.getMany(auth.orgId, tableIds),
    now: new Date(),
  });
  // Building the SQL now turns a configuration the engine cannot run into a 400 instead of a failed snapshot.
  buildSnapshotQueries(inputs);
  const created = snapshots.prepareCreate(auth.orgId, newSnapshot(experiment, body, auth, inputs));
  const { entity: snapshot } = created;
  // A scheduled refresh announces itself; a manual one stays quiet.
  const events =
    body.triggeredBy === 'schedule'
      ? [
          prepareEvent(
            newEvent(auth.orgId, 'experiment.snapshot.scheduled', { type: 'experiment', id: experiment.id }, {
              snapshotId: snapshot.id,
              phase: snapshot.phase,
              dimension: snapshot.dimension ?? null,
              status: snapshot.status,
              triggeredByKeyId: snapshot.triggeredByKeyId,
              triggeredByMemberId: snapshot.triggeredByMemberId ?? null,
            }),
          ),
        ]
      : [];
  await transact([created, ...events]);
  await startSnapshotRun(auth.orgId, snapshot.id);
  return { snapshot: snapshotView(snapshot) };
});
