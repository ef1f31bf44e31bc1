import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postFactMetric } from '../../shared/contracts/fact-metrics';
import { buildFactMetric } from '../../shared/domain/fact-metrics';
import { factMetrics } from '../../shared/store/fact-metrics';
import { factTableLookup } from '../../shared/store/fact-tables';
import { newId } from '../../shared/ids';
import { ownerForCreate } from '../../shared/store/members';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(postFactMetric, async ({ body, auth }) => {
  assertCan(auth, postFactMetric.permission, body.projects);
  const draft = buildFactMetric(body, await factTableLookup(auth.orgId, [body.numerator, body.denominator]));
  await assertProjectsExist(auth.orgId, body.projects);
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId);
  const factMetric = await factMetrics.create(auth.orgId, {
    id: newId('fact__'),
    ...draft,
    ...owner,
  });
  return { factMetric };
});
