import { InvalidInputError } from '../../errors';
import type { AnalysisInputs, FrozenFactTable, FrozenMetric, MetricSide } from '../inputs';
import { QUANTILE_N_STARS, quantileLevels } from '../statistics/quantile-grid';
import { dialectFor, identifier, literal, type Dialect } from './dialect';

/** One query of a snapshot: all the metrics of one fact table; column prefix `m<i>_` is `metricIds[i]`. */
export interface PlannedQuery {
  id: string;
  factTableId: string;
  metricIds: string[];
  sql: string;
}

/** The id of a traffic-only snapshot's one query. */
export const TRAFFIC_QUERY_ID = 'q0_traffic';

/** The per-unit statistics each metric contributes to the query's output, by statistic type. */
const MINUTES_PER_HOUR = 60;

const iso = (date: Date) => date.toISOString();
const plusMinutes = (isoDate: string, minutes: number) => iso(new Date(new Date(isoDate).getTime() + minutes * 60_000));
const sqlDate = (isoDate: string) => isoDate.slice(0, 19).replace('T', ' ');

/**
 * Fills GrowthBook's template variables in user SQL: `{{startDate}}`, `{{endDate}}` (as
 * `YYYY-MM-DD HH:mm:ss`), `{{startDateISO}}`, `{{endDateISO}}`, `{{experimentId}}`, `{{eventName}}`.
 */
export function compileTemplate(sql: string, vars: { start: string; end: string; experimentId: string; eventName?: string }): string {
  const values: Record<string, string> = {
    startDate: sqlDate(vars.start),
    endDate: sqlDate(vars.end),
    startDateISO: vars.start,
    endDateISO: vars.end,
    experimentId: vars.experimentId,
    eventName: vars.eventName ?? '',
  };
  return sql.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Whether a metric's conversion window bounds its events (GrowthBook drops it under `experimentDuration`). */
const usesConversionWindow = (inputs: AnalysisInputs, metric: FrozenMetric) =>
  metric.window.type === 'conversion' && inputs.attributionModel === 'firstExposure';

/** The lookback that applies to a metric: the experiment's override, or the metric's own lookback window. */
function lookbackOf(inputs: AnalysisInputs, metric: FrozenMetric): { minutes?: number; date?: string } | undefined {
  if (inputs.attributionModel === 'lookbackOverride' && inputs.lookbackOverride) {
    const { hours, date } = inputs.lookbackOverride;
    return hours !== undefined ? { minutes: hours * MINUTES_PER_HOUR } : { date };
  }
  if (metric.window.type === 'lookback') return { minutes: metric.window.windowHours * MINUTES_PER_HOUR };
  return undefined;
}

const delayMinutes = (metric: FrozenMetric) => metric.window.delayHours * MINUTES_PER_HOUR;
const covariateMinutes = (metric: FrozenMetric) =>
  metric.regressionAdjustment.enabled ? metric.regressionAdjustment.days * 24 * MINUTES_PER_HOUR : 0;

/** The per-row value a side reads from the fact table, before its window and aggregation. */
function rowValue(metric: FrozenMetric, side: MetricSide, isNumerator: boolean): string {
  let value: string;
  if ((isNumerator && metric.type === 'proportion') || side.column === '$$distinctUsers' || side.column === '$$count') value = '1';
  else if (side.column === '$$distinctDates') value = `CAST(f.${identifier('timestamp')} AS DATE)`;
  else if (side.aggregation === 'count distinct') value = `f.${identifier(side.column)}`;
  else value = `CAST(f.${identifier(side.column)} AS DOUBLE)`;
  return side.where.length ? `CASE WHEN ${side.where.map((w) => `(${w})`).join(' AND ')} THEN ${value} END` : value;
}

/** Whether a side counts the distinct values of its rows per unit (distinct days, or a column's distinct values). */
function countsDistinct(metric: FrozenMetric, side: MetricSide, isNumerator: boolean): boolean {
  if ((isNumerator && metric.type === 'proportion') || side.column === '$$distinctUsers' || side.column === '$$count') return false;
  return side.column === '$$distinctDates' || side.aggregation === 'count distinct';
}

/** The per-unit aggregate of a side's windowed values. */
function unitAggregate(metric: FrozenMetric, side: MetricSide, isNumerator: boolean, value: string): string {
  if ((isNumerator && metric.type === 'proportion') || side.column === '$$distinctUsers') return `COALESCE(MAX(${value}), 0)`;
  if (side.column === '$$count') return `COUNT(${value})`;
  if (countsDistinct(metric, side, isNumerator)) return `COUNT(DISTINCT ${value})`;
  if (side.aggregation === 'max') return `COALESCE(MAX(${value}), 0)`;
  return `COALESCE(SUM(${value}), 0)`;
}

/**
 * The head of a CTE: read more than once on an engine that materialises (DuckDB), it is computed once
 * (`AS MATERIALIZED`) rather than once per reference.
 */
const cteHead = (dialect: Dialect, name: string, readTwice: boolean) => `${name} AS ${readTwice && dialect.materializesCtes ? 'MATERIALIZED ' : ''}(`;

/**
 * The pre-aggregation of one distinct-count side on an engine that materialises CTEs: one row per unit and
 * distinct value with a flag per window, then one row per unit counting the flagged values. It gives what
 * `COUNT(DISTINCT CASE WHEN <window> THEN value END)` gives, without a distinct aggregate in the large
 * per-unit grouping (where DuckDB keeps a distinct set per unit).
 */
function distinctCountCte(name: string, column: string, windows: [name: string, conditions: string[]][]): string {
  const inWindow = (conditions: string[]) => conditions.join(' AND ');
  // With one window, the WHERE keeps only its rows, and every (unit, value) left counts.
  const single = windows.length === 1;
  return `__${name}_distinct AS (
  SELECT
    unit_id,
${windows.map(([name]) => `    COUNT(${single ? '*' : `in_${name}`}) AS ${name}`).join(',\n')}
  FROM (
    SELECT
      x.unit_id,
${[`f.${column}`, ...(single ? [] : windows.map(([name, conditions]) => `MAX(CASE WHEN ${inWindow(conditions)} THEN 1 END) AS in_${name}`))].map((line) => `      ${line}`).join(',\n')}
    FROM __exposures x
    JOIN __facts f ON f.unit_id = x.unit_id
    WHERE f.${column} IS NOT NULL
      AND (${windows.map(([, conditions]) => `(${inWindow(conditions)})`).join(' OR ')})
    GROUP BY x.unit_id, f.${column}
  ) d
  GROUP BY unit_id
)`;
}

// Without a dimension every unit's value is 'All': written once in the output rather than carried by every unit
// through the exposures, the per-unit grouping and its materialisation.
const dimensionOf = (inputs: AnalysisInputs, alias: string) => (inputs.dimension ? `${alias}.dimension` : `'All' AS dimension`);
const groupsOf = (inputs: AnalysisInputs, alias: string) => `${alias}.variation${inputs.dimension ? `, ${alias}.dimension` : ''}`;
const sameGroup = (inputs: AnalysisInputs, left: string, right: string) =>
  `${left}.variation = ${right}.variation${inputs.dimension ? ` AND ${left}.dimension = ${right}.dimension` : ''}`;

// GrowthBook caps neither proportions nor quantiles.
const isCapped = (metric: FrozenMetric) =>
  metric.type !== 'proportion' && metric.type !== 'quantile' && metric.capping.type !== 'none' && metric.capping.value > 0;
const isPercentileCapped = (metric: FrozenMetric) => isCapped(metric) && metric.capping.type === 'percentile' && metric.capping.value < 1;

/** A metric's conditions on fact rows (`ts`) of a unit exposed at `exposure`: after exposure (its window) and, for CUPED, before it. */
function metricWindows(
  inputs: AnalysisInputs,
  metric: FrozenMetric,
  dialect: Dialect,
  ts = `f.${identifier('timestamp')}`,
  exposure = 'x.first_exposure',
): { post: string[]; pre: string[] } {
  const endTs = dialect.timestamp(inputs.end);
  const post = [`${ts} >= ${dialect.addMinutes(exposure, delayMinutes(metric))}`];
  if (usesConversionWindow(inputs, metric)) {
    post.push(`${ts} <= ${dialect.addMinutes(exposure, delayMinutes(metric) + metric.window.windowHours * MINUTES_PER_HOUR)}`);
  } else {
    post.push(`${ts} <= ${endTs}`);
  }
  const lookback = lookbackOf(inputs, metric);
  if (lookback?.minutes !== undefined) post.push(`${ts} >= ${dialect.addMinutes(endTs, -lookback.minutes)}`);
  if (lookback?.date) post.push(`${ts} >= ${dialect.timestamp(lookback.date)}`);
  const pre = [
    `${ts} >= ${dialect.addMinutes(exposure, delayMinutes(metric) - covariateMinutes(metric))}`,
    `${ts} < ${dialect.addMinutes(exposure, delayMinutes(metric))}`,
  ];
  return { post, pre };
}

/** The first and last fact-row time any of `metrics` may count: from the earliest pre-exposure window to the latest conversion window. */
function factRange(inputs: AnalysisInputs, metrics: FrozenMetric[]): { factStart: string; factEnd: string } {
  const earliest = Math.min(0, ...metrics.map((m) => delayMinutes(m) - covariateMinutes(m)));
  const windowEnd = (m: FrozenMetric) => (usesConversionWindow(inputs, m) ? delayMinutes(m) + m.window.windowHours * MINUTES_PER_HOUR : 0);
  // With an activation metric, metric windows start at activation, itself up to its own window after exposure.
  const activation = inputs.activationMetric ? windowEnd(inputs.activationMetric) : 0;
  const latest = Math.max(0, ...metrics.map((m) => windowEnd(m))) + activation;
  return { factStart: plusMinutes(inputs.start, earliest), factEnd: plusMinutes(inputs.end, latest) };
}

/** A ratio metric of the query whose denominator is in another fact table; `alias` is its `m<i>` prefix. */
interface CrossDenominator {
  alias: string;
  metric: FrozenMetric;
}

/**
 * How rows (alias `alias`) keyed by one of `idTypes` reach the assignment query's unit: the unit column, or, when the
 * unit is not among them, the unit of an identity join query that maps one of them (as GrowthBook joins identifiers).
 * 400 naming `what` when neither exists.
 */
function unitKey(inputs: AnalysisInputs, idTypes: string[], alias: string, what: string): { column: string; join: string } {
  const unit = inputs.assignmentQuery.identifierType;
  if (idTypes.includes(unit)) return { column: `${alias}.${identifier(unit)}`, join: '' };
  for (const mapping of inputs.identityJoins ?? []) {
    const other = mapping.identifierTypes.includes(unit) ? idTypes.find((t) => mapping.identifierTypes.includes(t)) : undefined;
    if (!other) continue;
    const ids = `${alias}_ids`;
    const sql = compileTemplate(mapping.sql, { start: inputs.start, end: inputs.end, experimentId: inputs.trackingKey });
    return {
      column: `${ids}.${identifier(unit)}`,
      join: `
  JOIN (
    SELECT i.${identifier(unit)}, i.${identifier(other)}
    FROM (
${sql}
    ) i
    GROUP BY i.${identifier(unit)}, i.${identifier(other)}
  ) ${ids} ON ${ids}.${identifier(other)} = ${alias}.${identifier(other)}`,
    };
  }
  throw new InvalidInputError(
    `${what} has identifier types ${idTypes.join(', ')}; the assignment query ${inputs.assignmentQuery.id} uses ${unit}, and no identifier join query of the data source maps ${unit} to any of them`,
  );
}

/**
 * The CTEs of ratio denominators held in other fact tables (GrowthBook's cross-fact-table ratios): per other table
 * its rows in range (`__facts_d<k>`), their per-unit aggregate inside each metric's window (`__units_d<k>`, one row
 * per exposed unit), and `__units_all`, the query's `__units` with those denominator columns joined on. `''` when none.
 */
function crossTableUnits(inputs: AnalysisInputs, denominators: CrossDenominator[], dialect: Dialect): UnitParts {
  if (!denominators.length) return { ctes: [], columns: [], joins: [] };
  const ts = `f.${identifier('timestamp')}`;
  const byTable = new Map<string, CrossDenominator[]>();
  for (const d of denominators) byTable.set(d.metric.denominator!.factTableId, [...(byTable.get(d.metric.denominator!.factTableId) ?? []), d]);
  const ctes: string[] = [];
  const joins: string[] = [];
  const joined: string[] = [];
  [...byTable].forEach(([factTableId, entries], k) => {
    const table = inputs.factTables.find((t) => t.id === factTableId);
    if (!table) throw new InvalidInputError(`Fact table ${factTableId} is missing from the snapshot's inputs`);
    const key = unitKey(inputs, table.userIdTypes, 'f', `Fact table ${table.id}`);
    const name = `d${k + 1}`;
    const { factStart, factEnd } = factRange(
      inputs,
      entries.map((e) => e.metric),
    );
    const templateVars = { start: factStart, end: factEnd, experimentId: inputs.trackingKey, eventName: table.eventName };
    const values: string[] = [];
    const aggregates: string[] = [];
    for (const { alias, metric } of entries) {
      const side = metric.denominator!;
      values.push(`${rowValue(metric, side, false)} AS ${alias}_d`);
      const { post, pre } = metricWindows(inputs, metric, dialect);
      const windowed = (conditions: string[]) => `CASE WHEN ${conditions.join(' AND ')} THEN f.${alias}_d END`;
      aggregates.push(`${unitAggregate(metric, side, false, windowed(post))} AS ${alias}_d`);
      joined.push(`${name}.${alias}_d`);
      if (metric.regressionAdjustment.enabled) {
        aggregates.push(`${unitAggregate(metric, side, false, windowed(pre))} AS ${alias}_d_pre`);
        joined.push(`${name}.${alias}_d_pre`);
      }
    }
    ctes.push(`__facts_${name} AS (
  SELECT
    ${key.column} AS unit_id,
    ${ts} AS ${identifier('timestamp')},
${values.map((v) => `    ${v}`).join(',\n')}
  FROM (
${compileTemplate(table.sql, templateVars)}
  ) f${key.join}
  WHERE ${ts} >= ${dialect.timestamp(factStart)}
    AND ${ts} <= ${dialect.timestamp(factEnd)}
),
__units_${name} AS (
  SELECT
    x.unit_id,
${aggregates.map((v) => `    ${v}`).join(',\n')}
  FROM __exposures x
  LEFT JOIN __facts_${name} f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id
)`);
    joins.push(`  LEFT JOIN __units_${name} ${name} ON ${name}.unit_id = u.unit_id`);
  });
  return { ctes, columns: joined, joins };
}

/** Per-unit columns computed apart from `__units` (their CTEs, columns, and joins on `u`), joined on as `__units_all`. */
interface UnitParts {
  ctes: string[];
  columns: string[];
  joins: string[];
}

/** The CTEs after `__units` that add `parts` to it as `__units_all` (materialised when `readTwice`); `''` when there are none. */
function joinedUnits(parts: UnitParts, dialect: Dialect, readTwice: boolean): string {
  if (!parts.ctes.length) return '';
  const columns = ['u.*', ...parts.columns].map((c) => `    ${c}`).join(',\n');
  return `,\n${parts.ctes.join(',\n')},\n${cteHead(dialect, '__units_all', readTwice)}\n  SELECT\n${columns}\n  FROM __units u\n${parts.joins.join('\n')}\n)`;
}

/**
 * Event quantile metrics (GrowthBook's): the quantile of all events inside each metric's window, per variation and
 * dimension value, over `__events_<m>`; its interval grid (`__quantiles_<m>`, joined on the final rows as `q_<m>`);
 * and per unit its events and how many are at or below its variation's quantile (`__event_units_<m>`), whose sums
 * give gbstats the clustering of events in units.
 */
function eventQuantileUnits(inputs: AnalysisInputs, metrics: EventQuantile[], dialect: Dialect): UnitParts {
  const parts: UnitParts = { ctes: [], columns: [], joins: [] };
  for (const { alias, metric, column } of metrics) {
    const { level, ignoreZeros } = metric.quantile!;
    const { post } = metricWindows(inputs, metric, dialect);
    const value = `f.${column}`;
    const grid = QUANTILE_N_STARS.flatMap((nStar) => {
      const [lower, upper] = quantileLevels(level, nStar);
      return [
        `${dialect.percentile('e.value', lower)} AS quantile_lower_${nStar}`,
        `${dialect.percentile('e.value', upper)} AS quantile_upper_${nStar}`,
      ];
    });
    // Each is read twice: the events by the quantiles and the per-unit counts, the quantiles by those counts and the output.
    parts.ctes.push(`${cteHead(dialect, `__events_${alias}`, true)}
  SELECT x.unit_id, ${groupsOf(inputs, 'x')}, ${value} AS value
  FROM __exposures x
  JOIN __facts f ON f.unit_id = x.unit_id
  WHERE ${[...post, `${value} IS NOT NULL`, ...(ignoreZeros ? [`${value} <> 0`] : [])].join(' AND ')}
),
${cteHead(dialect, `__quantiles_${alias}`, true)}
  SELECT
    ${groupsOf(inputs, 'e')},
    ${dialect.percentile('e.value', level)} AS quantile,
${grid.map((g) => `    ${g}`).join(',\n')}
  FROM __events_${alias} e
  GROUP BY ${groupsOf(inputs, 'e')}
),
__event_units_${alias} AS (
  SELECT e.unit_id, COUNT(*) AS events, SUM(CASE WHEN e.value <= q.quantile THEN 1 ELSE 0 END) AS below
  FROM __events_${alias} e
  JOIN __quantiles_${alias} q ON ${sameGroup(inputs, 'q', 'e')}
  GROUP BY e.unit_id
)`);
    parts.columns.push(`COALESCE(eu_${alias}.events, 0) AS ${alias}_events`, `COALESCE(eu_${alias}.below, 0) AS ${alias}_below`);
    parts.joins.push(`  LEFT JOIN __event_units_${alias} eu_${alias} ON eu_${alias}.unit_id = u.unit_id`);
  }
  return parts;
}

/** An event quantile metric of the query: its `m<i>` prefix and the `__facts` column holding its values. */
interface EventQuantile {
  alias: string;
  metric: FrozenMetric;
  column: string;
}

/** The output columns of an event quantile metric: gbstats' clustered quantile inputs, per variation and dimension. */
function eventQuantileColumns(alias: string): string[] {
  const below = `CAST(u.${alias}_below AS DOUBLE)`;
  const events = `CAST(u.${alias}_events AS DOUBLE)`;
  return [
    `SUM(${below}) AS ${alias}_main_sum`,
    `SUM(POWER(${below}, 2)) AS ${alias}_main_sum_squares`,
    `SUM(${events}) AS ${alias}_denominator_sum`,
    `SUM(POWER(${events}, 2)) AS ${alias}_denominator_sum_squares`,
    `SUM(${below} * ${events}) AS ${alias}_main_denominator_sum_product`,
    `SUM(${events}) AS ${alias}_quantile_n`,
    `MAX(q_${alias}.quantile) AS ${alias}_quantile`,
    ...QUANTILE_N_STARS.flatMap((nStar) => [
      `MAX(q_${alias}.quantile_lower_${nStar}) AS ${alias}_quantile_lower_${nStar}`,
      `MAX(q_${alias}.quantile_upper_${nStar}) AS ${alias}_quantile_upper_${nStar}`,
    ]),
  ];
}

/**
 * A daily-participation metric's per-unit value (GrowthBook's): its distinct active days divided by the days the unit
 * could take part, from exposure (plus delay; in a lookback window, no earlier than its start) to the end of the
 * analysis or of the conversion window (no later than now), counted as whole days plus one, at least 1. Other metrics unchanged.
 */
function participationRate(inputs: AnalysisInputs, metric: FrozenMetric, dialect: Dialect, aggregate: string): string {
  if (metric.type !== 'dailyParticipation') return aggregate;
  return `CAST(${aggregate} AS DOUBLE) / ${participationDays(inputs, metric, dialect)}`;
}

/** The days a unit could take part in a daily-participation metric (see `participationRate`), as a DOUBLE, inside the per-unit aggregation. */
function participationDays(inputs: AnalysisInputs, metric: FrozenMetric, dialect: Dialect): string {
  // Inside the per-unit aggregation, where the unit's one first exposure is read through MIN (as GrowthBook does).
  let start = dialect.addMinutes('MIN(x.first_exposure)', delayMinutes(metric));
  let end = dialect.timestamp(inputs.end);
  const lookback = lookbackOf(inputs, metric);
  if (lookback?.minutes !== undefined) start = `GREATEST(${start}, ${dialect.addMinutes(end, -lookback.minutes)})`;
  if (lookback?.date) start = `GREATEST(${start}, ${dialect.timestamp(lookback.date)})`;
  if (usesConversionWindow(inputs, metric)) end = `LEAST(${dialect.now}, ${dialect.addMinutes(start, metric.window.windowHours * MINUTES_PER_HOUR)})`;
  return `CAST(GREATEST(${dialect.dayDiff(start, end)} + 1, 1) AS DOUBLE)`;
}

/**
 * What the exposures CTE adds for a segment, a unit dimension and an activation metric: CTEs to put before it
 * (`__segment`, `__dim_unit`, `__activation`, each keyed by `unit_id`), joins on the exposure rows `e`, and the
 * per-unit dimension value and first activation time. A unit counts only at exposures where it was already in the
 * segment; its activation is its earliest activation row inside the activation metric's window after an exposure.
 */
function exposureAdditions(inputs: AnalysisInputs, dialect: Dialect): { ctes: string; joins: string; dimension?: string; activation?: string } {
  const ctes: string[] = [];
  const joins: string[] = [];
  const templateVars = { start: inputs.start, end: inputs.end, experimentId: inputs.trackingKey };
  const ts = (alias: string) => `${alias}.${identifier('timestamp')}`;
  const eUnit = `e.${identifier(inputs.assignmentQuery.identifierType)}`;
  let dimension: string | undefined;
  let activation: string | undefined;
  if (inputs.segment) {
    const key = unitKey(inputs, inputs.segment.identifierTypes, 's', `Segment ${inputs.segment.id}`);
    ctes.push(`__segment AS (
  SELECT ${key.column} AS unit_id, CAST(s.${identifier('date')} AS TIMESTAMP) AS ${identifier('date')}
  FROM (
${compileTemplate(inputs.segment.sql, templateVars)}
  ) s${key.join}
)`);
    joins.push(`  JOIN __segment s ON s.unit_id = ${eUnit} AND s.${identifier('date')} <= ${ts('e')}`);
  }
  if (inputs.dimension?.type === 'unit') {
    const key = unitKey(inputs, [inputs.dimension.identifierType], 'd', `Dimension ${inputs.dimension.id}`);
    ctes.push(`__dim_unit AS (
  SELECT ${key.column} AS unit_id, d.${identifier('value')} AS value
  FROM (
${compileTemplate(inputs.dimension.sql, templateVars)}
  ) d${key.join}
)`);
    joins.push(`  LEFT JOIN __dim_unit du ON du.unit_id = ${eUnit}`);
    // GrowthBook's value for units the dimension does not list.
    dimension = `COALESCE(MAX(CAST(du.value AS VARCHAR)), '__NULL_DIMENSION')`;
  }
  const metric = inputs.activationMetric;
  if (metric) {
    const table = inputs.factTables.find((t) => t.id === metric.numerator.factTableId);
    if (!table) throw new InvalidInputError(`Fact table ${metric.numerator.factTableId} is missing from the snapshot's inputs`);
    const key = unitKey(inputs, table.userIdTypes, 'f', `Fact table ${table.id}`);
    const { factStart, factEnd } = factRange({ ...inputs, activationMetric: undefined }, [metric]);
    const where = [
      `${ts('f')} >= ${dialect.timestamp(factStart)}`,
      `${ts('f')} <= ${dialect.timestamp(factEnd)}`,
      ...metric.numerator.where.map((w) => `(${w})`),
    ];
    ctes.push(`__activation AS (
  SELECT ${key.column} AS unit_id, ${ts('f')} AS ${identifier('timestamp')}
  FROM (
${compileTemplate(table.sql, { ...templateVars, start: factStart, end: factEnd, eventName: table.eventName })}
  ) f${key.join}
  WHERE ${where.join('\n    AND ')}
)`);
    joins.push(`  LEFT JOIN __activation a ON a.unit_id = ${eUnit}`);
    const { post } = metricWindows(inputs, metric, dialect, ts('a'), ts('e'));
    activation = `MIN(CASE WHEN ${post.join(' AND ')} THEN ${ts('a')} END)`;
  }
  return { ctes: ctes.map((c) => `${c},\n`).join(''), joins: joins.map((j) => `\n${j}`).join(''), dimension, activation };
}

/**
 * A unit quantile metric's columns per variation (GrowthBook's): the count of its per-unit values (`u.<column>`;
 * zeros left out with `ignoreZeros`), their quantile, and for each sample size of the grid the values at the quantile levels
 * bounding its 95% interval (`quantile_lower_<n>`, `quantile_upper_<n>`), the analysis picking one by the count.
 */
function unitQuantileColumns(metric: FrozenMetric, column: string, alias: string, dialect: Dialect): string[] {
  if (metric.type !== 'quantile' || metric.quantile?.type !== 'unit') return [];
  const { level, ignoreZeros } = metric.quantile;
  const value = `CAST(u.${column} AS DOUBLE)`;
  const where = ignoreZeros ? `u.${column} <> 0` : undefined;
  const columns = [
    `${ignoreZeros ? `COUNT(CASE WHEN ${where} THEN 1 END)` : 'COUNT(*)'} AS ${alias}_quantile_n`,
    `${dialect.percentile(value, level, where)} AS ${alias}_quantile`,
  ];
  for (const nStar of QUANTILE_N_STARS) {
    const [lower, upper] = quantileLevels(level, nStar);
    columns.push(
      `${dialect.percentile(value, lower, where)} AS ${alias}_quantile_lower_${nStar}`,
      `${dialect.percentile(value, upper, where)} AS ${alias}_quantile_upper_${nStar}`,
    );
  }
  return columns;
}

/**
 * The `__exposures` CTE every snapshot query starts from: one row per unit of the assignment query with its
 * first exposure, its variation (`__multiple__` when seen in more than one) and its dimension value.
 * `longestConversionMinutes` drops units still inside a conversion window when in-progress conversions are excluded.
 */
function exposuresCte(
  inputs: AnalysisInputs,
  dialect: Dialect,
  templateVars: { start: string; end: string; experimentId: string; eventName?: string },
  longestConversionMinutes: number,
  readTwice = false,
): string {
  const unit = inputs.assignmentQuery.identifierType;
  const endTs = dialect.timestamp(inputs.end);
  const ts = (alias: string) => `${alias}.${identifier('timestamp')}`;
  const added = exposureAdditions(inputs, dialect);
  const dimension =
    added.dimension ??
    (inputs.dimension?.type === 'experiment'
      ? `min_by(CAST(e.${identifier(inputs.dimension.column)} AS VARCHAR), e.${identifier('timestamp')})`
      : inputs.dimension?.type === 'date'
        ? `CAST(CAST(MIN(e.${identifier('timestamp')}) AS DATE) AS VARCHAR)`
        : `'All'`);
  const exposureWhere = [
    `CAST(e.${identifier('experiment_id')} AS VARCHAR) = ${literal(inputs.trackingKey)}`,
    `${ts('e')} >= ${dialect.timestamp(inputs.start)}`,
    `${ts('e')} <= ${endTs}`,
    ...(inputs.queryFilter.trim() ? [`(${inputs.queryFilter})`] : []),
  ];
  const having =
    inputs.inProgressConversions === 'exclude' && longestConversionMinutes > 0
      ? `\n  HAVING MIN(${ts('e')}) <= ${dialect.addMinutes(endTs, -longestConversionMinutes)}`
      : '';
  // Seen in more than one variation when its least and greatest differ: a COUNT(DISTINCT) in this large
  // grouping would keep a set of values per unit.
  const variation = `CAST(e.${identifier('variation_id')} AS VARCHAR)`;
  const exposureSql = compileTemplate(inputs.assignmentQuery.sql, { ...templateVars, start: inputs.start, end: inputs.end });
  // With joins, the exposure rows are filtered first, so the query filter's bare column names stay unambiguous.
  const source = added.joins
    ? `FROM (
  SELECT *
  FROM (
${exposureSql}
  ) e
  WHERE ${exposureWhere.join('\n    AND ')}
  ) e${added.joins}`
    : `FROM (
${exposureSql}
  ) e
  WHERE ${exposureWhere.join('\n    AND ')}`;
  // With an activation metric, `__exposures` is the activated units of `__exposures_all` (read once).
  const exposures = `${added.ctes}${cteHead(dialect, added.activation ? '__exposures_all' : '__exposures', readTwice && !added.activation)}
  SELECT
    e.${identifier(unit)} AS unit_id,
    CASE WHEN MIN(${variation}) <> MAX(${variation}) THEN '__multiple__' ELSE MAX(${variation}) END AS variation,
    MIN(${ts('e')}) AS first_exposure${inputs.dimension ? `,\n    ${dimension} AS dimension` : ''}${added.activation ? `,\n    ${added.activation} AS first_activation` : ''}
  ${source}
  GROUP BY e.${identifier(unit)}${having}
)`;
  if (!added.activation) return exposures;
  // With an activation metric only activated units count, and their metrics start at activation (as in GrowthBook).
  return `${exposures},
${cteHead(dialect, '__exposures', readTwice)}
  SELECT unit_id, variation, first_activation AS first_exposure${inputs.dimension ? ', dimension' : ''}
  FROM __exposures_all
  WHERE first_activation IS NOT NULL
)`;
}

/**
 * The SQL of one snapshot query: exposures (first exposure per unit, units seen in more than one
 * variation kept apart as `__multiple__`), the fact table's rows joined to them inside each metric's
 * window (and the pre-exposure window for CUPED), one aggregate per unit and metric, caps, and
 * finally one row per variation and dimension with the sufficient statistics gbstats reads.
 */
export function buildFactTableQuery(inputs: AnalysisInputs, table: FrozenFactTable, metrics: FrozenMetric[], dialect: Dialect): string {
  const key = unitKey(inputs, table.userIdTypes, 'f', `Fact table ${table.id}`);
  const end = inputs.end;
  const endTs = dialect.timestamp(end);
  const ts = (alias: string) => `${alias}.${identifier('timestamp')}`;
  const longestConversion = Math.max(
    0,
    ...metrics.filter((m) => usesConversionWindow(inputs, m)).map((m) => delayMinutes(m) + m.window.windowHours * MINUTES_PER_HOUR),
  );

  // The rows of the fact table any metric may count.
  const { factStart, factEnd } = factRange(inputs, metrics);
  const templateVars = { start: factStart, end: factEnd, experimentId: inputs.trackingKey, eventName: table.eventName };

  // Metrics often share a value (revenue in a mean and in a ratio) or a whole per-unit aggregate: each is
  // computed once, under the name of its first side, and the others read it (`unitColumn`).
  const factColumns: string[] = [];
  const factColumnOf = new Map<string, string>();
  const unitColumns: string[] = [];
  const unitColumnOf = new Map<string, string>();
  const sameAs = new Map<string, string>();
  const unitColumn = (name: string) => sameAs.get(name) ?? name;
  // Per distinct-count side: its pre-aggregation and the per-unit columns its windows give.
  const distinctCtes: string[] = [];
  // Each pre-aggregation is named by its first side (`side`) and holds one count per window (`names`); the
  // columns `__units` makes of them (the counts, or a daily participation's rate) are computed once each too.
  const distinctSides: { side: string; names: string[] }[] = [];
  const distinctOf = new Map<string, { side: string; names: string[] }>();
  const distinctColumns: string[] = [];
  const distinctColumnOf = new Map<string, string>();
  const outputColumns: string[] = [];
  const caps: string[] = [];
  const crossDenominators: CrossDenominator[] = [];
  const eventQuantiles: EventQuantile[] = [];

  metrics.forEach((metric, i) => {
    const a = `m${i}`;
    const sides: [string, MetricSide, boolean][] = [['n', metric.numerator, true]];
    // A denominator in another fact table is aggregated per unit from that table (`crossTableUnits`).
    if (metric.type === 'ratio' && metric.denominator) {
      if (metric.denominator.factTableId === table.id) sides.push(['d', metric.denominator, false]);
      else crossDenominators.push({ alias: a, metric });
    }
    const sourceOf = new Map<string, string>();
    for (const [suffix, side] of sides) {
      const value = rowValue(metric, side, suffix === 'n');
      if (!factColumnOf.has(value)) {
        factColumnOf.set(value, `${a}_${suffix}`);
        factColumns.push(`${value} AS ${a}_${suffix}`);
      }
      sourceOf.set(suffix, factColumnOf.get(value)!);
    }

    const { post, pre } = metricWindows(inputs, metric, dialect);
    const windowed = (conditions: string[], column: string) => `CASE WHEN ${conditions.join(' AND ')} THEN f.${column} END`;
    for (const [suffix, side, isNumerator] of sides) {
      const column = `${a}_${suffix}`;
      const source = sourceOf.get(suffix)!;
      const windows: [string, string[]][] = [
        [column, post],
        ...(metric.regressionAdjustment.enabled ? [[`${column}_pre`, pre] as [string, string[]]] : []),
      ];
      // A daily-participation numerator divides its distinct days (after exposure) by the days the unit could take part.
      const rateOf = (name: string) => isNumerator && name === column && metric.type === 'dailyParticipation';
      if (dialect.materializesCtes && countsDistinct(metric, side, isNumerator)) {
        const signature = JSON.stringify([source, windows.map(([, conditions]) => conditions)]);
        let owner = distinctOf.get(signature);
        if (!owner) {
          owner = { side: column, names: windows.map(([name]) => name) };
          distinctOf.set(signature, owner);
          distinctCtes.push(distinctCountCte(column, source, windows));
          distinctSides.push(owner);
        }
        const counts = owner;
        windows.forEach(([name], w) => {
          const count = `COALESCE(${counts.side}_distinct.${counts.names[w]}, 0)`;
          let expression = count;
          if (rateOf(name)) {
            // The days need the unit's first exposure: computed in the per-unit grouping, divided by after the join.
            const days = participationDays(inputs, metric, dialect);
            if (!unitColumnOf.has(days)) {
              unitColumnOf.set(days, `${column}_days`);
              unitColumns.push(`${days} AS ${column}_days`);
            }
            expression = `CAST(${count} AS DOUBLE) / u.${unitColumnOf.get(days)}`;
          }
          const existing = distinctColumnOf.get(expression);
          if (existing) sameAs.set(name, existing);
          else {
            distinctColumnOf.set(expression, name);
            distinctColumns.push(`${expression} AS ${name}`);
          }
        });
      } else {
        for (const [name, conditions] of windows) {
          const plain = unitAggregate(metric, side, isNumerator, windowed(conditions, source));
          const aggregate = rateOf(name) ? participationRate(inputs, metric, dialect, plain) : plain;
          const existing = unitColumnOf.get(aggregate);
          if (existing) sameAs.set(name, existing);
          else {
            unitColumnOf.set(aggregate, name);
            unitColumns.push(`${aggregate} AS ${name}`);
          }
        }
      }
    }

    if (metric.type === 'quantile' && metric.quantile?.type === 'event') {
      eventQuantiles.push({ alias: a, metric, column: sourceOf.get('n')! });
      outputColumns.push(...eventQuantileColumns(a));
      return;
    }

    // Capped per-unit values.
    const capped = (column: string, capColumn: string) => {
      const value = `CAST(u.${unitColumn(column)} AS DOUBLE)`;
      if (!isCapped(metric)) return value;
      if (isPercentileCapped(metric)) return `LEAST(${value}, COALESCE(c.${capColumn}, ${value}))`;
      return `LEAST(${value}, ${metric.capping.value})`;
    };
    if (isPercentileCapped(metric)) {
      for (const [suffix] of sides) {
        const where = metric.capping.ignoreZeros ? `${unitColumn(`${a}_${suffix}`)} <> 0` : undefined;
        caps.push(`${dialect.percentile(`CAST(${unitColumn(`${a}_${suffix}`)} AS DOUBLE)`, metric.capping.value, where)} AS ${a}_${suffix}_cap`);
      }
    }
    const main = capped(`${a}_n`, `${a}_n_cap`);
    const stats: [string, string][] = [
      ['main_sum', main],
      ['main_sum_squares', `POWER(${main}, 2)`],
    ];
    const ra = metric.regressionAdjustment.enabled;
    const covariate = ra ? capped(`${a}_n_pre`, `${a}_n_cap`) : '';
    if (metric.type === 'ratio' && metric.denominator) {
      const denominator = capped(`${a}_d`, `${a}_d_cap`);
      stats.push(
        ['denominator_sum', denominator],
        ['denominator_sum_squares', `POWER(${denominator}, 2)`],
        ['main_denominator_sum_product', `${main} * ${denominator}`],
      );
      if (ra) {
        const denominatorPre = capped(`${a}_d_pre`, `${a}_d_cap`);
        stats.push(
          ['covariate_sum', covariate],
          ['covariate_sum_squares', `POWER(${covariate}, 2)`],
          ['main_covariate_sum_product', `${main} * ${covariate}`],
          ['denominator_pre_sum', denominatorPre],
          ['denominator_pre_sum_squares', `POWER(${denominatorPre}, 2)`],
          ['main_post_denominator_pre_sum_product', `${main} * ${denominatorPre}`],
          ['main_pre_denominator_post_sum_product', `${covariate} * ${denominator}`],
          ['main_pre_denominator_pre_sum_product', `${covariate} * ${denominatorPre}`],
          ['denominator_post_denominator_pre_sum_product', `${denominator} * ${denominatorPre}`],
        );
      }
    } else if (ra) {
      stats.push(
        ['covariate_sum', covariate],
        ['covariate_sum_squares', `POWER(${covariate}, 2)`],
        ['main_covariate_sum_product', `${main} * ${covariate}`],
      );
    }
    for (const [name, expression] of stats) outputColumns.push(`SUM(${expression}) AS ${a}_${name}`);
    outputColumns.push(...unitQuantileColumns(metric, unitColumn(`${a}_n`), a, dialect));
  });

  const factSql = compileTemplate(table.sql, templateVars);
  const indent = (lines: string[], by: string) => lines.map((line) => `${by}${line}`).join(',\n');
  const cross = crossTableUnits(inputs, crossDenominators, dialect);
  const quantiles = eventQuantileUnits(inputs, eventQuantiles, dialect);
  const preAggregated = distinctCtes.length > 0;
  const joined = joinedUnits(
    {
      ctes: [...cross.ctes, ...quantiles.ctes],
      columns: [...cross.columns, ...quantiles.columns],
      joins: [...cross.joins, ...quantiles.joins],
    },
    dialect,
    caps.length > 0,
  );
  // What the caps and the output read: `__units`, or `__units_all` when columns computed apart are joined on.
  const units = joined ? '__units_all' : '__units';
  // Read by the per-unit grouping, each distinct-count pre-aggregation, each other table's denominators and each event quantile.
  const exposuresReadTwice = distinctCtes.length + cross.ctes.length + quantiles.ctes.length > 0;
  // Without distinct counts, the per-unit grouping is the __units read by the caps and the output (or by __units_all).
  const unitAggregates = preAggregated ? '__unit_aggregates' : '__units';
  const distinctUnits = preAggregated
    ? `,
${distinctCtes.join(',\n')},
${cteHead(dialect, '__units', caps.length > 0 && !joined)}
  SELECT
    u.*,
${indent(distinctColumns, '    ')}
  FROM __unit_aggregates u
${distinctSides.map(({ side }) => `  LEFT JOIN __${side}_distinct ${side}_distinct ON ${side}_distinct.unit_id = u.unit_id`).join('\n')}
)`
    : '';
  const quantileJoins = eventQuantiles
    .map(({ alias }) => `\nLEFT JOIN __quantiles_${alias} q_${alias} ON ${sameGroup(inputs, `q_${alias}`, 'u')}`)
    .join('');

  return `-- Fact table ${table.name} (${table.id}): ${metrics.map((m) => m.id).join(', ')}
WITH ${exposuresCte(inputs, dialect, templateVars, longestConversion, exposuresReadTwice)},
${cteHead(dialect, '__facts', false)}
  SELECT
    ${key.column} AS unit_id,
    ${ts('f')} AS ${identifier('timestamp')},
${indent(factColumns, '    ')}
  FROM (
${factSql}
  ) f${key.join}
  WHERE ${ts('f')} >= ${dialect.timestamp(factStart)}
    AND ${ts('f')} <= ${dialect.timestamp(factEnd)}
),
${cteHead(dialect, unitAggregates, caps.length > 0 && !preAggregated && !joined)}
  SELECT
${indent(['x.unit_id', 'x.variation', ...(inputs.dimension ? ['x.dimension'] : []), ...unitColumns], '    ')}
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation${inputs.dimension ? ', x.dimension' : ''}
)${distinctUnits}${joined}${caps.length ? `,\n__caps AS (\n  SELECT\n${indent(caps, '    ')}\n  FROM ${units}\n)` : ''}
SELECT
  u.variation,
  ${dimensionOf(inputs, 'u')},
  COUNT(*) AS users,
${indent(outputColumns, '  ')}
FROM ${units} u${caps.length ? '\nCROSS JOIN __caps c' : ''}${quantileJoins}
GROUP BY ${groupsOf(inputs, 'u')}
ORDER BY ${groupsOf(inputs, 'u')}`;
}

/**
 * The traffic query of a snapshot without metrics: the units exposed per variation and dimension value, from the
 * same exposures the metric queries count as `users` (so a traffic-only snapshot and one with metrics agree).
 */
export function buildTrafficQuery(inputs: AnalysisInputs, dialect: Dialect): string {
  const templateVars = { start: inputs.start, end: inputs.end, experimentId: inputs.trackingKey };
  return `-- Traffic: units exposed per variation
WITH ${exposuresCte(inputs, dialect, templateVars, 0)}
SELECT
  x.variation,
  ${dimensionOf(inputs, 'x')},
  COUNT(*) AS users
FROM __exposures x
GROUP BY ${groupsOf(inputs, 'x')}
ORDER BY ${groupsOf(inputs, 'x')}`;
}

/**
 * The queries of a snapshot: one per fact table, covering every metric whose numerator it holds; with no
 * metrics, the one traffic query (`q0_traffic`).
 */
export function buildSnapshotQueries(inputs: AnalysisInputs): PlannedQuery[] {
  const dialect = dialectFor(inputs.engine);
  const tables = new Map(inputs.factTables.map((t) => [t.id, t]));
  if (!inputs.metrics.length) return [{ id: TRAFFIC_QUERY_ID, factTableId: '', metricIds: [], sql: buildTrafficQuery(inputs, dialect) }];
  const byTable = new Map<string, FrozenMetric[]>();
  for (const metric of inputs.metrics) {
    byTable.set(metric.numerator.factTableId, [...(byTable.get(metric.numerator.factTableId) ?? []), metric]);
  }
  return [...byTable].map(([factTableId, metrics], index) => {
    const table = tables.get(factTableId);
    if (!table) throw new InvalidInputError(`Fact table ${factTableId} is missing from the snapshot's inputs`);
    return {
      id: `q${index}_${factTableId}`,
      factTableId,
      metricIds: metrics.map((m) => m.id),
      sql: buildFactTableQuery(inputs, table, metrics, dialect),
    };
  });
}
