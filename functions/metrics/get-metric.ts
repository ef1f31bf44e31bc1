import { endpoint } from '../../shared/api/endpoint';
import { getMetric } from '../../shared/contracts/metrics';
import * as metrics from '../../shared/use-cases/metrics';

export const handler = endpoint(getMetric, metrics.getMetric);
