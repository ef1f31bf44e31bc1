import { endpoint } from '../../shared/api/endpoint';
import { listMetricGroups } from '../../shared/contracts/metric-groups';
import { metricGroups } from '../../shared/store/metric-groups';

export const handler = endpoint(listMetricGroups, async ({ auth }) => ({ metricGroups: await metricGroups.all(auth.orgId) }));
