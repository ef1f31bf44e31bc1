import { endpoint } from '../../shared/api/endpoint';
import { listFactMetrics } from '../../shared/contracts/fact-metrics';
import * as factMetrics from '../../shared/use-cases/fact-metrics';

export const handler = endpoint(listFactMetrics, factMetrics.listFactMetrics);
