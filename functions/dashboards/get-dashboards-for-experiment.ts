import { endpoint } from '../../shared/api/endpoint';
import { getDashboardsForExperiment } from '../../shared/contracts/dashboards';
import { dashboardsOf } from '../../shared/store/dashboards';
import { experiments } from '../../shared/store/experiments';

export const handler = endpoint(getDashboardsForExperiment, async ({ params, auth }) => {
  await experiments.get(auth.orgId, params.experimentId);
  return { dashboards: await dashboardsOf(auth.orgId, params.experimentId) };
});
