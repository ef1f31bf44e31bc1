import { InvalidInputError } from '../errors';
import type { Dimension } from '../contracts/dimensions';
import type { Experiment } from '../contracts/experiments';
import type { FactMetric } from '../contracts/fact-metrics';
import type { Segment } from '../contracts/segments';
import type { StoredFactTable } from '../domain/fact-tables';
import type { AnalysisInputs, FrozenDimension, FrozenMetric, FrozenSegment, MetricSide } from './inputs';
import { sideConditions } from './sql/filters';
import { sqlWithVirtualColumns } from '../domain/virtual-columns';
import { identifier } from './sql/dialect';

/** What freezing needs to know of a data source. */
export interface DataSourceFacts {
  id: string;
  type: 'athena' | 'duckdb';
  assignmentQueries: { id: string; name: string; sql: string; identifierType: string; dimensionColumns?: string[] }[];
  identifierJoinQueries?: { identifierTypes: string[]; sql: string }[];
}

const HOURS = { minutes: 1 / 60, hours: 1, days: 24, weeks: 168 } as const;
const DEFAULT_REGRESSION_ADJUSTMENT_DAYS = 14;
const DEFAULT_SEQUENTIAL_TUNING = 5000;
const SUPPORTED_TYPES = ['proportion', 'retention', 'mean', 'ratio', 'dailyParticipation', 'quantile'] as const;
/** Event quantiles read from pre-built sketches (`kll merge`) are not computed: they are left out of results. */
const isSupported = (metric: FactMetric) =>
  (SUPPORTED_TYPES as readonly string[]).includes(metric.metricType) && (metric.numerator.aggregation as string | undefined) !== 'kll merge';

const bad = (message: string) => new InvalidInputError(message);
const toHours = (value: number | undefined, unit: keyof typeof HOURS | undefined) => (value ?? 0) * HOURS[unit ?? 'hours'];

/** The metric ids an experiment analyses, in GrowthBook's order: goals, secondary metrics, guardrails. */
export function experimentMetricIds(experiment: Experiment): string[] {
  const { goals, secondaryMetrics, guardrails } = experiment.settings;
  return [...new Set([...goals, ...secondaryMetrics, ...guardrails].map((m) => m.metricId))];
}

/** Whether a snapshot's `dimension` names a unit dimension (GrowthBook's user dimension: the dimension's own id). */
export const isUnitDimension = (dimension: string | undefined): boolean =>
  !!dimension && !dimension.startsWith('exp:') && !dimension.startsWith('pre:');

/**
 * Parses the snapshot's `dimension`: `""` or absent is overall, `exp:<column>` and `pre:date` break results down, and
 * any other value is the id of a unit dimension (`unitDimension`, read by the caller).
 */
export function parseDimension(dimension: string | undefined, assignmentColumns: string[], unitDimension?: Dimension): FrozenDimension | null {
  if (!dimension) return null;
  if (dimension === 'pre:date') return { type: 'date', id: dimension };
  if (isUnitDimension(dimension)) {
    if (!unitDimension || unitDimension.id !== dimension) throw bad(`Request body: [dimension] ${dimension} is not a dimension that exists`);
    return { type: 'unit', id: dimension, name: unitDimension.name, identifierType: unitDimension.identifierType, sql: unitDimension.query };
  }
  if (dimension.startsWith('exp:')) {
    const column = dimension.slice(4);
    if (!assignmentColumns.includes(column)) {
      throw bad(`Request body: [dimension] ${column} is not a dimension column of the experiment's assignment query (it has: ${assignmentColumns.join(', ') || 'none'})`);
    }
    return { type: 'experiment', id: dimension, column };
  }
  throw bad(`Request body: [dimension] ${dimension} is not supported: use "exp:<dimension column>", "pre:date" or a dimension id`);
}

/** A metric's analysis settings as a snapshot freezes them, with the experiment's overrides applied. */
export function freezeMetric(metric: FactMetric, experiment: Pick<Experiment, 'settings'>, tables: Map<string, StoredFactTable>): FrozenMetric {
  const override = experiment.settings.metricOverrides?.find((o) => o.id === metric.id);
  const binomial = metric.metricType === 'proportion' || metric.metricType === 'retention';
  const side = (s: FactMetric['numerator'] | NonNullable<FactMetric['denominator']>, which: string): MetricSide => {
    const table = tables.get(s.factTableId);
    if (!table) throw bad(`Metric ${metric.id}: its ${which} fact table ${s.factTableId} does not exist`);
    return {
      factTableId: s.factTableId,
      column: which !== 'numerator' ? s.column : binomial ? '$$distinctUsers' : metric.metricType === 'dailyParticipation' ? '$$distinctDates' : s.column,
      aggregation: 'aggregation' in s && (s.aggregation === 'max' || s.aggregation === 'count distinct') ? s.aggregation : 'sum',
      where: sideConditions(table, s),
    };
  };
  const window = metric.windowSettings;
  const windowType = override?.windowType || window.type;
  const regressionEnabled =
    !!experiment.settings.regressionAdjustmentEnabled &&
    (override?.regressionAdjustmentOverride
      ? !!override.regressionAdjustmentEnabled
      : metric.regressionAdjustmentSettings.override
        ? !!metric.regressionAdjustmentSettings.enabled
        : true);
  const regressionDays = override?.regressionAdjustmentOverride
    ? (override.regressionAdjustmentDays ?? DEFAULT_REGRESSION_ADJUSTMENT_DAYS)
    : metric.regressionAdjustmentSettings.override
      ? (metric.regressionAdjustmentSettings.days ?? DEFAULT_REGRESSION_ADJUSTMENT_DAYS)
      : DEFAULT_REGRESSION_ADJUSTMENT_DAYS;
  const prior = override?.properPriorOverride
    ? { proper: !!override.properPriorEnabled, mean: override.properPriorMean ?? 0, stddev: override.properPriorStdDev ?? 0.3 }
    : metric.priorSettings.override
      ? { proper: metric.priorSettings.proper, mean: metric.priorSettings.mean, stddev: metric.priorSettings.stddev }
      : { proper: false, mean: 0, stddev: 0.3 };
  if (metric.metricType === 'ratio' && !metric.denominator) throw bad(`Metric ${metric.id} is a ratio without a denominator`);
  return {
    id: metric.id,
    name: metric.name,
    type: binomial ? 'proportion' : (metric.metricType as FrozenMetric['type']),
    inverse: metric.inverse,
    numerator: side(metric.numerator, 'numerator'),
    ...(metric.metricType === 'ratio' && metric.denominator ? { denominator: side(metric.denominator, 'denominator') } : {}),
    capping: {
      type: metric.cappingSettings.type,
      value: metric.cappingSettings.value ?? 0,
      ignoreZeros: !!metric.cappingSettings.ignoreZeros,
    },
    window: {
      type: windowType,
      delayHours: override?.delayHours ?? toHours(window.delayValue, window.delayUnit),
      windowHours: override?.windowHours ?? toHours(window.windowValue, window.windowUnit),
    },
    // GrowthBook does not adjust quantiles with CUPED.
    regressionAdjustment: { enabled: regressionEnabled && regressionDays > 0 && metric.metricType !== 'quantile', days: regressionDays },
    ...(metric.metricType === 'quantile' && metric.quantileSettings
      ? { quantile: { type: metric.quantileSettings.type, level: metric.quantileSettings.quantile, ignoreZeros: !!metric.quantileSettings.ignoreZeros } }
      : {}),
    prior,
  };
}

/** A segment as the SQL builder reads it: its own SQL, or for a fact segment the rows of its fact table that pass its filters. */
function freezeSegment(segment: Segment, dataSourceId: string, tables: Map<string, StoredFactTable>): FrozenSegment {
  if (segment.datasourceId !== dataSourceId) throw bad(`Segment ${segment.id} reads data source ${segment.datasourceId}, not the experiment's ${dataSourceId}`);
  if (segment.type !== 'FACT') {
    if (!segment.query?.trim()) throw bad(`Segment ${segment.id} is a SQL segment without SQL`);
    return { id: segment.id, name: segment.name, identifierTypes: [segment.identifierType], sql: segment.query };
  }
  const table = segment.factTableId ? tables.get(segment.factTableId) : undefined;
  if (!table) throw bad(`Segment ${segment.id}: its fact table ${segment.factTableId || '(none)'} does not exist`);
  // Its filters may name virtual columns, computed on the table's rows as for metrics.
  const where = (segment.filters ?? []).map((id) => {
    const filter = table.filters.find((f) => f.id === id);
    if (!filter) throw bad(`Segment ${segment.id}: filter ${id} of fact table ${table.id} no longer exists`);
    return `(${filter.value})`;
  });
  const sql = `SELECT ${table.userIdTypes.map((t) => `m.${identifier(t)}`).join(', ')}, m.${identifier('timestamp')} AS ${identifier('date')}
FROM (
${sqlWithVirtualColumns(table)}
) m${where.length ? `\nWHERE ${where.join(' AND ')}` : ''}`;
  return { id: segment.id, name: segment.name, identifierTypes: table.userIdTypes, sql };
}

/**
 * Everything a snapshot computes from, copied now: the phase's dates (a running phase ends `now`),
 * variations and weights, the assignment query, the supported metrics with their resolved windows,
 * caps, CUPED settings and filters, and the SQL of their fact tables. 400 when the experiment cannot
 * be analysed this way. Quantiles of pre-built sketches (`kll merge`) are left out.
 */
export function freezeInputs(args: {
  experiment: Experiment;
  dataSource: DataSourceFacts | undefined;
  phase: number;
  dimension?: string;
  metrics: FactMetric[];
  factTables: StoredFactTable[];
  /** The experiment's segment (`settings.segmentId`), and the unit dimension the snapshot's `dimension` names, when found. */
  segment?: Segment;
  unitDimension?: Dimension;
  now: Date;
}): AnalysisInputs {
  const { experiment, dataSource, now } = args;
  const settings = experiment.settings;
  if (!dataSource) throw bad(`Experiment ${experiment.id}'s datasource ${settings.datasourceId} does not exist`);
  if (settings.segmentId && args.segment?.id !== settings.segmentId) throw bad(`Experiment ${experiment.id}'s segment ${settings.segmentId} does not exist`);
  const assignmentQuery = settings.assignmentQueryId
    ? dataSource.assignmentQueries.find((q) => q.id === settings.assignmentQueryId)
    : dataSource.assignmentQueries[0];
  if (!assignmentQuery) {
    throw bad(`Experiment ${experiment.id}: data source ${dataSource.id} has no assignment query ${settings.assignmentQueryId || '(any)'}`);
  }
  const phase = experiment.phases[args.phase];
  if (!phase) throw bad(`Request body: [phase] the experiment has phases 0 to ${experiment.phases.length - 1}`);
  const start = new Date(phase.dateStarted);
  const end = phase.dateEnded ? new Date(phase.dateEnded) : now;
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) throw bad(`Phase ${args.phase} has no valid start or end date`);

  const known = new Map(args.metrics.map((m) => [m.id, m]));
  const ids = experimentMetricIds(experiment);
  const missing = ids.find((id) => !known.has(id));
  if (missing) throw bad(`Metric ${missing} of experiment ${experiment.id} is not a fact metric that exists`);
  const tables = new Map(args.factTables.map((t) => [t.id, t]));
  const metrics = ids
    .map((id) => known.get(id)!)
    .filter(isSupported)
    .map((m) => {
      if (m.datasource !== dataSource.id) throw bad(`Metric ${m.id} reads data source ${m.datasource}, not the experiment's ${dataSource.id}`);
      return freezeMetric(m, experiment, tables);
    });
  const activationId = settings.activationMetric?.metricId;
  let activationMetric: FrozenMetric | undefined;
  if (activationId) {
    const metric = known.get(activationId);
    if (!metric) throw bad(`Activation metric ${activationId} of experiment ${experiment.id} is not a fact metric that exists`);
    if (metric.datasource !== dataSource.id) throw bad(`Metric ${metric.id} reads data source ${metric.datasource}, not the experiment's ${dataSource.id}`);
    // Only its rows and window count: when a unit activates, not how much.
    activationMetric = { ...freezeMetric(metric, experiment, tables), regressionAdjustment: { enabled: false, days: 0 } };
  }
  const usedTables = new Set([
    ...metrics.flatMap((m) => [m.numerator.factTableId, ...(m.denominator ? [m.denominator.factTableId] : [])]),
    ...(activationMetric ? [activationMetric.numerator.factTableId] : []),
  ]);

  const split = new Map(phase.trafficSplit.map((s) => [s.variationId, s.weight]));
  const equal = 1 / experiment.variations.length;
  const lookback = settings.lookbackOverride;
  return {
    engine: dataSource.type,
    datasourceId: dataSource.id,
    experimentId: experiment.id,
    trackingKey: experiment.trackingKey,
    phase: args.phase,
    start: start.toISOString(),
    end: end.toISOString(),
    variations: experiment.variations.map((v) => ({ variationId: v.variationId, key: v.key, name: v.name, weight: split.get(v.variationId) ?? equal })),
    assignmentQuery: {
      id: assignmentQuery.id,
      name: assignmentQuery.name,
      sql: assignmentQuery.sql,
      identifierType: assignmentQuery.identifierType,
      dimensionColumns: assignmentQuery.dimensionColumns ?? [],
    },
    dimension: parseDimension(args.dimension, assignmentQuery.dimensionColumns ?? [], args.unitDimension),
    attributionModel: settings.attributionModel,
    ...(settings.attributionModel === 'lookbackOverride' && lookback
      ? {
          lookbackOverride:
            lookback.type === 'window'
              ? { hours: toHours(Number(lookback.value), lookback.valueUnit ?? 'days') }
              : { date: new Date(lookback.value).toISOString() },
        }
      : {}),
    inProgressConversions: settings.inProgressConversions,
    queryFilter: settings.queryFilter,
    statsEngine: settings.statsEngine,
    sequentialTestingEnabled: !!settings.sequentialTestingEnabled,
    sequentialTestingTuningParameter: settings.sequentialTestingTuningParameter ?? DEFAULT_SEQUENTIAL_TUNING,
    settings: settings as unknown as Record<string, unknown>,
    metrics,
    factTables: [...usedTables].map((id) => {
      const t = tables.get(id)!;
      // Virtual columns become columns of the table's rows, so metrics and filters use them as any other.
      return { id: t.id, name: t.name, sql: sqlWithVirtualColumns(t), userIdTypes: t.userIdTypes, ...(t.eventName ? { eventName: t.eventName } : {}) };
    }),
    ...(activationMetric ? { activationMetric } : {}),
    ...(args.segment && settings.segmentId ? { segment: freezeSegment(args.segment, dataSource.id, tables) } : {}),
    ...(dataSource.identifierJoinQueries?.length ? { identityJoins: dataSource.identifierJoinQueries.map((j) => ({ identifierTypes: j.identifierTypes, sql: j.sql })) } : {}),
  };
}
