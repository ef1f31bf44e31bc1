import { InvalidInputError } from '../errors';
import type { FactMetric } from '../contracts/fact-metrics';
import type { Experiment } from '../contracts/experiments';
import type { StoredFactTable } from '../domain/fact-tables';
import { rampTrackingKey, type RampScheduleRecord } from '../domain/ramp-schedule';
import type { AnalysisInputs } from './inputs';
import { freezeMetric, type DataSourceFacts } from './freeze';

/** GrowthBook's safe-rollout analysis: frequentist, sequential (tuning 5000), one-sided, absolute differences. */
const SEQUENTIAL_TUNING = 5000;
/** A monitored ramp has no experiment of its own: its metrics are analysed without experiment overrides. */
const NO_OVERRIDES = { settings: { metricOverrides: [], regressionAdjustmentEnabled: false } } as unknown as Pick<Experiment, 'settings'>;

/**
 * The analysis inputs of a monitored ramp's snapshot at `now`: the exposures of its tracking key
 * (`ramp_<id>`, variations `0` control and `1` treatment, half each) from the config's exposure query
 * since the monitoring window opened, and its guardrail and signal metrics (fact metrics of that data
 * source). 400 naming the problem when the config no longer fits the data source or its metrics.
 */
export function freezeRampInputs(args: {
  schedule: RampScheduleRecord;
  dataSource: DataSourceFacts | undefined;
  metrics: FactMetric[];
  factTables: StoredFactTable[];
  now: Date;
}): AnalysisInputs {
  const { schedule, dataSource, now } = args;
  const config = schedule.monitoringConfig;
  if (!config) throw new InvalidInputError(`Ramp schedule ${schedule.id} has no monitoringConfig`);
  if (!dataSource) throw new InvalidInputError(`monitoringConfig: data source ${config.datasourceId} does not exist`);
  const query = dataSource.assignmentQueries.find((q) => q.id === config.exposureQueryId);
  if (!query) throw new InvalidInputError(`monitoringConfig: data source ${dataSource.id} has no exposure query ${config.exposureQueryId}`);
  const ids = [...new Set([...config.guardrailMetricIds, ...(config.signalMetricIds ?? [])])];
  const known = new Map(args.metrics.map((m) => [m.id, m]));
  const missing = ids.find((id) => !known.has(id));
  if (missing) throw new InvalidInputError(`monitoringConfig: metric ${missing} is not a fact metric that exists`);
  const tables = new Map(args.factTables.map((t) => [t.id, t]));
  const metrics = ids.map((id) => {
    const metric = known.get(id)!;
    if (metric.datasource !== dataSource.id) throw new InvalidInputError(`monitoringConfig: metric ${id} reads data source ${metric.datasource}, not ${dataSource.id}`);
    if (!['proportion', 'mean', 'ratio'].includes(metric.metricType)) {
      throw new InvalidInputError(`monitoringConfig: metric ${id} is a ${metric.metricType} metric; monitoring supports proportion, mean and ratio metrics`);
    }
    return freezeMetric(metric, NO_OVERRIDES, tables);
  });
  const used = new Set(metrics.flatMap((m) => [m.numerator.factTableId, ...(m.denominator ? [m.denominator.factTableId] : [])]));
  const start = schedule.monitoringStartDate ?? schedule.currentStepEnteredAt ?? now.toISOString();
  return {
    engine: dataSource.type,
    datasourceId: dataSource.id,
    experimentId: schedule.id,
    trackingKey: rampTrackingKey(schedule.id),
    phase: 0,
    start,
    end: now.toISOString(),
    variations: [
      { variationId: '0', key: '0', name: 'Control', weight: 0.5 },
      { variationId: '1', key: '1', name: 'Treatment', weight: 0.5 },
    ],
    assignmentQuery: { id: query.id, name: query.name, sql: query.sql, identifierType: query.identifierType, dimensionColumns: query.dimensionColumns ?? [] },
    dimension: null,
    attributionModel: 'firstExposure',
    inProgressConversions: 'include',
    queryFilter: '',
    statsEngine: 'frequentist',
    sequentialTestingEnabled: true,
    sequentialTestingTuningParameter: SEQUENTIAL_TUNING,
    differenceType: 'absolute',
    oneSidedIntervals: true,
    settings: { rampScheduleId: schedule.id, monitoringConfig: config },
    metrics,
    factTables: [...used].map((id) => {
      const t = tables.get(id);
      if (!t) throw new InvalidInputError(`monitoringConfig: fact table ${id} does not exist`);
      return { id: t.id, name: t.name, sql: t.sql, userIdTypes: t.userIdTypes, ...(t.eventName ? { eventName: t.eventName } : {}) };
    }),
  };
}
