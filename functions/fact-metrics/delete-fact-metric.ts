import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteFactMetric } from '../../shared/contracts/fact-metrics';
import { factMetrics } from '../../shared/store/fact-metrics';

export const handler = endpoint(deleteFactMetric, async ({ params, auth }) => {
  await factMetrics.remove(auth.orgId, params.id, (metric) => assertCan(auth, deleteFactMetric.permission, metric.projects));
  return { deletedId: params.id };
});
