import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteDashboard } from '../../shared/contracts/dashboards';
import { dashboardProjects, dashboards } from '../../shared/store/dashboards';

export const handler = endpoint(deleteDashboard, async ({ params, auth }) => {
  await dashboards.remove(auth.orgId, params.id, async (current) => assertCan(auth, deleteDashboard.permission, await dashboardProjects(auth.orgId, current)));
  return { deletedId: params.id };
});
