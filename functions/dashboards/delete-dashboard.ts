import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/api/permissions';
import { deleteDashboard } from '../../shared/contracts/dashboards';
import { dashboardProjects, dashboards } from '../../shared/store/dashboards';

export const handler = endpoint(deleteDashboard, async ({ params, auth }) => {
  const current = await dashboards.get(auth.orgId, params.id);
  const projects = await dashboardProjects(auth.orgId, current);
  await dashboards.remove(auth.orgId, params.id, () => assertCan(auth, 'write', projects));
  return { deletedId: params.id };
});
