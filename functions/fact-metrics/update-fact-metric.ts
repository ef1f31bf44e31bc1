import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateFactMetric } from '../../shared/contracts/fact-metrics';
import { buildFactMetric, factMetricInputAfter, redefined, storedTablesLookup } from '../../shared/domain/fact-metrics';
import { factMetrics } from '../../shared/store/fact-metrics';
import { factTableLookup } from '../../shared/store/fact-tables';
import { resolveOwner } from '../../shared/store/members';
import { withOwner } from '../../shared/domain/owner';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(updateFactMetric, async ({ params, body, auth }) => {
  // The body's references are checked after the read, so an unknown metric is 404 first.
  const factMetric = await factMetrics.update(auth.orgId, params.id, async (current) => {
    // Only tables the body names are read; the sides it keeps were checked when they were stored.
    const named = await factTableLookup(auth.orgId, [body.numerator, body.denominator]);
    const stored = storedTablesLookup(current);
    await assertProjectsExist(auth.orgId, body.projects);
    const owner = body.owner !== undefined ? await resolveOwner(auth.orgId, body.owner) : undefined;
    assertCan(auth, updateFactMetric.permission, current.projects);
    if (body.projects) assertCan(auth, updateFactMetric.permission, body.projects);
    const draft = buildFactMetric(factMetricInputAfter(current, body), (id) => named(id) ?? stored(id));
    return withOwner(redefined(current, draft), owner);
  });
  return { factMetric };
});
