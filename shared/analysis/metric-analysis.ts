import type { MetricAnalysisResult, MetricAnalysisValue } from '../contracts/metric-analyses';
import { InvalidInputError } from '../errors';
import type { FrozenFactTable, FrozenMetric, MetricSide } from './inputs';
import { compileTemplate } from './sql/snapshot-queries';
import { dialectFor, identifier } from './sql/dialect';
import { mean, stddev, type BaseStatistic, type Statistic } from './statistics/sufficient-statistics';

/**
 * A fact metric's analysis (GrowthBook's metric analysis): its value over every unit of its fact table in a window of
 * days, overall and day by day. One query returns sufficient statistics (units, sums, sums of squares, cross products)
 * per day and for the whole window; the means and standard deviations come from them as a snapshot's do.
 */

/** What a metric analysis computes over. */
export interface MetricAnalysisPlan {
  engine: 'duckdb' | 'athena';
  metric: FrozenMetric;
  table: FrozenFactTable;
  unit: string;
  start: string;
  end: string;
}

const unsupported = (problem: string) => new InvalidInputError(`Metric analysis: ${problem}`);

/** A side's value on one fact table row (null where its filters leave the row out), and how a unit's rows add up. */
function sideSql(side: MetricSide, binomial: boolean): { row: string; aggregate: (value: string) => string } {
  const when = side.where.length ? side.where.map((c) => `(${c})`).join(' AND ') : 'TRUE';
  if (binomial || side.column === '$$distinctUsers') return { row: `CASE WHEN ${when} THEN 1 END`, aggregate: (v) => `MAX(${v})` };
  if (side.column === '$$count') return { row: `CASE WHEN ${when} THEN 1 END`, aggregate: (v) => `SUM(${v})` };
  if (side.column.startsWith('$$')) throw unsupported(`the column ${side.column} is not supported`);
  const column = `m.${identifier(side.column)}`;
  if (side.aggregation === 'count distinct') return { row: `CASE WHEN ${when} THEN ${column} END`, aggregate: (v) => `COUNT(DISTINCT ${v})` };
  const value = `CASE WHEN ${when} THEN CAST(${column} AS DOUBLE) END`;
  return { row: value, aggregate: (v) => (side.aggregation === 'max' ? `MAX(${v})` : `SUM(${v})`) };
}

/** Raises 400 unless the metric can be analysed this way: a proportion, mean or ratio whose sides read one fact table. */
export function assertMetricAnalysable(metric: FrozenMetric): void {
  if (metric.type === 'quantile' || metric.type === 'dailyParticipation') throw unsupported(`${metric.type} metrics are not supported yet`);
  if (metric.denominator && metric.denominator.factTableId !== metric.numerator.factTableId) {
    throw unsupported('a ratio whose denominator reads another fact table than its numerator is not supported yet');
  }
}

/**
 * The one query of an analysis: per unit and day, then per unit over the window, the numerator (and denominator)
 * values; then per day and overall (`day` null) their count, sums, sums of squares and cross products.
 */
export function buildMetricAnalysisQuery(plan: MetricAnalysisPlan): string {
  assertMetricAnalysable(plan.metric);
  const dialect = dialectFor(plan.engine);
  const binomial = plan.metric.type === 'proportion';
  const numerator = sideSql(plan.metric.numerator, binomial);
  const denominator = plan.metric.denominator ? sideSql(plan.metric.denominator, false) : undefined;
  const tableSql = compileTemplate(plan.table.sql, { start: plan.start, end: plan.end, experimentId: '', eventName: plan.table.eventName });
  const perUnit = (groupBy: string) => `SELECT unit${groupBy ? ', day' : ''}, COALESCE(${numerator.aggregate('n')}, 0) AS n${
    denominator ? `, COALESCE(${denominator.aggregate('d')}, 0) AS d` : ''
  }
  FROM __rows GROUP BY unit${groupBy}`;
  const sums = `COUNT(*) AS units, SUM(n) AS n_sum, SUM(n * n) AS n_sum_squares${denominator ? ', SUM(d) AS d_sum, SUM(d * d) AS d_sum_squares, SUM(n * d) AS nd_sum' : ''}`;
  return `WITH __rows AS (
  SELECT m.${identifier(plan.unit)} AS unit, CAST(m.${identifier('timestamp')} AS DATE) AS day, ${numerator.row} AS n${denominator ? `, ${denominator.row} AS d` : ''}
  FROM (
${tableSql}
  ) m
  WHERE m.${identifier('timestamp')} >= ${dialect.timestamp(plan.start)} AND m.${identifier('timestamp')} < ${dialect.timestamp(plan.end)}
),
__unit_days AS (
  ${perUnit(', day')}
),
__units AS (
  ${perUnit('')}
)
SELECT CAST(day AS VARCHAR) AS day, ${sums} FROM __unit_days GROUP BY day
UNION ALL
SELECT NULL AS day, ${sums} FROM __units`;
}

const num = (value: unknown) => Number(value ?? 0);

/** One row's value: the mean and standard deviation from its sums, as the snapshot statistics compute them. */
function valueOf(row: Record<string, unknown>, binomial: boolean, ratio: boolean): MetricAnalysisValue {
  const n = num(row.units);
  const side = (prefix: 'n' | 'd', proportion: boolean): BaseStatistic =>
    proportion ? { kind: 'proportion', n, sum: num(row[`${prefix}_sum`]) } : { kind: 'sample_mean', n, sum: num(row[`${prefix}_sum`]), sumSquares: num(row[`${prefix}_sum_squares`]) };
  const statistic: Statistic = ratio
    ? { kind: 'ratio', n, numerator: side('n', false), denominator: side('d', false), numeratorDenominatorProducts: num(row.nd_sum) }
    : side('n', binomial);
  return {
    units: n,
    mean: mean(statistic),
    stddev: stddev(statistic),
    numerator: num(row.n_sum),
    ...(ratio ? { denominator: num(row.d_sum) } : {}),
  };
}

/** The result of an analysis from its query's rows: the overall row (`day` null) and the days in order. */
export function metricAnalysisResult(rows: Record<string, unknown>[], metric: Pick<FrozenMetric, 'type'>, ratio: boolean): MetricAnalysisResult {
  const binomial = metric.type === 'proportion';
  const overall = rows.find((row) => row.day === null || row.day === undefined);
  const days = rows
    .filter((row) => row !== overall)
    .map((row) => ({ date: `${String(row.day).slice(0, 10)}T00:00:00.000Z`, ...valueOf(row, binomial, ratio) }))
    .sort((a, b) => a.date.localeCompare(b.date));
  return { ...(overall ? valueOf(overall, binomial, ratio) : { units: 0, mean: 0, stddev: 0, numerator: 0, ...(ratio ? { denominator: 0 } : {}) }), dates: days };
}
