import { endpoint } from '../../shared/api/endpoint';
import { getFactMetric } from '../../shared/contracts/fact-metrics';
import { factMetrics } from '../../shared/store/fact-metrics';

export const handler = endpoint(getFactMetric, async ({ params, auth }) => ({
  factMetric: await factMetrics.get(auth.orgId, params.id),
}));
