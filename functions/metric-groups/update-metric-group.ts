import { endpoint } from '../../shared/api/endpoint';
import { updateMetricGroup } from '../../shared/contracts/metric-groups';
import { assertMetricGroupReferences, metricGroups } from '../../shared/store/metric-groups';

export const handler = endpoint(updateMetricGroup, async ({ params, body, auth }) => {
  const metricGroup = await metricGroups.update(auth.orgId, params.id, async (current) => {
    const next = { ...current, ...body };
    // A new datasource re-checks every metric; otherwise only what the body names.
    const datasourceChanged = body.datasource !== undefined && body.datasource !== current.datasource;
    await assertMetricGroupReferences(auth.orgId, {
      projects: body.projects ?? [],
      metrics: body.metrics ?? (datasourceChanged ? next.metrics : []),
      datasource: next.datasource,
    });
    return next;
  });
  return { metricGroup };
});
