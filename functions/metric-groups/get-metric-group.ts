import { endpoint } from '../../shared/api/endpoint';
import { getMetricGroup } from '../../shared/contracts/metric-groups';
import * as metricGroups from '../../shared/use-cases/metric-groups';

export const handler = endpoint(getMetricGroup, metricGroups.getMetricGroup);
