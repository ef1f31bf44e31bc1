/**
 * What differs between the SQL engines: date arithmetic, timestamp literals and percentiles. Everything
 * else the builder writes is plain SQL both DuckDB and Athena (Trino) accept.
 */
export interface Dialect {
  name: 'duckdb' | 'athena';
  /**
   * Whether a CTE can be computed once for all its references (DuckDB's `AS MATERIALIZED`). Athena (Trino)
   * runs a CTE again for each reference, scanning its tables again: there, bytes scanned are the bill.
   */
  materializesCtes: boolean;
  /** A timestamp literal for an ISO date. */
  timestamp(iso: string): string;
  /** `column` moved by a number of minutes (negative goes back). */
  addMinutes(column: string, minutes: number): string;
  /** The `p` percentile (0–1) of `column` as an aggregate; `where` restricts the rows it looks at. */
  percentile(column: string, p: number, where?: string): string;
  /** Whole days from `start` to `end` (complete 24-hour periods, as Trino's `date_diff('day', …)` counts them). */
  dayDiff(start: string, end: string): string;
  /** The current time as a timestamp comparable with the data's (UTC). */
  now: string;
}

const minutesOf = (minutes: number) => Math.round(minutes);

export const duckdbDialect: Dialect = {
  name: 'duckdb',
  materializesCtes: true,
  timestamp: (iso) => `TIMESTAMP '${new Date(iso).toISOString().slice(0, 23).replace('T', ' ')}'`,
  addMinutes: (column, minutes) =>
    minutesOf(minutes) === 0 ? column : `(${column} + INTERVAL '${minutesOf(minutes)} minutes')`,
  percentile: (column, p, where) => `quantile_cont(${column}, ${p})${where ? ` FILTER (WHERE ${where})` : ''}`,
  // date_sub counts complete periods; DuckDB's date_diff would count calendar-day boundaries instead.
  dayDiff: (start, end) => `date_sub('day', ${start}, ${end})`,
  now: `CAST(timezone('UTC', current_timestamp) AS TIMESTAMP)`,
};

export const athenaDialect: Dialect = {
  name: 'athena',
  materializesCtes: false,
  // Athena compares a timestamp column with a zoned timestamp correctly; GrowthBook's Athena queries do the same.
  timestamp: (iso) => `from_iso8601_timestamp('${new Date(iso).toISOString()}')`,
  addMinutes: (column, minutes) => (minutesOf(minutes) === 0 ? column : `date_add('minute', ${minutesOf(minutes)}, ${column})`),
  percentile: (column, p, where) => `approx_percentile(${where ? `CASE WHEN ${where} THEN ${column} END` : column}, ${p})`,
  dayDiff: (start, end) => `date_diff('day', ${start}, ${end})`,
  now: 'current_timestamp',
};

/** The dialect of an engine. */
export const dialectFor = (engine: 'duckdb' | 'athena'): Dialect => (engine === 'duckdb' ? duckdbDialect : athenaDialect);

/** A SQL string literal. */
export const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** A quoted identifier (column name). */
export const identifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
