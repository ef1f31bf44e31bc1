import { endpoint } from '../../shared/api/endpoint';
import { postFactMetric } from '../../shared/contracts/fact-metrics';
import * as factMetrics from '../../shared/use-cases/fact-metrics';

export const handler = endpoint(postFactMetric, factMetrics.postFactMetric);
