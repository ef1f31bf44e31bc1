import { endpoint } from '../../shared/api/endpoint';
import { deleteMetric } from '../../shared/contracts/metrics';
import * as metrics from '../../shared/use-cases/metrics';

export const handler = endpoint(deleteMetric, metrics.deleteMetric);
