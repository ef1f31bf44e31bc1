import type { StoredSnapshot } from '../contracts/snapshots';

/*
 * The queries of a snapshot as GrowthBook's `Query` resource: one per query the snapshot runs, with
 * its SQL, where it stands, when it ran and why it failed. Pure: the store writes them, the engines
 * say what happened.
 */

export type QueryStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** A snapshot query as stored (one item per query, written when the snapshot is asked for). */
export interface StoredQuery {
  id: string;
  snapshotId: string;
  experimentId: string;
  datasource: string;
  /** The id the query has inside its snapshot's plan (`q0_<fact table>`, `q0_traffic`). */
  planId: string;
  queryType: string;
  sql: string;
  status: QueryStatus;
  startedAt?: string;
  finishedAt?: string;
  error?: string;
  /** The engine's own id of the execution (Athena's QueryExecutionId); DuckDB has none. */
  externalId?: string;
  dateCreated: string;
  dateUpdated: string;
}

/** What an engine reports of one query it ran (or did not reach). */
export interface QueryRun {
  planId: string;
  status: 'succeeded' | 'failed';
  /** When the engine started it; null when it never did (an earlier query failed), so the time the plan sent it is dropped. */
  startedAt?: string | null;
  finishedAt?: string;
  error?: string;
  externalId?: string;
}

/** The id of a snapshot's query across the organization: the snapshot's own id part and the plan's id. */
export function queryIdOf(snapshotId: string, planId: string): string {
  return `qry_${snapshotId.replace(/^snp_/, '')}_${planId}`;
}

/** GrowthBook's query type: the traffic query of a snapshot without metrics, or a fact table's metrics query. */
export function queryTypeOf(planId: string): string {
  return planId.endsWith('_traffic') ? 'experimentTraffic' : 'experimentMultiMetric';
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * A DuckDB run's report as query runs: those that ran succeeded, the one that failed carries the
 * engine's message, and those after it were never reached.
 */
export function duckDbRuns(
  planIds: string[],
  timings: Record<string, { startedAt: number; finishedAt?: number }>,
  failure?: { queryId?: string; message: string },
): QueryRun[] {
  return planIds.map((planId) => {
    const timing = timings[planId];
    const times = { ...(timing ? { startedAt: iso(timing.startedAt), finishedAt: iso(timing.finishedAt) } : {}) };
    if (failure && (failure.queryId === planId || !failure.queryId)) return { planId, status: 'failed', ...times, error: failure.message };
    if (failure && !timing) return { planId, status: 'failed', startedAt: null, error: `Not run: query ${queryIdOfFailure(failure)} failed first` };
    return { planId, status: 'succeeded', ...times };
  });
}

const queryIdOfFailure = (failure: { queryId?: string }) => failure.queryId ?? 'an earlier query';

/**
 * The query as it stands: a query still queued or running in a snapshot that has ended will never
 * report (the run timed out or was lost), so it shows as failed with the snapshot's reason.
 */
export function currentQuery(query: StoredQuery, snapshot: Pick<StoredSnapshot, 'status' | 'error'>): StoredQuery {
  if (query.status !== 'queued' && query.status !== 'running') return query;
  if (snapshot.status === 'running') return query;
  if (snapshot.status === 'success') return { ...query, status: 'succeeded' };
  return { ...query, status: 'failed', error: query.error ?? snapshot.error ?? 'The snapshot run ended before this query reported' };
}
