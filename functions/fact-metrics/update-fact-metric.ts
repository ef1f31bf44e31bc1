import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/api/permissions';
import { updateFactMetric } from '../../shared/contracts/fact-metrics';
import { buildFactMetric, factMetricInputAfter, redefined } from '../../shared/domain/fact-metrics';
import { factMetrics } from '../../shared/store/fact-metrics';
import { factTableLookup } from '../../shared/store/fact-tables';
import { resolveOwner } from '../../shared/store/members';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(updateFactMetric, async ({ params, body, auth }) => {
  const before = factMetricInputAfter(await factMetrics.get(auth.orgId, params.id), body);
  const lookup = await factTableLookup(auth.orgId, [before.numerator, before.denominator]);
  await assertProjectsExist(auth.orgId, body.projects);
  const owner = body.owner ? await resolveOwner(auth.orgId, body.owner) : undefined;
  const factMetric = await factMetrics.update(auth.orgId, params.id, (current) => {
    assertCan(auth, 'write', current.projects);
    if (body.projects) assertCan(auth, 'write', body.projects);
    return {
      ...redefined(current, buildFactMetric(factMetricInputAfter(current, body), lookup)),
      ...(owner ? { owner: owner.id, ownerEmail: owner.email } : {}),
    };
  });
  return { factMetric };
});
