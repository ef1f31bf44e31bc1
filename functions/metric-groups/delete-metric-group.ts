import { endpoint } from '../../shared/api/endpoint';
import { deleteMetricGroup } from '../../shared/contracts/metric-groups';
import { metricGroups } from '../../shared/store/metric-groups';

export const handler = endpoint(deleteMetricGroup, async ({ params, auth }) => {
  await metricGroups.remove(auth.orgId, params.id);
  return { deletedId: params.id };
});
