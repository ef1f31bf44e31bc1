import type { SnapshotTraffic } from '../contracts/snapshots';
import type { StoredMetricResult, StoredResultSummary } from '../store/snapshot-results';

export { toExperimentResults } from './experiment-results';
import type { AnalysisInputs, FrozenMetric } from './inputs';
import type { PlannedQuery } from './sql/snapshot-queries';
import { analyseMetric, srmPValue, toApiAnalysis, type AnalysisSettings, type MetricSettings, type VariationRow } from './statistics';

const MULTIPLE_EXPOSURES = '__multiple__';
/** GrowthBook's defaults: a 5% significance level, at most 20 dimension values (the rest merged as "(other)"). */
const ALPHA = 0.05;
const MAX_DIMENSIONS = 20;

/** The gbstats settings of a metric. */
export function metricSettings(metric: FrozenMetric): MetricSettings {
  const ratio = metric.type === 'ratio';
  const ra = metric.regressionAdjustment.enabled;
  const main = metric.type === 'proportion' ? 'binomial' : metric.type === 'quantile' ? 'quantile' : 'count';
  return {
    id: metric.id,
    name: metric.name,
    statistic_type: metric.quantile ? (metric.quantile.type === 'event' ? 'quantile_event' : 'quantile_unit') : ratio ? (ra ? 'ratio_ra' : 'ratio') : ra ? 'mean_ra' : 'mean',
    ...(metric.quantile ? { quantile_value: metric.quantile.level } : {}),
    main_metric_type: main,
    ...(ratio ? { denominator_metric_type: 'count' as const } : {}),
    ...(ra ? { covariate_metric_type: main } : {}),
    inverse: metric.inverse,
    prior_proper: metric.prior.proper,
    prior_mean: metric.prior.mean,
    prior_stddev: metric.prior.stddev,
  };
}

/** The gbstats settings of a snapshot's analysis: its engine, variations (baseline first) and weights. */
export function analysisSettings(inputs: AnalysisInputs): AnalysisSettings {
  const days = (Date.parse(inputs.end) - Date.parse(inputs.start)) / 86_400_000;
  return {
    stats_engine: inputs.statsEngine,
    difference_type: inputs.differenceType ?? 'relative',
    alpha: ALPHA,
    sequential_testing_enabled: inputs.sequentialTestingEnabled,
    sequential_tuning_parameter: inputs.sequentialTestingTuningParameter,
    one_sided_intervals: inputs.oneSidedIntervals ?? false,
    weights: inputs.variations.map((v) => v.weight),
    var_ids: inputs.variations.map((v) => v.key),
    var_names: inputs.variations.map((v) => v.name),
    baseline_index: 0,
    max_dimensions: MAX_DIMENSIONS,
    dimension: inputs.dimension?.id ?? '',
    phase_length_days: days,
  };
}

/** One metric's columns of a query's rows, without its `m<i>_` prefix. */
export function metricRows(rows: Record<string, unknown>[], index: number): VariationRow[] {
  const prefix = `m${index}_`;
  return rows.map((row) => {
    const out: VariationRow = { variation: String(row.variation), dimension: String(row.dimension ?? 'All'), users: Number(row.users ?? 0) };
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith(prefix)) out[key.slice(prefix.length)] = Number(value ?? 0);
    }
    return out;
  });
}

/**
 * Analyses every metric of a snapshot from its queries' rows: per metric its aggregates and
 * per-variation analyses (GrowthBook's API mapping), per dimension value the users and SRM, and the
 * traffic (GrowthBook's `health.traffic`: units per variation and SRM, overall and per dimension value).
 */
export function analyseSnapshotRows(
  snapshotId: string,
  inputs: AnalysisInputs,
  queries: PlannedQuery[],
  rowsByQuery: Record<string, Record<string, unknown>[]>,
  now: Date,
): { summary: StoredResultSummary; metrics: StoredMetricResult[] } {
  const settings = analysisSettings(inputs);
  const byMetric = new Map(inputs.metrics.map((m) => [m.id, m]));
  const metrics: StoredMetricResult[] = [];
  for (const query of queries) {
    const rows = rowsByQuery[query.id];
    if (!rows) throw new Error(`Query ${query.id} returned no result`);
    query.metricIds.forEach((metricId, i) => {
      const metric = byMetric.get(metricId)!;
      const variationRows = metricRows(rows, i);
      let analysed;
      try {
        analysed = analyseMetric(variationRows, metricSettings(metric), settings);
      } catch (error) {
        throw new Error(`Analysis of metric ${metric.id} (${metric.name}) failed: ${(error as Error).message}`);
      }
      metrics.push({
        metricId,
        metricName: metric.name,
        queryId: query.id,
        rows: variationRows,
        dimensions: analysed.dimensions.map((d) => ({
          dimension: d.dimension,
          variations: d.variations.map((v, index) => ({
            variationId: inputs.variations[index]!.variationId,
            users: v.users,
            analyses: [{ ...toApiAnalysis(v, inputs.statsEngine) }],
          })),
        })),
      });
    });
  }

  // Users and SRM per dimension value come from the exposures, which every query shares; the first one is read.
  const firstRows = queries.length ? (rowsByQuery[queries[0]!.id] ?? []) : [];
  const keys = inputs.variations.map((v) => v.key);
  const seen = [...new Set(firstRows.filter((r) => keys.includes(String(r.variation))).map((r) => String(r.dimension ?? 'All')))];
  // Without a dimension there is always the overall line, even before the first exposure.
  const dimensionNames = metrics[0]?.dimensions.map((d) => d.dimension) ?? (seen.length || inputs.dimension ? seen : ['All']);
  const unitsOf = (rows: Record<string, unknown>[]) =>
    keys.map((key) => rows.filter((r) => String(r.variation) === key).reduce((sum, r) => sum + Number(r.users ?? 0), 0));
  const trafficOf = (name: string, rows: Record<string, unknown>[]) => {
    const variationUnits = unitsOf(rows);
    return { name, srm: srmPValue(variationUnits, settings.weights), variationUnits };
  };
  const byDimension = dimensionNames.map((dimension) =>
    trafficOf(
      dimension,
      firstRows.filter((r) => (dimension === '(other)' ? !dimensionNames.includes(String(r.dimension)) : String(r.dimension ?? 'All') === dimension)),
    ),
  );
  const dimensions = byDimension.map(({ name, srm, variationUnits }) => ({
    dimension: name,
    totalUsers: variationUnits.reduce((a, b) => a + b, 0),
    srm,
  }));
  const traffic: SnapshotTraffic = {
    overall: trafficOf('All', firstRows),
    dimension: inputs.dimension ? { [inputs.dimension.id]: byDimension } : {},
  };
  const multipleExposures = firstRows.filter((r) => r.variation === MULTIPLE_EXPOSURES).reduce((sum, r) => sum + Number(r.users ?? 0), 0);
  return {
    summary: {
      snapshotId,
      experimentId: inputs.experimentId,
      phase: inputs.phase,
      dimension: inputs.dimension?.id ?? '',
      dateStart: inputs.start,
      dateEnd: inputs.end,
      dateUpdated: now.toISOString(),
      queryIds: queries.map((q) => q.id),
      multipleExposures,
      settings: inputs.settings,
      dimensions,
      traffic,
      metricCount: metrics.length,
    },
    metrics,
  };
}
