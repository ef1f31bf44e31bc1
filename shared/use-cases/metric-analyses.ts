import { isDeepStrictEqual } from 'node:util';
import * as contract from '../contracts/metric-analyses';
import type { MetricAnalysisSettings, StoredMetricAnalysis } from '../contracts/metric-analyses';
import type { Experiment } from '../contracts/experiments';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { freezeMetric } from '../analysis/freeze';
import { buildMetricAnalysisQuery } from '../analysis/metric-analysis';
import { snapshotDeadline } from '../analysis/snapshot-outcome';
import { startMetricAnalysisRun } from '../analysis/start-metric-analysis-run';
import { sqlWithVirtualColumns } from '../domain/virtual-columns';
import { InvalidInputError } from '../errors';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { dataSources } from '../store/data-sources';
import { factMetrics } from '../store/fact-metrics';
import { factTables } from '../store/fact-tables';
import { metricAnalyses } from '../store/metric-analyses';
import { readableOr404 } from './read-access';

const DAY_MS = 24 * 60 * 60 * 1000;
const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** The window GrowthBook's analysis reads: from the start of the day `lookbackDays` before today to the end of today (UTC). */
function analysisWindow(lookbackDays: number, now: Date) {
  const endOfToday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS - 1);
  const start = new Date(endOfToday.getTime() + 1 - (lookbackDays + 1) * DAY_MS);
  return { startDate: start.toISOString(), endDate: endOfToday.toISOString() };
}

/**
 * `POST /fact-metrics/{id}/analysis`: start an analysis of a fact metric over every unit of its fact table, as GrowthBook's
 * metric analysis. With `useCache` (the default), an analysis of the same settings that is running or succeeded is
 * answered instead of a new one. In AWS the snapshot state machine runs it on Athena; locally DuckDB data sources run it
 * in this process and other engines record it as an error.
 */
export async function postFactMetricAnalysis({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postFactMetricAnalysis>): UseCaseOutput<typeof contract.postFactMetricAnalysis> {
  const metric = await factMetrics.get(auth.orgId, params.id);
  readableOr404(auth, metric, metric.projects, 'Fact metric', params.id);
  assertCan(auth, contract.postFactMetricAnalysis.permission, metric.projects);
  const populationType = body.populationType ?? 'factTable';
  if (populationType !== 'factTable') throw invalid('populationType', `${populationType} populations are not supported yet; use factTable`);
  const tableIds = [...new Set([metric.numerator.factTableId, ...(metric.denominator ? [metric.denominator.factTableId] : [])])];
  const [dataSource, tables] = await Promise.all([dataSources.find(auth.orgId, metric.datasource), factTables.getMany(auth.orgId, tableIds)]);
  if (!dataSource) throw new InvalidInputError(`Fact metric ${metric.id} reads data source ${metric.datasource}, which does not exist`);
  const table = tables.find((t) => t.id === metric.numerator.factTableId);
  if (!table) throw new InvalidInputError(`Fact metric ${metric.id} reads fact table ${metric.numerator.factTableId}, which does not exist`);
  const userIdType = body.userIdType ?? table.userIdTypes[0] ?? '';
  if (!table.userIdTypes.includes(userIdType)) {
    throw invalid('userIdType', `fact table ${table.id} has no identifier type ${userIdType} (it has ${table.userIdTypes.join(', ') || 'none'})`);
  }
  // The ad hoc filters are the fact table's own filters, applied on top of the metric's (an unknown id is a 400).
  const withFilters = {
    ...metric,
    numerator: { ...metric.numerator, filters: [...(metric.numerator.filters ?? []), ...(body.additionalNumeratorFilters ?? [])] },
    ...(metric.denominator
      ? { denominator: { ...metric.denominator, filters: [...(metric.denominator.filters ?? []), ...(body.additionalDenominatorFilters ?? [])] } }
      : {}),
  };
  // Frozen as for an experiment without overrides or CUPED: the analysis reads only the sides, their filters and the type.
  const frozen = freezeMetric(
    withFilters,
    { settings: { regressionAdjustmentEnabled: false } as Experiment['settings'] },
    new Map(tables.map((t) => [t.id, t])),
  );
  const lookbackDays = body.lookbackDays ?? 30;
  const settings: MetricAnalysisSettings = {
    userIdType,
    ...analysisWindow(lookbackDays, new Date()),
    lookbackDays,
    populationType,
    populationId: body.populationId ?? null,
    ...(body.additionalNumeratorFilters ? { additionalNumeratorFilters: body.additionalNumeratorFilters } : {}),
    ...(body.additionalDenominatorFilters ? { additionalDenominatorFilters: body.additionalDenominatorFilters } : {}),
  };
  const view = (analysis: StoredMetricAnalysis) => ({
    metricAnalysis: { id: analysis.id, status: analysis.status, settings: { ...analysis.settings } },
  });

  if (body.useCache ?? true) {
    // An analysis still running past a snapshot's deadline lost its run (its process died, or the workflow's fail
    // step did not get through): never served from the cache, so asking again starts a new one.
    const lost = (a: StoredMetricAnalysis) => a.status === 'running' && snapshotDeadline(new Date(a.dateCreated)) <= new Date().toISOString();
    const cached = (await metricAnalyses.allTagged(auth.orgId, [`metric:${metric.id}`]))
      .filter((a) => a.status !== 'error' && !lost(a) && a.dateUpdated >= metric.dateUpdated && isDeepStrictEqual(a.settings, settings))
      .at(-1);
    if (cached) return view(cached);
  }

  const engine = dataSource.type === 'duckdb' ? 'duckdb' : 'athena';
  // Built now, so a metric the analysis cannot compute is a 400 rather than a failed analysis.
  const sql = buildMetricAnalysisQuery({
    engine,
    metric: frozen,
    table: {
      id: table.id,
      name: table.name,
      sql: sqlWithVirtualColumns(table),
      userIdTypes: table.userIdTypes,
      ...(table.eventName ? { eventName: table.eventName } : {}),
    },
    unit: userIdType,
    start: settings.startDate,
    end: settings.endDate,
  });
  const base = {
    id: newId('metan_'),
    metric: metric.id,
    datasource: dataSource.id,
    settings,
    engine,
    sql,
    ratio: !!frozen.denominator,
    proportion: frozen.type === 'proportion',
  } as const;
  // In AWS the snapshot state machine runs every analysis (its plan refuses a data source that is not Athena's);
  // this process runs DuckDB's only.
  const runs = engine === 'duckdb' || !!process.env.SNAPSHOT_STATE_MACHINE_ARN;
  const analysis = await metricAnalyses.create(
    auth.orgId,
    runs
      ? { ...base, status: 'running' }
      : {
          ...base,
          status: 'error',
          error: `Metric analyses of ${dataSource.type} data sources run in AWS (the snapshot state machine); this server runs DuckDB data sources only`,
        },
  );
  if (runs) await startMetricAnalysisRun(auth.orgId, analysis.id, frozen.type);
  return view(analysis);
}
