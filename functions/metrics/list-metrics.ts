import { endpoint } from '../../shared/api/endpoint';
import { listMetrics } from '../../shared/contracts/metrics';
import * as metrics from '../../shared/use-cases/metrics';

export const handler = endpoint(listMetrics, metrics.listMetrics);
