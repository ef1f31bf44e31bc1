import { endpoint } from '../../shared/api/endpoint';
import { getFactMetric } from '../../shared/contracts/fact-metrics';
import * as factMetrics from '../../shared/use-cases/fact-metrics';

export const handler = endpoint(getFactMetric, factMetrics.getFactMetric);
