import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateDashboard } from '../../shared/contracts/dashboards';
import { assertDashboardRules, blockReferences, updatedBlocks } from '../../shared/domain/dashboards';
import { assertDashboardReferences, dashboardProjects, dashboards } from '../../shared/store/dashboards';

export const handler = endpoint(updateDashboard, async ({ params, body, auth }) => {
  const dashboard = await dashboards.update(auth.orgId, params.id, async (current) => {
    assertCan(auth, updateDashboard.permission, await dashboardProjects(auth.orgId, current));
    const { blocks, ...fields } = body;
    const next = { ...current, ...fields, ...(blocks ? { blocks: updatedBlocks(blocks, current.blocks, auth.orgId) } : {}) };
    assertDashboardRules(next);
    await assertDashboardReferences(auth.orgId, fields, blockReferences(blocks ?? []));
    if (fields.projects) assertCan(auth, updateDashboard.permission, fields.projects);
    return next;
  });
  return { dashboard };
});
