import { endpoint } from '../../shared/api/endpoint';
import { putMetric } from '../../shared/contracts/metrics';
import * as metrics from '../../shared/use-cases/metrics';

export const handler = endpoint(putMetric, metrics.putMetric);
