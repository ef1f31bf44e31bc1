import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateExperiment } from '../../shared/contracts/experiments';
import { phaseReferences, updatedExperiment } from '../../shared/domain/experiments';
import { dashboards } from '../../shared/store/dashboards';
import { assertExperimentReferences, assertTrackingKeyFree } from '../../shared/store/experiments';
import { changeExperiment } from '../../shared/store/experiment-schedule';
import { features } from '../../shared/store/features';
import { resolveOwner } from '../../shared/store/members';
import { assertReferences } from '../../shared/db/repository';

export const handler = endpoint(updateExperiment, async ({ params, body, auth }) => {
  const now = new Date().toISOString();
  const experiment = await changeExperiment(auth.orgId, params.id, async (current) => {
    assertCan(auth, updateExperiment.permission, current.project ? [current.project] : []);
    if (body.project) assertCan(auth, updateExperiment.permission, [body.project]);
    const owner = body.owner !== undefined ? await resolveOwner(auth.orgId, body.owner) : undefined;
    const next = updatedExperiment(current, body, owner, now);
    await Promise.all([
      assertExperimentReferences(auth.orgId, body, next.settings),
      assertReferences(auth.orgId, features, phaseReferences(body.phases).features),
      assertReferences(auth.orgId, dashboards, body.defaultDashboardId ? [{ field: 'defaultDashboardId', id: body.defaultDashboardId }] : []),
    ]);
    if (body.trackingKey && body.trackingKey !== current.trackingKey && !body.bypassDuplicateKeyCheck) {
      await assertTrackingKeyFree(auth.orgId, body.trackingKey);
    }
    return next;
  });
  return { experiment };
});
