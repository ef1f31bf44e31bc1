import { allInOrder } from '../../shared/concurrency';
import { endpoint } from '../../shared/api/endpoint';
import { getDashboardsForExperiment } from '../../shared/contracts/dashboards';
import { dashboardsOf } from '../../shared/store/dashboards';
import { experiments } from '../../shared/store/experiments';

export const handler = endpoint(getDashboardsForExperiment, async ({ params, auth }) => {
  const [, dashboards] = await allInOrder([experiments.get(auth.orgId, params.experimentId), dashboardsOf(auth.orgId, params.experimentId)]);
  return { dashboards };
});
