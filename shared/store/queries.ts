import { repository, type TransactionOp } from '../db/repository';
import { NotFoundError } from '../errors';
import { queryIdOf, queryTypeOf, type QueryRun, type StoredQuery } from '../domain/queries';

/** The queries of snapshots (GrowthBook's `Query`), one item each. */
export const queries = repository<StoredQuery>({ type: 'QUERY', label: 'Query' });

/** The creates of a new snapshot's queries, queued, for the transaction that creates the snapshot. */
export function prepareQueryCreates(
  orgId: string,
  snapshot: { id: string; experiment: string; dateCreated: string },
  datasource: string,
  planned: { id: string; sql: string }[],
): TransactionOp[] {
  return planned.map((query) =>
    queries.prepareCreate(
      orgId,
      {
        id: queryIdOf(snapshot.id, query.id),
        snapshotId: snapshot.id,
        experimentId: snapshot.experiment,
        datasource,
        planId: query.id,
        queryType: queryTypeOf(query.id),
        sql: query.sql,
        status: 'queued',
      },
      snapshot.dateCreated,
    ),
  );
}

/** Applies `change` to each stored query of the snapshot named in `planIds` (a query never stored is skipped: it predates this record). */
async function changeQueries(orgId: string, snapshotId: string, planIds: string[], change: (query: StoredQuery) => StoredQuery): Promise<void> {
  await Promise.all(
    planIds.map((planId) => queries.update(orgId, queryIdOf(snapshotId, planId), change).catch((error) => {
      if (!(error instanceof NotFoundError)) throw error;
    })),
  );
}

/** Marks the queries a run is about to send to its engine as running, with the SQL it sends. */
export async function markQueriesRunning(orgId: string, snapshotId: string, planned: { id: string; sql: string }[], now = new Date()): Promise<void> {
  const sql = new Map(planned.map((q) => [q.id, q.sql]));
  await changeQueries(orgId, snapshotId, [...sql.keys()], (query) => ({ ...query, status: 'running', startedAt: now.toISOString(), sql: sql.get(query.planId)! }));
}

/** Records what the engine reported of each query: status, timing, error and its execution id. */
export async function recordQueryRuns(orgId: string, snapshotId: string, runs: QueryRun[]): Promise<void> {
  const byPlan = new Map(runs.map((run) => [run.planId, run]));
  await changeQueries(orgId, snapshotId, [...byPlan.keys()], (query) => {
    const { planId: _plan, startedAt, ...run } = byPlan.get(query.planId)!;
    const { startedAt: planned, ...rest } = query;
    const started = startedAt === null ? {} : { startedAt: startedAt ?? planned };
    return { ...rest, ...started, ...Object.fromEntries(Object.entries(run).filter(([, value]) => value !== undefined)) } as StoredQuery;
  });
}
