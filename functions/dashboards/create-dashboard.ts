import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { createDashboard } from '../../shared/contracts/dashboards';
import { blockReferences, newDashboard } from '../../shared/domain/dashboards';
import { assertDashboardReferences, dashboardProjects, dashboards } from '../../shared/store/dashboards';

export const handler = endpoint(createDashboard, async ({ body, auth }) => {
  const data = newDashboard(body, auth.orgId, auth.memberId ?? '');
  const read = await assertDashboardReferences(auth.orgId, body, blockReferences(body.blocks));
  assertCan(auth, createDashboard.permission, await dashboardProjects(auth.orgId, data, read));
  return { dashboard: await dashboards.create(auth.orgId, data) };
});
