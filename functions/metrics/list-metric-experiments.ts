import { endpoint } from '../../shared/api/endpoint';
import { listMetricExperiments } from '../../shared/contracts/metric-usage';
import * as usage from '../../shared/use-cases/metric-usage';

export const handler = endpoint(listMetricExperiments, usage.listMetricExperiments);
