import { endpoint } from '../../shared/api/endpoint';
import { postMetric } from '../../shared/contracts/metrics';
import * as metrics from '../../shared/use-cases/metrics';

export const handler = endpoint(postMetric, metrics.postMetric);
