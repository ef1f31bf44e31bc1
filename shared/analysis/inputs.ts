/**
 * The analysis inputs a snapshot freezes when it is asked for: everything the SQL builder and the
 * statistics need, copied from the experiment, its metrics, their fact tables and the data source,
 * so later edits to any of them do not change what a running (or re-analysed) snapshot computes.
 */

/** One side (numerator or denominator) of a metric, with its filters already turned into SQL conditions. */
export interface MetricSide {
  factTableId: string;
  /** A column of the fact table, or `$$distinctUsers`, `$$count`, `$$distinctDates`. */
  column: string;
  aggregation: 'sum' | 'max' | 'count distinct';
  /** SQL conditions on the fact table's rows (fact-table filters, inline and row filters), ANDed. */
  where: string[];
}

export interface FrozenMetric {
  id: string;
  name: string;
  /** GrowthBook computes a retention metric as a proportion (its delay is the retention window), so it is frozen as one. */
  type: 'proportion' | 'mean' | 'ratio' | 'dailyParticipation' | 'quantile';
  /**
   * A quantile metric's quantile (0–1) of its per-unit values (`unit`) or of all its events (`event`); values of 0 are
   * left out with `ignoreZeros`.
   */
  quantile?: { type: 'unit' | 'event'; level: number; ignoreZeros: boolean };
  inverse: boolean;
  numerator: MetricSide;
  denominator?: MetricSide;
  capping: { type: 'none' | 'absolute' | 'percentile'; value: number; ignoreZeros: boolean };
  /** Hours are resolved from the metric's `windowSettings` and the experiment's overrides. */
  window: { type: 'none' | 'conversion' | 'lookback'; delayHours: number; windowHours: number };
  /** CUPED: whether a pre-exposure covariate is used, and over how many days before exposure. */
  regressionAdjustment: { enabled: boolean; days: number };
  prior: { proper: boolean; mean: number; stddev: number };
}

export interface FrozenFactTable {
  id: string;
  name: string;
  sql: string;
  userIdTypes: string[];
  eventName?: string;
}

export interface FrozenAssignmentQuery {
  id: string;
  name: string;
  sql: string;
  /** The unit column, e.g. `user_id`; the fact tables must have it too. */
  identifierType: string;
  dimensionColumns: string[];
}

/** A unit dimension (GrowthBook's user dimension): SQL returning `<identifierType>` and `value`, one value per unit. */
export interface FrozenUnitDimension {
  type: 'unit';
  id: string;
  name: string;
  identifierType: string;
  sql: string;
}

export type FrozenDimension = { type: 'experiment'; id: string; column: string } | { type: 'date'; id: string } | FrozenUnitDimension;

/**
 * A segment: SQL returning `date` and a column per identifier type in `identifierTypes` (one for a SQL segment, the
 * fact table's for a fact segment); a unit counts once it is in the segment at an exposure.
 */
export interface FrozenSegment {
  id: string;
  name: string;
  identifierTypes: string[];
  sql: string;
}

/** An identity join query of the data source: SQL returning one column per identifier type it maps between. */
export interface FrozenIdentityJoin {
  identifierTypes: string[];
  sql: string;
}

export interface AnalysisInputs {
  engine: 'duckdb' | 'athena';
  datasourceId: string;
  experimentId: string;
  trackingKey: string;
  phase: number;
  /** ISO dates: the phase's start, and its end (or the time the snapshot was asked for, while it runs). */
  start: string;
  end: string;
  variations: { variationId: string; key: string; name: string; weight: number }[];
  assignmentQuery: FrozenAssignmentQuery;
  dimension: FrozenDimension | null;
  attributionModel: 'firstExposure' | 'experimentDuration' | 'lookbackOverride';
  /** With `lookbackOverride`: the window every metric uses, in hours back from the end, or a date. */
  lookbackOverride?: { hours?: number; date?: string };
  inProgressConversions: 'include' | 'exclude';
  queryFilter: string;
  statsEngine: 'bayesian' | 'frequentist';
  sequentialTestingEnabled: boolean;
  sequentialTestingTuningParameter: number;
  /** gbstats' `difference_type` (default relative) and `one_sided_intervals` (default false): monitored ramps use absolute, one-sided. */
  differenceType?: 'relative' | 'absolute';
  oneSidedIntervals?: boolean;
  /** The experiment's analysis settings as they were, shown back in the results. */
  settings: Record<string, unknown>;
  metrics: FrozenMetric[];
  factTables: FrozenFactTable[];
  /** Only units with a row of this metric's numerator inside its window count, and their metrics start from that row. */
  activationMetric?: FrozenMetric;
  segment?: FrozenSegment;
  /** How fact tables, segments and dimensions keyed by another identifier type reach the assignment query's units. */
  identityJoins?: FrozenIdentityJoin[];
}
