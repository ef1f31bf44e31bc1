import { endpoint } from '../../shared/api/endpoint';
import { getExperimentSnapshot } from '../../shared/contracts/snapshots';
import { snapshotView } from '../../shared/domain/snapshots';
import { snapshots } from '../../shared/store/snapshots';

export const handler = endpoint(getExperimentSnapshot, async ({ params, auth }) => ({
  snapshot: snapshotView(await snapshots.get(auth.orgId, params.id)),
}));
