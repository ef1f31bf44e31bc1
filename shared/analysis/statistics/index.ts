// Experiment statistics matching GrowthBook's gbstats: frequentist (t-tests, sequential), Bayesian (Gaussian prior),
// CUPED, ratios and the SRM check, computed from per-variation sufficient statistics.
export {
  analyseMetric,
  statisticOf,
  type AnalysisSettings,
  type BayesianVariationResult,
  type ColumnType,
  type DimensionResult,
  type FrequentistVariationResult,
  type MetricResult,
  type MetricSettings,
  type MetricStats,
  type StatisticType,
  type SupplementalResults,
  type VariationResult,
  type VariationResultIndividual,
  type VariationRow,
  type VariationSummary,
} from './analyse-metric';
export { srmPValue } from './srm';
export { toApiAnalysis, finiteOrZero, type ApiVariationAnalysis } from './api-analysis';
export { BASELINE_VARIATION_ZERO, ZERO_NEGATIVE_VARIANCE } from './effect-moments';
