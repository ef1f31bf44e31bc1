import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postExperimentSnapshot } from '../../shared/contracts/snapshots';
import { assertAnalysable, newSnapshot, snapshotView } from '../../shared/domain/snapshots';
import { newEvent, prepareEvent } from '../../shared/store/events';
import { experiments } from '../../shared/store/experiments';
import { transact } from '../../shared/store/repository';
import { snapshots } from '../../shared/store/snapshots';

export const handler = endpoint(postExperimentSnapshot, async ({ params, body, auth }) => {
  const experiment = await experiments.get(auth.orgId, params.id);
  assertCan(auth, 'write', experiment.project ? [experiment.project] : []);
  assertAnalysable(experiment, body.phase);
  const created = snapshots.prepareCreate(auth.orgId, newSnapshot(experiment, body, auth));
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
  return { snapshot: snapshotView(snapshot) };
});
