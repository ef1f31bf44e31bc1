import { endpoint } from '../../shared/api/endpoint';
import { createMetricGroup } from '../../shared/contracts/metric-groups';
import { newId } from '../../shared/ids';
import { assertMetricGroupReferences, metricGroups } from '../../shared/store/metric-groups';

export const handler = endpoint(createMetricGroup, async ({ body, auth }) => {
  await assertMetricGroupReferences(auth.orgId, body);
  const metricGroup = await metricGroups.create(auth.orgId, {
    ...body,
    id: newId('mg_'),
    tags: body.tags ?? [],
    owner: auth.memberId ?? '',
    archived: false,
  });
  return { metricGroup };
});
