// One metric under one analysis: group the aggregate rows by dimension, compare every variation with the baseline,
// and shape the result as gbstats does (per dimension: SRM, per variation: summary, test outcome, supplements).
import { InvalidInputError } from '../../errors';
import { type BayesianOutcome, bayesianTest } from './bayesian';
import { effectMoments } from './effect-moments';
import { type FrequentistOutcome, frequentistTest } from './frequentist';
import { srmPValue } from './srm';
import { type BaseStatistic, type Statistic, stddev, unadjustedMean, withTheta } from './sufficient-statistics';

export type StatisticType = 'mean' | 'ratio' | 'mean_ra' | 'ratio_ra' | 'quantile_unit' | 'quantile_event';
export type ColumnType = 'binomial' | 'count' | 'quantile';

import { QUANTILE_N_STARS } from './quantile-grid';

export { QUANTILE_N_STARS };

/** A metric's settings, named as in gbstats' input. */
export interface MetricSettings {
  id: string;
  name?: string;
  statistic_type: StatisticType;
  main_metric_type: ColumnType;
  denominator_metric_type?: ColumnType;
  covariate_metric_type?: ColumnType;
  inverse: boolean;
  prior_proper: boolean;
  /** Prior on the relative effect (a fraction, e.g. 0.05 for +5%). */
  prior_mean: number;
  prior_stddev: number;
  /** Also analyse the `*_uncapped` columns, reported as `supplementalResults.uncapped`. */
  compute_uncapped_metric?: boolean;
  /** The quantile (0–1) of a quantile metric. */
  quantile_value?: number;
}

/** An analysis' settings, named as in gbstats' input. `var_ids[0]` is the baseline. */
export interface AnalysisSettings {
  stats_engine: 'frequentist' | 'bayesian';
  difference_type: 'relative' | 'absolute';
  alpha: number;
  sequential_testing_enabled: boolean;
  sequential_tuning_parameter: number;
  one_sided_intervals: boolean;
  /** Expected traffic share of each variation (same order as `var_ids`), for the SRM check. */
  weights: readonly number[];
  var_ids: readonly string[];
  var_names?: readonly string[];
  /** Where the baseline is placed in each dimension's `variations`. */
  baseline_index: number;
  /** Keep this many dimension values (by users); the rest are merged into "(other)". */
  max_dimensions?: number;
  dimension?: string;
  phase_length_days?: number;
  traffic_percentage?: number;
  p_value_corrected?: boolean;
  num_goal_metrics?: number;
  num_guardrail_metrics?: number;
}

/**
 * One row of the metric query per variation (and dimension value): the sufficient statistics without gbstats'
 * `m{i}_` prefix (`users`, `main_sum`, `main_sum_squares`, `denominator_sum`, ...), `variation` (the variation id)
 * and an optional `dimension`. Numbers may arrive as strings (Athena returns text) or bigints (DuckDB's integer
 * sums); a NULL sum counts as 0.
 */
export type VariationRow = Record<string, number | string | bigint | null>;

export interface MetricStats {
  users: number;
  count: number;
  stddev: number;
  mean: number;
}

/** What every variation reports, the baseline included. */
export interface VariationSummary {
  /** Per-unit mean (ratio for ratio metrics), before any CUPED adjustment. */
  cr: number;
  /** Sum of the metric's values. */
  value: number;
  users: number;
  /** Sum of the ratio's denominator (0 for means). */
  denominator: number;
  stats: MetricStats;
}

interface ComparisonExtras {
  realizedSettings: { postStratificationApplied: boolean };
  /** Mid-experiment power is not computed (GrowthBook computes it only for goal metrics it knows about). */
  power: null;
}

export type FrequentistVariationResult = VariationSummary & FrequentistOutcome & ComparisonExtras;
export type BayesianVariationResult = VariationSummary & BayesianOutcome & ComparisonExtras;
export type VariationResultIndividual = VariationSummary | FrequentistVariationResult | BayesianVariationResult;

/** The same variation analysed another way, for comparison. */
export interface SupplementalResults {
  /** CUPED metrics without the adjustment. */
  cupedUnadjusted: VariationResultIndividual | null;
  /** With `compute_uncapped_metric`: the `*_uncapped` columns. */
  uncapped: VariationResultIndividual | null;
  /** Bayesian analyses with a proper prior: the same with a flat prior. */
  flatPrior: VariationResultIndividual | null;
  /** Post-stratification is not implemented, so these are always null. */
  unstratified: null;
  noVarianceReduction: null;
}

export type VariationResult = VariationResultIndividual & { supplementalResults: SupplementalResults };

export interface DimensionResult<V = VariationResult> {
  dimension: string;
  /** SRM p-value of the observed users against the expected weights. */
  srm: number;
  /** Non-baseline variations in `var_ids` order, with the baseline inserted at `baseline_index`. */
  variations: V[];
}

export interface MetricResult {
  /** Variation ids found in the rows but not in `var_ids` (their rows are ignored). */
  unknownVariations: string[];
  /** Always 0, as in gbstats; units exposed to several variations are counted by the exposure query. */
  multipleExposures: number;
  dimensions: DimensionResult[];
}

const DEFAULT_DIMENSION = 'All';
const OTHER_DIMENSION = '(other)';
const MULTIPLE_EXPOSURES_ID = '__multiple__';

/** Summed rows of one dimension value: one per variation index (all zeros where a variation has no row). */
interface DimensionData {
  dimension: string;
  totalUsers: number;
  variations: Record<string, number>[];
}

/**
 * The rows of the `index`-th metric of a query whose columns carry gbstats' `m{index}_` prefix: that metric's columns
 * without the prefix, the shared columns (`variation`, `dimension`, `users`, `count`) as they are, other metrics'
 * columns left out.
 */
export function metricRows(rows: VariationRow[], index: number): VariationRow[] {
  const prefix = `m${index}_`;
  return rows.map((row) => {
    const out: VariationRow = {};
    for (const [column, value] of Object.entries(row)) {
      if (column.startsWith(prefix)) out[column.slice(prefix.length)] = value;
      else if (!/^m\d+_/.test(column)) out[column] = value;
    }
    return out;
  });
}

/** Analyses one metric under one analysis setting; `rows` carry the metric's columns without their prefix. */
export function analyseMetric(rows: VariationRow[], metric: MetricSettings, analysis: AnalysisSettings): MetricResult {
  validate(metric, analysis);
  const { dimensions, unknownVariations } = groupRows(rows, analysis);
  return { unknownVariations, multipleExposures: 0, dimensions: analyseWithSupplements(dimensions, metric, analysis) };
}

function validate(metric: MetricSettings, analysis: AnalysisSettings): void {
  if (analysis.var_ids.length === 0) throw new InvalidInputError('The analysis has no variations');
  if (analysis.weights.length !== analysis.var_ids.length) {
    throw new InvalidInputError('The analysis needs one weight per variation');
  }
  if (!Number.isInteger(analysis.baseline_index) || analysis.baseline_index < 0 || analysis.baseline_index >= analysis.var_ids.length) {
    throw new InvalidInputError('baseline_index must point at one of the variations');
  }
  if (!(analysis.alpha > 0 && analysis.alpha < 1)) throw new InvalidInputError('alpha must be between 0 and 1');
  if (analysis.sequential_testing_enabled && !(analysis.sequential_tuning_parameter > 0)) {
    throw new InvalidInputError('The sequential tuning parameter must be positive');
  }
  const isRatio = metric.statistic_type === 'ratio' || metric.statistic_type === 'ratio_ra';
  if (isRatio && !metric.denominator_metric_type) {
    throw new InvalidInputError(`Metric ${metric.id} is a ratio but has no denominator_metric_type`);
  }
  if (metric.statistic_type === 'mean_ra' && !metric.covariate_metric_type) {
    throw new InvalidInputError(`Metric ${metric.id} uses CUPED but has no covariate_metric_type`);
  }
}

/** Reads a column as a number; absent or non-numeric cells count as 0. */
function numberOf(row: VariationRow, column: string): number {
  const value = Number(row[column] ?? 0);
  return Number.isFinite(value) ? value : 0;
}

function groupRows(rows: VariationRow[], analysis: AnalysisSettings) {
  const index = new Map(analysis.var_ids.map((id, i) => [id, i]));
  const unknown = new Set<string>();
  const byDimension = new Map<string, DimensionData>();
  for (const row of rows) {
    const variation = String(row.variation);
    const i = index.get(variation);
    if (i === undefined) {
      if (variation !== MULTIPLE_EXPOSURES_ID) unknown.add(variation);
      continue;
    }
    const dimension = row.dimension == null || row.dimension === '' ? DEFAULT_DIMENSION : String(row.dimension);
    let data = byDimension.get(dimension);
    if (!data) {
      data = { dimension, totalUsers: 0, variations: analysis.var_ids.map(() => ({})) };
      byDimension.set(dimension, data);
    }
    data.totalUsers += numberOf(row, 'users');
    addRow(data.variations[i], row);
  }
  const dimensions = limitDimensions([...byDimension.values()], analysis.max_dimensions);
  return { dimensions, unknownVariations: [...unknown] };
}

function addRow(target: Record<string, number>, row: VariationRow): void {
  for (const column of Object.keys(row)) {
    if (column === 'variation' || column === 'dimension') continue;
    target[column] = (target[column] ?? 0) + numberOf(row, column);
  }
  // Without a `count` column every user is one observation.
  if (row.count === undefined) target.count = (target.count ?? 0) + numberOf(row, 'users');
}

/** Largest dimension values first; past `max`, the rest are summed into the last kept one, renamed "(other)". */
function limitDimensions(dimensions: DimensionData[], max: number | undefined): DimensionData[] {
  const sorted = [...dimensions].sort((a, b) => b.totalUsers - a.totalUsers);
  if (max === undefined || max < 1 || sorted.length <= max) return sorted;
  const kept = sorted.slice(0, max);
  const other: DimensionData = { ...kept[max - 1], dimension: OTHER_DIMENSION };
  other.variations = other.variations.map((v) => ({ ...v }));
  for (const extra of sorted.slice(max)) {
    other.totalUsers += extra.totalUsers;
    extra.variations.forEach((columns, i) => {
      for (const [column, value] of Object.entries(columns)) other.variations[i][column] = (other.variations[i][column] ?? 0) + value;
    });
  }
  kept[max - 1] = other;
  return kept;
}

function analyseWithSupplements(dimensions: DimensionData[], metric: MetricSettings, analysis: AnalysisSettings): DimensionResult[] {
  const core = analyseDimensions(dimensions, metric, analysis);
  const cuped = metric.statistic_type === 'mean_ra' || metric.statistic_type === 'ratio_ra';
  const cupedUnadjusted = cuped
    ? analyseDimensions(dimensions, { ...metric, statistic_type: metric.statistic_type === 'mean_ra' ? 'mean' : 'ratio' }, analysis)
    : null;
  const uncapped = metric.compute_uncapped_metric ? analyseDimensions(dimensions.map(useUncapped), metric, analysis) : null;
  const flatPrior =
    analysis.stats_engine === 'bayesian' && metric.prior_proper ? analyseDimensions(dimensions, { ...metric, prior_proper: false }, analysis) : null;
  return core.map((dimension, d) => ({
    ...dimension,
    variations: dimension.variations.map((variation, v) => ({
      ...variation,
      supplementalResults: {
        cupedUnadjusted: cupedUnadjusted?.[d]?.variations[v] ?? null,
        uncapped: uncapped?.[d]?.variations[v] ?? null,
        flatPrior: flatPrior?.[d]?.variations[v] ?? null,
        unstratified: null,
        noVarianceReduction: null,
      },
    })),
  }));
}

function useUncapped(data: DimensionData): DimensionData {
  return {
    ...data,
    variations: data.variations.map((columns) => {
      const replaced = { ...columns };
      for (const [column, value] of Object.entries(columns)) {
        if (column.endsWith('_uncapped')) replaced[column.slice(0, -'_uncapped'.length)] = value;
      }
      return replaced;
    }),
  };
}

function analyseDimensions(
  dimensions: DimensionData[],
  metric: MetricSettings,
  analysis: AnalysisSettings,
): DimensionResult<VariationResultIndividual>[] {
  const relative = analysis.difference_type === 'relative';
  return dimensions.map((data) => {
    const statistics = data.variations.map((columns) => statisticOf(columns, metric));
    const results: VariationResultIndividual[] = [];
    // The baseline's CUPED coefficient depends on the variation it is paired with; gbstats reports the last pair's.
    let baseline = statistics[0];
    for (let i = 1; i < statistics.length; i++) {
      const [a, b] = withTheta(statistics[0], statistics[i]);
      baseline = a;
      const moments = effectMoments(a, b, relative);
      const outcome =
        analysis.stats_engine === 'bayesian'
          ? bayesianTest(moments, unadjustedMean(a), {
              alpha: analysis.alpha,
              relative,
              inverse: metric.inverse,
              prior: { mean: metric.prior_mean, variance: metric.prior_stddev ** 2, proper: metric.prior_proper },
            })
          : frequentistTest(a, b, moments, {
              alpha: analysis.alpha,
              oneSided: analysis.one_sided_intervals,
              inverse: metric.inverse,
              sequential: analysis.sequential_testing_enabled,
              sequentialTuningParameter: analysis.sequential_tuning_parameter,
            });
      results.push({
        ...summary(data.variations[i], b),
        ...outcome,
        realizedSettings: { postStratificationApplied: false },
        power: null,
      });
    }
    results.splice(analysis.baseline_index, 0, summary(data.variations[0], baseline));
    const srm = srmPValue(
      data.variations.map((columns) => columns.users ?? 0),
      analysis.weights,
    );
    return { dimension: data.dimension, srm, variations: results };
  });
}

function summary(columns: Record<string, number>, statistic: Statistic): VariationSummary {
  const users = columns.users ?? 0;
  const mean = unadjustedMean(statistic);
  return {
    cr: mean,
    value: columns.main_sum ?? 0,
    users,
    denominator: columns.denominator_sum ?? 0,
    // A quantile counts its values (units or events), as gbstats does.
    stats: { users, count: statistic.kind === 'quantile' ? statistic.n : (columns.count ?? 0), stddev: stddev(statistic), mean },
  };
}

/** Builds a variation's statistic from its summed columns. */
export function statisticOf(columns: Record<string, number>, metric: MetricSettings): Statistic {
  const get = (column: string) => columns[column] ?? 0;
  const n = get('users');
  const base = (component: string, type: ColumnType | undefined): BaseStatistic => {
    // Observations per variation are `count` (defaulted to users when the query has no such column).
    const count = get('count');
    if (type === 'binomial') return { kind: 'proportion', n: count, sum: get(`${component}_sum`) };
    if (type === 'count') {
      return { kind: 'sample_mean', n: count, sum: get(`${component}_sum`), sumSquares: get(`${component}_sum_squares`) };
    }
    throw new InvalidInputError(`Metric ${metric.id} has no column type for its ${component} values`);
  };
  switch (metric.statistic_type) {
    case 'mean':
      return base('main', metric.main_metric_type);
    case 'ratio':
      return {
        kind: 'ratio',
        n,
        numerator: base('main', metric.main_metric_type),
        denominator: base('denominator', metric.denominator_metric_type),
        numeratorDenominatorProducts: get('main_denominator_sum_product'),
      };
    case 'mean_ra':
      return {
        kind: 'adjusted_mean',
        n,
        post: base('main', metric.main_metric_type),
        pre: base('covariate', metric.covariate_metric_type),
        postPreProducts: get('main_covariate_sum_product'),
        theta: 0,
      };
    case 'ratio_ra':
      return {
        kind: 'adjusted_ratio',
        n,
        numeratorPost: base('main', metric.main_metric_type),
        denominatorPost: base('denominator', metric.denominator_metric_type),
        // The pre-period numerator is the covariate, of the same type as the main values.
        numeratorPre: base('covariate', metric.main_metric_type),
        denominatorPre: base('denominator_pre', metric.denominator_metric_type),
        products: {
          numeratorPostDenominatorPost: get('main_denominator_sum_product'),
          numeratorPostNumeratorPre: get('main_covariate_sum_product'),
          numeratorPostDenominatorPre: get('main_post_denominator_pre_sum_product'),
          denominatorPostNumeratorPre: get('main_pre_denominator_post_sum_product'),
          denominatorPostDenominatorPre: get('denominator_post_denominator_pre_sum_product'),
          numeratorPreDenominatorPre: get('main_pre_denominator_pre_sum_product'),
        },
        theta: 0,
      };
    case 'quantile_unit':
    case 'quantile_event': {
      if (metric.quantile_value === undefined) throw new InvalidInputError(`Metric ${metric.id} is a quantile without quantile_value`);
      const bounds = quantileBounds(columns);
      return {
        kind: 'quantile',
        n: get('quantile_n'),
        nu: metric.quantile_value,
        hat: get('quantile'),
        ...bounds,
        ...(metric.statistic_type === 'quantile_event'
          ? {
              clusters: {
                units: n,
                main: { kind: 'sample_mean', n, sum: get('main_sum'), sumSquares: get('main_sum_squares') },
                events: { kind: 'sample_mean', n, sum: get('denominator_sum'), sumSquares: get('denominator_sum_squares') },
                mainEventsProducts: get('main_denominator_sum_product'),
              },
            }
          : {}),
      };
    }
    default:
      throw new InvalidInputError(`Unknown statistic_type ${String(metric.statistic_type)} for metric ${metric.id}`);
  }
}

/**
 * A quantile's interval: `quantile_nstar`, `quantile_lower`, `quantile_upper` when given (gbstats' input), otherwise
 * chosen from the query's grid as GrowthBook does: the largest sample size below the count of values (the smallest
 * when none is), stepping down to wider ones while the interval has collapsed to a point. Zeros when there is none.
 */
export function quantileBounds(columns: Record<string, number>): { nStar: number; lower: number; upper: number } {
  if (columns.quantile_nstar !== undefined) {
    return { nStar: columns.quantile_nstar, lower: columns.quantile_lower ?? 0, upper: columns.quantile_upper ?? 0 };
  }
  const n = columns.quantile_n ?? 0;
  const available = QUANTILE_N_STARS.map((nStar) => ({
    nStar,
    lower: columns[`quantile_lower_${nStar}`],
    upper: columns[`quantile_upper_${nStar}`],
  })).filter(
    (b): b is { nStar: number; lower: number; upper: number } =>
      b.lower !== undefined && b.upper !== undefined && b.lower !== null && b.upper !== null,
  );
  let k = -1;
  available.forEach((b, i) => {
    if (b.nStar < n || b.nStar === QUANTILE_N_STARS[0]) k = i;
  });
  if (k < 0) return { nStar: 0, lower: 0, upper: 0 };
  let chosen = available[k]!;
  if (chosen.lower === chosen.upper)
    chosen =
      available
        .slice(0, k)
        .reverse()
        .find((b) => b.lower !== b.upper) ?? chosen;
  return chosen;
}
