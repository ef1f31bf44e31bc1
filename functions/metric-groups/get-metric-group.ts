import { endpoint } from '../../shared/api/endpoint';
import { getMetricGroup } from '../../shared/contracts/metric-groups';
import { metricGroups } from '../../shared/store/metric-groups';

export const handler = endpoint(getMetricGroup, async ({ params, auth }) => ({ metricGroup: await metricGroups.get(auth.orgId, params.id) }));
