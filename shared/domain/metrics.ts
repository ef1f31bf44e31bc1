import type { FactMetric } from '../contracts/fact-metrics';
import type { Metric, PostMetricBody, PutMetricBody } from '../contracts/metrics';
import { InvalidInputError } from '../errors';
import type { StoredFactTable } from './fact-tables';
import { projectTags } from './project-tags';

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** The one user aggregation Switchyard computes: GrowthBook's default. */
const SUM_OF_VALUE = /^\s*sum\s*\(\s*value\s*\)\s*$/i;

/** The list-index tags of a metric: its data source and projects. */
export function metricTags(metric: Pick<Metric, 'datasourceId' | 'projects'>): string[] {
  return [`datasource:${metric.datasourceId}`, ...projectTags(metric.projects)];
}

type Behavior = NonNullable<PostMetricBody['behavior']>;

/** GrowthBook's checks of a metric body that its schema cannot state; `sql` is required on create (Switchyard serves no other query format). */
function assertValid(body: PostMetricBody | PutMetricBody, type: Metric['type'] | undefined, creating: boolean): void {
  if (body.sqlBuilder !== undefined) throw invalid('sqlBuilder', 'is not supported: define the metric with sql.conversionSQL');
  if (body.mixpanel !== undefined) throw invalid('mixpanel', 'is only for Mixpanel data sources, which Switchyard does not have');
  if (creating && !body.sql) throw invalid('sql', 'is required (sql.identifierTypes and sql.conversionSQL)');
  const b: Behavior = body.behavior ?? {};
  if ((b.riskThresholdDanger === undefined) !== (b.riskThresholdSuccess === undefined)) {
    throw invalid('behavior', 'must give both riskThresholdDanger and riskThresholdSuccess or neither');
  }
  if (b.riskThresholdDanger !== undefined && b.riskThresholdDanger < b.riskThresholdSuccess!) {
    throw invalid('behavior.riskThresholdDanger', 'must be higher than riskThresholdSuccess');
  }
  if ((b.conversionWindowStart === undefined) !== (b.conversionWindowEnd === undefined)) {
    throw invalid('behavior', 'must give both conversionWindowStart and conversionWindowEnd or neither');
  }
  if (b.conversionWindowEnd !== undefined && b.conversionWindowEnd <= b.conversionWindowStart!) {
    throw invalid('behavior.conversionWindowEnd', 'must be greater than conversionWindowStart');
  }
  if ((b.minPercentChange === undefined) !== (b.maxPercentChange === undefined)) {
    throw invalid('behavior', 'must give both minPercentChange and maxPercentChange or neither');
  }
  if (b.maxPercentChange !== undefined && b.maxPercentChange <= b.minPercentChange!) {
    throw invalid('behavior.maxPercentChange', 'must be greater than minPercentChange');
  }
  const capping = b.cappingSettings;
  if (capping && !!capping.type !== (capping.value !== undefined)) {
    throw invalid('behavior.cappingSettings', 'must give both type (not null) and value, or neither');
  }
  if ((b.capping === undefined || b.capping === null) !== (b.capValue === undefined)) {
    throw invalid('behavior', 'must give both capping (not null) and capValue, or neither');
  }
  const percentile = capping?.type === 'percentile' ? capping.value : b.capping === 'percentile' ? b.capValue : undefined;
  if (percentile !== undefined && percentile > 1) throw invalid('behavior.cappingSettings.value', 'must be between 0 and 1 for percentile capping');
  if (type === 'binomial' && body.sql?.userAggregationSQL !== undefined) throw invalid('sql.userAggregationSQL', 'is not allowed on binomial metrics');
  if (body.sql?.userAggregationSQL !== undefined && body.sql.userAggregationSQL !== '' && !SUM_OF_VALUE.test(body.sql.userAggregationSQL)) {
    throw invalid('sql.userAggregationSQL', 'only SUM(value) (the default) is supported');
  }
}

const capping = (b: Behavior, current?: Metric['behavior']['cappingSettings']): Metric['behavior']['cappingSettings'] => {
  if (b.cappingSettings) {
    const { type, value, ignoreZeros } = b.cappingSettings;
    return { type: type ?? 'none', value: value ?? 0, ...(ignoreZeros !== undefined ? { ignoreZeros } : {}) };
  }
  if (b.capping !== undefined) return { type: b.capping ?? 'none', value: b.capValue ?? 0 };
  if (b.cap) return { type: 'absolute', value: b.cap };
  return current ?? { type: 'none', value: 0 };
};

const window = (b: Behavior, current?: Metric['behavior']['windowSettings']): Metric['behavior']['windowSettings'] => {
  const w = b.windowSettings;
  if (w) {
    return {
      type: w.type,
      delayValue: w.delayValue ?? w.delayHours ?? 0,
      delayUnit: w.delayUnit ?? 'hours',
      windowValue: w.windowValue ?? 72,
      windowUnit: w.windowUnit ?? 'hours',
    };
  }
  const base = current ?? { type: 'conversion', delayValue: 0, delayUnit: 'hours', windowValue: 72, windowUnit: 'hours' };
  if (b.conversionWindowStart === undefined) return base;
  return { ...base, delayValue: b.conversionWindowStart, delayUnit: 'hours', windowValue: b.conversionWindowEnd! - b.conversionWindowStart, windowUnit: 'hours' };
};

/** The behavior after `b`, over `current` (GrowthBook's defaults on create). */
function behaviorAfter(b: Behavior, current?: Metric['behavior']): Metric['behavior'] {
  return {
    goal: b.goal ?? current?.goal ?? 'increase',
    cappingSettings: capping(b, current?.cappingSettings),
    windowSettings: window(b, current?.windowSettings),
    priorSettings: b.priorSettings ?? current?.priorSettings ?? { override: false, proper: false, mean: 0, stddev: 0.3 },
    riskThresholdSuccess: b.riskThresholdSuccess ?? current?.riskThresholdSuccess ?? 0.0025,
    riskThresholdDanger: b.riskThresholdDanger ?? current?.riskThresholdDanger ?? 0.0125,
    minPercentChange: b.minPercentChange ?? current?.minPercentChange ?? 0.005,
    maxPercentChange: b.maxPercentChange ?? current?.maxPercentChange ?? 0.5,
    minSampleSize: b.minSampleSize ?? current?.minSampleSize ?? 150,
    targetMDE: b.targetMDE ?? current?.targetMDE ?? 0.1,
  };
}

/** A new metric from the create body (400 for what GrowthBook refuses, and for what Switchyard cannot analyse). */
export function newMetric(id: string, body: PostMetricBody, owner: { owner: string; ownerEmail?: string }): Omit<Metric, 'dateCreated' | 'dateUpdated'> {
  assertValid(body, body.type, true);
  const sql = body.sql!;
  return {
    id,
    managedBy: body.managedBy ?? '',
    ...owner,
    datasourceId: body.datasourceId,
    name: body.name,
    description: body.description ?? '',
    type: body.type,
    tags: body.tags ?? [],
    projects: body.projects ?? [],
    archived: body.archived ?? false,
    behavior: behaviorAfter(body.behavior ?? {}),
    sql: {
      identifierTypes: sql.identifierTypes,
      conversionSQL: sql.conversionSQL,
      userAggregationSQL: sql.userAggregationSQL || 'SUM(value)',
      denominatorMetricId: sql.denominatorMetricId ?? '',
    },
  };
}

/** The metric with the fields of a PUT body changed (what it leaves out stays). */
export function updatedMetric(current: Metric, body: PutMetricBody): Metric {
  const type = body.type ?? current.type;
  assertValid(body, type, false);
  const sql = { ...current.sql!, ...Object.fromEntries(Object.entries(body.sql ?? {}).filter(([, v]) => v !== undefined)) };
  if (type === 'binomial' && body.type === 'binomial' && !body.sql?.userAggregationSQL) sql.userAggregationSQL = 'SUM(value)';
  return {
    ...current,
    ...(body.managedBy !== undefined ? { managedBy: body.managedBy } : {}),
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.tags !== undefined ? { tags: body.tags } : {}),
    ...(body.projects !== undefined ? { projects: body.projects } : {}),
    ...(body.archived !== undefined ? { archived: body.archived } : {}),
    type,
    behavior: behaviorAfter(body.behavior ?? {}, current.behavior),
    sql: { ...sql, userAggregationSQL: sql.userAggregationSQL || 'SUM(value)' },
  };
}

/**
 * The fact metric and fact table a legacy metric is analysed as: its conversion SQL is the table
 * (one row per event, with a `value` column unless binomial), and the metric a proportion of units
 * with a row (binomial) or the mean of the per-unit SUM(value) (count, duration, revenue), with the
 * same window, capping, prior and goal. The snapshot then runs the one SQL builder and statistics.
 */
export function factEquivalent(metric: Metric): { metric: FactMetric; factTable: StoredFactTable } {
  if (!metric.sql) throw new InvalidInputError(`Metric ${metric.id} has no SQL definition to analyse`);
  if (metric.sql.denominatorMetricId) {
    throw new InvalidInputError(`Metric ${metric.id} has a denominator metric; ratio and funnel legacy metrics are not supported in results yet`);
  }
  const b = metric.behavior;
  const factTable: StoredFactTable = {
    id: metric.id,
    name: metric.name,
    description: '',
    owner: metric.owner,
    projects: metric.projects,
    tags: [],
    datasource: metric.datasourceId,
    userIdTypes: metric.sql.identifierTypes,
    sql: metric.sql.conversionSQL,
    managedBy: '',
    dateCreated: metric.dateCreated,
    dateUpdated: metric.dateUpdated,
    filters: [],
  };
  const binomial = metric.type === 'binomial';
  return {
    factTable,
    metric: {
      id: metric.id,
      name: metric.name,
      description: metric.description,
      owner: metric.owner,
      projects: metric.projects,
      tags: metric.tags,
      datasource: metric.datasourceId,
      metricType: binomial ? 'proportion' : 'mean',
      numerator: { factTableId: metric.id, column: binomial ? '$$distinctUsers' : 'value', aggregation: 'sum' },
      inverse: b.goal === 'decrease',
      cappingSettings: b.cappingSettings ?? { type: 'none', value: 0 },
      windowSettings: b.windowSettings,
      priorSettings: b.priorSettings ?? { override: false, proper: false, mean: 0, stddev: 0.3 },
      regressionAdjustmentSettings: { override: false },
      riskThresholdSuccess: b.riskThresholdSuccess,
      riskThresholdDanger: b.riskThresholdDanger,
      minPercentChange: b.minPercentChange,
      maxPercentChange: b.maxPercentChange,
      minSampleSize: b.minSampleSize,
      targetMDE: b.targetMDE,
      managedBy: '',
      dateCreated: metric.dateCreated,
      dateUpdated: metric.dateUpdated,
    },
  };
}
