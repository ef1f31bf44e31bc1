import { endpoint } from '../../shared/api/endpoint';
import { updateMetricGroup } from '../../shared/contracts/metric-groups';
import * as metricGroups from '../../shared/use-cases/metric-groups';

export const handler = endpoint(updateMetricGroup, metricGroups.updateMetricGroup);
