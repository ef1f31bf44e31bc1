import { InvalidInputError } from '../errors';
import type { FactMetric, FactMetricInput, FactMetricUpdate, MetricType } from '../contracts/fact-metrics';
import { factTableTags } from './fact-tables';
import { projectTags } from './project-tags';

/** What checking a reference to a fact table needs to know about it. */
export interface FactTableFacts {
  datasource: string;
  filters: { id: string }[];
}
/** Finds a fact table by id among those the caller knows (stored, or about to be stored). */
export type FactTableLookup = (id: string) => FactTableFacts | undefined;

/** The fields of a fact metric that the metric's definition decides (no id, owner or dates). */
export type FactMetricDraft = Omit<FactMetric, 'id' | 'owner' | 'ownerEmail' | 'dateCreated' | 'dateUpdated'>;

type Side = FactMetricInput['numerator'] | NonNullable<FactMetricInput['denominator']>;

const bad = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** Metric types whose numerator column is fixed: `$$distinctUsers`, or `$$distinctDates` for dailyParticipation. */
const countsUsers: MetricType[] = ['proportion', 'retention', 'dailyParticipation'];
const specialColumns = ['$$distinctUsers', '$$count', '$$distinctDates'];
const operatorsWithoutValues = ['is_null', 'not_null', 'is_true', 'is_false'];
const operatorsWithoutColumn = ['sql_expr', 'saved_filter'];
const aggregateFilterPattern = /^(=|!=|>=|<=|>|<)\s*-?\d+(\.\d+)?$/;

/** GrowthBook's defaults for the fields a new fact metric may leave out. */
const defaults = () => ({
  description: '',
  projects: [] as string[],
  tags: [] as string[],
  inverse: false,
  cappingSettings: { type: 'none' as const, value: 0 },
  priorSettings: { override: false, proper: false, mean: 0, stddev: 0.3 },
  regressionAdjustmentSettings: { override: false },
  riskThresholdSuccess: 0.0025,
  riskThresholdDanger: 0.0125,
  minPercentChange: 0.005,
  maxPercentChange: 0.5,
  minSampleSize: 150,
  targetMDE: 0.1,
  managedBy: '' as const,
  archived: false,
  metricAutoSlices: [] as string[],
});

/** Filter ids a numerator or denominator uses: its `filters` and its `saved_filter` row filters. */
export function filterIdsUsed(side: Pick<Side, 'filters' | 'rowFilters'>): string[] {
  const saved = (side.rowFilters ?? []).filter((row) => row.operator === 'saved_filter').flatMap((row) => row.values ?? []);
  return [...new Set([...(side.filters ?? []), ...saved])];
}

/** The list-index tags of a fact metric: datasource, projects, numerator table, and every table and filter it uses. */
export function factMetricTags(metric: Pick<FactMetric, 'datasource' | 'projects' | 'numerator' | 'denominator'>): string[] {
  const sides = metric.denominator ? [metric.numerator, metric.denominator] : [metric.numerator];
  return [
    `datasource:${metric.datasource}`,
    ...projectTags(metric.projects),
    // GrowthBook's `factTableId` list filter looks at the numerator only.
    `factTable:${metric.numerator.factTableId}`,
    ...new Set(sides.flatMap((side) => factTableTags(side.factTableId, filterIdsUsed(side)))),
  ];
}

function checkColumn(column: string, path: string, input: FactMetricInput): string {
  if (!column) throw bad(path, `is required for a ${input.metricType} metric`);
  if (!column.startsWith('$$')) return column;
  if (!specialColumns.includes(column)) throw bad(path, `${column} is not a special column; use $$distinctUsers, $$count or $$distinctDates`);
  const datesAllowed =
    input.metricType === 'mean' || input.metricType === 'ratio' || (input.metricType === 'quantile' && input.quantileSettings?.type === 'unit');
  if (column === '$$distinctDates' && !datesAllowed) throw bad(path, '$$distinctDates is only for mean, ratio and unit quantile metrics');
  return column;
}

/** Checks one side's references (table, filters, row filters) and returns its table. */
function checkSide(side: Side, path: string, lookup: FactTableLookup): FactTableFacts {
  const table = lookup(side.factTableId);
  if (!table) throw bad(`${path}.factTableId`, `no fact table ${side.factTableId}`);
  const known = new Set(table.filters.map((filter) => filter.id));
  const notAFilter = (id: string) => `${id} is not a filter of fact table ${side.factTableId}`;
  (side.filters ?? []).forEach((id, i) => {
    if (!known.has(id)) throw bad(`${path}.filters.${i}`, notAFilter(id));
  });
  (side.rowFilters ?? []).forEach((row, i) => {
    const at = `${path}.rowFilters.${i}`;
    if (!operatorsWithoutColumn.includes(row.operator) && !row.column) throw bad(`${at}.column`, `is required for operator ${row.operator}`);
    if (!operatorsWithoutValues.includes(row.operator) && !row.values?.length) throw bad(`${at}.values`, `is required for operator ${row.operator}`);
    if (row.operator === 'saved_filter') {
      (row.values ?? []).forEach((id, j) => {
        if (!known.has(id)) throw bad(`${at}.values.${j}`, notAFilter(id));
      });
    }
  });
  return table;
}

function numeratorOf(input: FactMetricInput, at: string): FactMetric['numerator'] {
  const { numerator, metricType } = input;
  const path = `${at}numerator`;
  // As GrowthBook: these types force their numerator column (and drop its aggregation), whatever
  // was given; the others default to `$$distinctUsers`.
  const fixed = countsUsers.includes(metricType);
  const column = fixed
    ? metricType === 'dailyParticipation'
      ? '$$distinctDates'
      : '$$distinctUsers'
    : checkColumn(numerator.column || '$$distinctUsers', `${path}.column`, input);
  const { aggregateFilterColumn, aggregateFilter } = numerator;
  if (aggregateFilterColumn !== undefined || aggregateFilter !== undefined) {
    if (metricType !== 'proportion' && metricType !== 'retention') {
      throw bad(`${path}.aggregateFilterColumn`, 'is only for proportion and retention metrics');
    }
    if (!aggregateFilterColumn) throw bad(`${path}.aggregateFilterColumn`, 'is required with aggregateFilter');
    if (!aggregateFilter) throw bad(`${path}.aggregateFilter`, 'is required with aggregateFilterColumn');
    if (!aggregateFilterPattern.test(aggregateFilter)) throw bad(`${path}.aggregateFilter`, "must be a comparison such as '>= 1' or '= 10'");
  }
  const { aggregation, ...rest } = numerator;
  return { filters: [], inlineFilters: {}, rowFilters: [], ...rest, ...(fixed || aggregation === undefined ? {} : { aggregation }), column };
}

function windowSettingsOf(input: FactMetricInput): FactMetric['windowSettings'] {
  const { delayHours, ...window } = input.windowSettings ?? { type: 'none' as const };
  // The deprecated delayHours counts only when delayValue is absent.
  const delay = window.delayValue === undefined && delayHours !== undefined ? { delayValue: delayHours, delayUnit: 'hours' as const } : {};
  return { delayValue: 0, delayUnit: 'hours', windowValue: 72, windowUnit: 'hours', ...window, ...delay };
}

/**
 * The fact metric `input` describes, with GrowthBook's defaults filled in, after checking every
 * rule: references to fact tables and their filters, which fields each metric type takes, and
 * the numeric bounds. Raises 400 naming the field under `at` (e.g. `factMetrics.3.data.`).
 */
export function buildFactMetric(input: FactMetricInput, lookup: FactTableLookup, at = ''): FactMetricDraft {
  const { metricType, denominator, quantileSettings } = input;
  if (denominator && metricType !== 'ratio') throw bad(`${at}denominator`, 'is only for ratio metrics');
  if (!denominator && metricType === 'ratio') throw bad(`${at}denominator`, 'is required for a ratio metric');
  if (quantileSettings && metricType !== 'quantile') throw bad(`${at}quantileSettings`, 'is only for quantile metrics');
  if (!quantileSettings && metricType === 'quantile') throw bad(`${at}quantileSettings`, 'is required for a quantile metric');

  const numerator = numeratorOf(input, at);
  const numeratorTable = checkSide(numerator, `${at}numerator`, lookup);
  if (quantileSettings?.quantileEventCountColumn && !(quantileSettings.type === 'event' && numerator.aggregation === 'kll merge')) {
    throw bad(`${at}quantileSettings.quantileEventCountColumn`, "is only for event quantile metrics whose numerator aggregation is 'kll merge'");
  }

  let denominatorOut: FactMetric['denominator'];
  if (denominator) {
    const path = `${at}denominator`;
    const table = checkSide(denominator, path, lookup);
    if (table.datasource !== numeratorTable.datasource) {
      throw bad(`${path}.factTableId`, `is in datasource ${table.datasource}, the numerator's fact table in ${numeratorTable.datasource}`);
    }
    // The reference shape of a stored denominator carries no aggregation.
    const { aggregation: _aggregation, ...side } = denominator;
    denominatorOut = { filters: [], inlineFilters: {}, rowFilters: [], ...side, column: checkColumn(side.column, `${path}.column`, input) };
  }

  const capping = input.cappingSettings;
  if (capping?.type === 'percentile' && (capping.value ?? 0) > 1) throw bad(`${at}cappingSettings.value`, 'a percentile is between 0 and 1');

  const base = defaults();
  const riskSuccess = input.riskThresholdSuccess ?? base.riskThresholdSuccess;
  const riskDanger = input.riskThresholdDanger ?? base.riskThresholdDanger;
  if (riskSuccess > riskDanger) throw bad(`${at}riskThresholdSuccess`, `must not exceed riskThresholdDanger (${riskDanger})`);

  const { owner: _owner, windowSettings: _window, cappingSettings: _capping, ...fields } = input;
  const displayAsPercentage = input.displayAsPercentage ?? (metricType === 'dailyParticipation' ? true : metricType === 'ratio' ? false : undefined);
  return {
    ...base,
    ...fields,
    datasource: numeratorTable.datasource,
    numerator,
    ...(denominatorOut ? { denominator: denominatorOut } : {}),
    cappingSettings: capping ? { value: 0, ...capping } : base.cappingSettings,
    windowSettings: windowSettingsOf(input),
    ...(displayAsPercentage === undefined ? {} : { displayAsPercentage }),
  };
}

/**
 * What a stored metric already proves about the fact tables it uses: their datasource and the
 * filters it uses. Enough to re-check sides an update keeps, since a table's datasource never
 * changes and a table or filter in use cannot be deleted.
 */
export function storedTablesLookup(current: FactMetric): FactTableLookup {
  const sides = current.denominator ? [current.numerator, current.denominator] : [current.numerator];
  return (id) => {
    const using = sides.filter((side) => side.factTableId === id);
    if (using.length === 0) return undefined;
    return { datasource: current.datasource, filters: [...new Set(using.flatMap(filterIdsUsed))].map((filterId) => ({ id: filterId })) };
  };
}

/**
 * The input that describes `current` with `change` applied: absent fields keep their value.
 * Changing the metric type drops the fields the old type needed and the new one refuses
 * (denominator, quantileSettings, a users-only numerator column); sending them anyway is a 400.
 */
export function factMetricInputAfter(current: FactMetric, change: FactMetricUpdate): FactMetricInput {
  const { id: _id, owner: _owner, ownerEmail: _email, dateCreated: _created, dateUpdated: _updated, datasource: _ds, ...kept } = current;
  const { owner: _newOwner, ...fields } = change;
  const base: FactMetricInput = { ...kept };
  const metricType = change.metricType ?? current.metricType;
  if (metricType !== current.metricType) {
    if (metricType !== 'ratio') delete base.denominator;
    if (metricType !== 'quantile') delete base.quantileSettings;
    if (countsUsers.includes(metricType)) base.numerator = { ...base.numerator, column: '' };
    if (current.metricType === 'dailyParticipation' || current.metricType === 'ratio') delete base.displayAsPercentage;
  }
  return { ...base, ...fields };
}

/** `current` redefined by `draft`: its id, owner and dates stay, every other field comes from the draft. */
export function redefined(current: FactMetric, draft: FactMetricDraft): FactMetric {
  const { id, owner, ownerEmail, dateCreated, dateUpdated } = current;
  return { id, owner, ...(ownerEmail === undefined ? {} : { ownerEmail }), dateCreated, dateUpdated, ...draft };
}
