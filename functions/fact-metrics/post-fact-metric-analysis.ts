import { endpoint } from '../../shared/api/endpoint';
import { postFactMetricAnalysis } from '../../shared/contracts/metric-analyses';
import * as metricAnalyses from '../../shared/use-cases/metric-analyses';

export const handler = endpoint(postFactMetricAnalysis, metricAnalyses.postFactMetricAnalysis);
