import type { StoredMetricAnalysis } from '../contracts/metric-analyses';
import { repository } from '../db/repository';

/** Fact metric analyses (POST /fact-metrics/{id}/analysis), listed by metric for the cache GrowthBook's `useCache` reads. */
export const metricAnalyses = repository<StoredMetricAnalysis>({
  type: 'METRIC_ANALYSIS',
  label: 'Metric analysis',
  listTags: (analysis) => [`metric:${analysis.metric}`],
});
