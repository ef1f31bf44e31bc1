import { InvalidInputError } from '../../errors';
import type { AnalysisInputs, FrozenFactTable, FrozenMetric, MetricSide } from '../inputs';
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
const covariateMinutes = (metric: FrozenMetric) => (metric.regressionAdjustment.enabled ? metric.regressionAdjustment.days * 24 * MINUTES_PER_HOUR : 0);

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
const cteHead = (dialect: Dialect, name: string, readTwice: boolean) =>
  `${name} AS ${readTwice && dialect.materializesCtes ? 'MATERIALIZED ' : ''}(`;

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

const isCapped = (metric: FrozenMetric) => metric.type !== 'proportion' && metric.capping.type !== 'none' && metric.capping.value > 0;
const isPercentileCapped = (metric: FrozenMetric) => isCapped(metric) && metric.capping.type === 'percentile' && metric.capping.value < 1;

// Without a dimension every unit's value is 'All': written once in the output rather than carried by every unit
// through the exposures, the per-unit grouping and its materialisation.
const dimensionOf = (inputs: AnalysisInputs, alias: string) => (inputs.dimension ? `${alias}.dimension` : `'All' AS dimension`);
const groupsOf = (inputs: AnalysisInputs, alias: string) => `${alias}.variation${inputs.dimension ? `, ${alias}.dimension` : ''}`;

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
  const dimension =
    inputs.dimension?.type === 'experiment'
      ? `min_by(CAST(e.${identifier(inputs.dimension.column)} AS VARCHAR), e.${identifier('timestamp')})`
      : inputs.dimension?.type === 'date'
        ? `CAST(CAST(MIN(e.${identifier('timestamp')}) AS DATE) AS VARCHAR)`
        : `'All'`;
  const exposureWhere = [
    `CAST(e.${identifier('experiment_id')} AS VARCHAR) = ${literal(inputs.trackingKey)}`,
    `${ts('e')} >= ${dialect.timestamp(inputs.start)}`,
    `${ts('e')} <= ${endTs}`,
    ...(inputs.queryFilter.trim() ? [`(${inputs.queryFilter})`] : []),
  ];
  const having = inputs.inProgressConversions === 'exclude' && longestConversionMinutes > 0
    ? `\n  HAVING MIN(${ts('e')}) <= ${dialect.addMinutes(endTs, -longestConversionMinutes)}`
    : '';
  // Seen in more than one variation when its least and greatest differ: a COUNT(DISTINCT) in this large
  // grouping would keep a set of values per unit.
  const variation = `CAST(e.${identifier('variation_id')} AS VARCHAR)`;
  const exposureSql = compileTemplate(inputs.assignmentQuery.sql, { ...templateVars, start: inputs.start, end: inputs.end });
  return `${cteHead(dialect, '__exposures', readTwice)}
  SELECT
    e.${identifier(unit)} AS unit_id,
    CASE WHEN MIN(${variation}) <> MAX(${variation}) THEN '__multiple__' ELSE MAX(${variation}) END AS variation,
    MIN(${ts('e')}) AS first_exposure${inputs.dimension ? `,\n    ${dimension} AS dimension` : ''}
  FROM (
${exposureSql}
  ) e
  WHERE ${exposureWhere.join('\n    AND ')}
  GROUP BY e.${identifier(unit)}${having}
)`;
}

/**
 * The SQL of one snapshot query: exposures (first exposure per unit, units seen in more than one
 * variation kept apart as `__multiple__`), the fact table's rows joined to them inside each metric's
 * window (and the pre-exposure window for CUPED), one aggregate per unit and metric, caps, and
 * finally one row per variation and dimension with the sufficient statistics gbstats reads.
 */
export function buildFactTableQuery(inputs: AnalysisInputs, table: FrozenFactTable, metrics: FrozenMetric[], dialect: Dialect): string {
  const unit = inputs.assignmentQuery.identifierType;
  if (!table.userIdTypes.includes(unit)) {
    throw new InvalidInputError(
      `Fact table ${table.id} has identifier types ${table.userIdTypes.join(', ')}; the assignment query ${inputs.assignmentQuery.id} uses ${unit}`,
    );
  }
  const end = inputs.end;
  const endTs = dialect.timestamp(end);
  const ts = (alias: string) => `${alias}.${identifier('timestamp')}`;
  const longestConversion = Math.max(
    0,
    ...metrics.filter((m) => usesConversionWindow(inputs, m)).map((m) => delayMinutes(m) + m.window.windowHours * MINUTES_PER_HOUR),
  );

  // The rows of the fact table any metric may count: from the earliest pre-exposure window to the latest conversion window.
  const earliest = Math.min(0, ...metrics.map((m) => delayMinutes(m) - covariateMinutes(m)));
  const latest = Math.max(
    0,
    ...metrics.map((m) => (usesConversionWindow(inputs, m) ? delayMinutes(m) + m.window.windowHours * MINUTES_PER_HOUR : 0)),
  );
  const factStart = plusMinutes(inputs.start, earliest);
  const factEnd = plusMinutes(end, latest);
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
  const distinctSides: { name: string; names: string[] }[] = [];
  const distinctOf = new Map<string, string[]>();
  const outputColumns: string[] = [];
  const caps: string[] = [];

  metrics.forEach((metric, i) => {
    const a = `m${i}`;
    const sides: [string, MetricSide, boolean][] = [['n', metric.numerator, true]];
    if (metric.type === 'ratio' && metric.denominator) sides.push(['d', metric.denominator, false]);
    const sourceOf = new Map<string, string>();
    for (const [suffix, side] of sides) {
      const value = rowValue(metric, side, suffix === 'n');
      if (!factColumnOf.has(value)) {
        factColumnOf.set(value, `${a}_${suffix}`);
        factColumns.push(`${value} AS ${a}_${suffix}`);
      }
      sourceOf.set(suffix, factColumnOf.get(value)!);
    }

    // The metric's window after exposure.
    const exposure = 'x.first_exposure';
    const post = [`${ts('f')} >= ${dialect.addMinutes(exposure, delayMinutes(metric))}`];
    if (usesConversionWindow(inputs, metric)) {
      post.push(`${ts('f')} <= ${dialect.addMinutes(exposure, delayMinutes(metric) + metric.window.windowHours * MINUTES_PER_HOUR)}`);
    } else {
      post.push(`${ts('f')} <= ${endTs}`);
    }
    const lookback = lookbackOf(inputs, metric);
    if (lookback?.minutes !== undefined) post.push(`${ts('f')} >= ${dialect.addMinutes(endTs, -lookback.minutes)}`);
    if (lookback?.date) post.push(`${ts('f')} >= ${dialect.timestamp(lookback.date)}`);
    const pre = [
      `${ts('f')} >= ${dialect.addMinutes(exposure, delayMinutes(metric) - covariateMinutes(metric))}`,
      `${ts('f')} < ${dialect.addMinutes(exposure, delayMinutes(metric))}`,
    ];
    const windowed = (conditions: string[], column: string) => `CASE WHEN ${conditions.join(' AND ')} THEN f.${column} END`;
    for (const [suffix, side, isNumerator] of sides) {
      const column = `${a}_${suffix}`;
      const source = sourceOf.get(suffix)!;
      const windows: [string, string[]][] = [[column, post], ...(metric.regressionAdjustment.enabled ? [[`${column}_pre`, pre] as [string, string[]]] : [])];
      if (dialect.materializesCtes && countsDistinct(metric, side, isNumerator)) {
        const signature = JSON.stringify([source, windows.map(([, conditions]) => conditions)]);
        const existing = distinctOf.get(signature);
        if (existing) {
          windows.forEach(([name], w) => sameAs.set(name, existing[w]!));
        } else {
          distinctOf.set(signature, windows.map(([name]) => name));
          distinctCtes.push(distinctCountCte(column, source, windows));
          distinctSides.push({ name: column, names: windows.map(([name]) => name) });
        }
      } else {
        for (const [name, conditions] of windows) {
          const aggregate = unitAggregate(metric, side, isNumerator, windowed(conditions, source));
          const existing = unitColumnOf.get(aggregate);
          if (existing) sameAs.set(name, existing);
          else {
            unitColumnOf.set(aggregate, name);
            unitColumns.push(`${aggregate} AS ${name}`);
          }
        }
      }
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
  });

  const factSql = compileTemplate(table.sql, templateVars);
  const indent = (lines: string[], by: string) => lines.map((line) => `${by}${line}`).join(',\n');
  const preAggregated = distinctCtes.length > 0;
  // Without distinct counts, the per-unit grouping is the __units read by the caps and the output.
  const unitAggregates = preAggregated ? '__unit_aggregates' : '__units';
  const units = preAggregated
    ? `,
${distinctCtes.join(',\n')},
${cteHead(dialect, '__units', caps.length > 0)}
  SELECT
    u.*,
${indent(
  distinctSides.flatMap(({ name: side, names }) => names.map((name) => `COALESCE(${side}_distinct.${name}, 0) AS ${name}`)),
  '    ',
)}
  FROM __unit_aggregates u
${distinctSides.map(({ name }) => `  LEFT JOIN __${name}_distinct ${name}_distinct ON ${name}_distinct.unit_id = u.unit_id`).join('\n')}
)`
    : '';

  return `-- Fact table ${table.name} (${table.id}): ${metrics.map((m) => m.id).join(', ')}
WITH ${exposuresCte(inputs, dialect, templateVars, longestConversion, preAggregated)},
${cteHead(dialect, '__facts', false)}
  SELECT
    f.${identifier(unit)} AS unit_id,
    ${ts('f')} AS ${identifier('timestamp')},
${indent(factColumns, '    ')}
  FROM (
${factSql}
  ) f
  WHERE ${ts('f')} >= ${dialect.timestamp(factStart)}
    AND ${ts('f')} <= ${dialect.timestamp(factEnd)}
),
${cteHead(dialect, unitAggregates, caps.length > 0 && !preAggregated)}
  SELECT
${indent(['x.unit_id', 'x.variation', ...(inputs.dimension ? ['x.dimension'] : []), ...unitColumns], '    ')}
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation${inputs.dimension ? ', x.dimension' : ''}
)${units}${caps.length ? `,\n__caps AS (\n  SELECT\n${indent(caps, '    ')}\n  FROM __units\n)` : ''}
SELECT
  u.variation,
  ${dimensionOf(inputs, 'u')},
  COUNT(*) AS users,
${indent(outputColumns, '  ')}
FROM __units u${caps.length ? '\nCROSS JOIN __caps c' : ''}
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
    if (metric.denominator && metric.type === 'ratio' && metric.denominator.factTableId !== metric.numerator.factTableId) {
      throw new InvalidInputError(`Metric ${metric.id}: a ratio whose numerator and denominator come from different fact tables is not supported yet`);
    }
    byTable.set(metric.numerator.factTableId, [...(byTable.get(metric.numerator.factTableId) ?? []), metric]);
  }
  return [...byTable].map(([factTableId, metrics], index) => {
    const table = tables.get(factTableId);
    if (!table) throw new InvalidInputError(`Fact table ${factTableId} is missing from the snapshot's inputs`);
    return { id: `q${index}_${factTableId}`, factTableId, metricIds: metrics.map((m) => m.id), sql: buildFactTableQuery(inputs, table, metrics, dialect) };
  });
}
