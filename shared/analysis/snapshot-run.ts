import { InvalidInputError } from '../errors';
import { logger } from '../logger';
import { prepareLatestPointer, writeSnapshotResults } from '../store/snapshot-results';
import { snapshots } from '../store/snapshots';
import { markQueriesRunning, recordQueryRuns } from '../store/queries';
import { duckDbRuns } from '../domain/queries';
import { analyseSnapshotRows } from './results';
import { failSnapshot, finish, snapshotTimeoutMs } from './snapshot-outcome';

export { failSnapshot, snapshotTimeoutMs };
import { buildSnapshotQueries } from './sql/snapshot-queries';

async function frozenInputs(orgId: string, snapshotId: string) {
  const snapshot = await snapshots.get(orgId, snapshotId);
  if (!snapshot.inputs) throw new InvalidInputError(`Snapshot ${snapshotId} has no frozen analysis inputs`);
  return { snapshot, inputs: snapshot.inputs };
}

/** The SQL a snapshot runs: one query per fact table, built from its frozen inputs; its queries are marked running. */
export async function planSnapshot(orgId: string, snapshotId: string): Promise<{ queries: { id: string; sql: string }[] }> {
  const { inputs } = await frozenInputs(orgId, snapshotId);
  const queries = buildSnapshotQueries(inputs).map(({ id, sql }) => ({ id, sql }));
  await markQueriesRunning(orgId, snapshotId, queries);
  return { queries };
}

/**
 * Analyses a snapshot from its queries' rows: runs the statistics, stores the results (one item per
 * metric, with its aggregates), then in one transaction marks the snapshot `success`, points the
 * experiment's results at it (unless a newer snapshot already holds the pointer) and writes the
 * `experiment.snapshot.completed` event. Results are never visible before that transaction.
 */
export async function analyseSnapshot(orgId: string, snapshotId: string, rowsByQuery: Record<string, Record<string, unknown>[]>): Promise<void> {
  const { snapshot, inputs } = await frozenInputs(orgId, snapshotId);
  if (snapshot.status !== 'running') return;
  const queries = buildSnapshotQueries(inputs);
  const { summary, metrics } = analyseSnapshotRows(snapshotId, inputs, queries, rowsByQuery, new Date());
  await writeSnapshotResults(orgId, summary, metrics);
  // A report's snapshot is read through its report, never as the experiment's results.
  await finish(orgId, snapshotId, { status: 'success', queryIds: summary.queryIds, health: { traffic: summary.traffic! } }, (current) =>
    current.report
      ? []
      : [
          prepareLatestPointer(orgId, {
            experimentId: current.experiment,
            phase: current.phase,
            dimension: current.dimension ?? '',
            snapshotId,
            createdOrder: `${current.dateCreated}#${current.id}`,
          }),
        ],
  );
}

/** A user-facing message for a failed run: which query failed and the engine's own words. */
function failureMessage(error: unknown, factTables: Map<string, string>): string {
  const { message, queryId } = error as { message?: string; queryId?: string };
  if (queryId) {
    const table = [...factTables].find(([id]) => queryId.endsWith(`_${id}`));
    return `Query ${queryId}${table ? ` (fact table ${table[1]})` : ''} failed: ${message}`;
  }
  return message ?? String(error);
}

/** Runs a snapshot in this process on DuckDB: plan, run every query, analyse; `signal` stops it. */
async function runLocally(orgId: string, snapshotId: string, signal: AbortSignal): Promise<void> {
  const { inputs } = await frozenInputs(orgId, snapshotId);
  if (inputs.engine !== 'duckdb') {
    throw new Error('Athena data sources run in AWS: this deployment has no snapshot state machine (SNAPSHOT_STATE_MACHINE_ARN)');
  }
  const { queries } = await planSnapshot(orgId, snapshotId);
  // Loaded on use: the engine is for local runs only and must stay out of Lambda bundles' start-up path.
  const { runDuckDbQueries, QueryFailedError } = await import('./engines/duckdb');
  const planIds = queries.map((q) => q.id);
  const run = await runDuckDbQueries(queries, { signal }).catch(async (error: unknown) => {
    // What each query did is kept even though the snapshot fails; the snapshot's own outcome comes first if this write fails.
    if (error instanceof QueryFailedError) {
      await recordQueryRuns(orgId, snapshotId, duckDbRuns(planIds, error.timings, error)).catch((cause) =>
        logger.error('Query outcomes could not be recorded', { orgId, snapshotId, error: cause }),
      );
    }
    throw error;
  });
  signal.throwIfAborted();
  await recordQueryRuns(orgId, snapshotId, duckDbRuns(planIds, run.timings));
  await analyseSnapshot(orgId, snapshotId, run.rowsByQuery);
}

/**
 * Runs a snapshot in this process (queries on DuckDB) without waiting for it. It always ends
 * `success` or `error`: failures and the timeout are recorded with `failSnapshot`, never dropped.
 */
export function runSnapshotLocally(orgId: string, snapshotId: string): void {
  const timeoutMs = snapshotTimeoutMs();
  const controller = new AbortController();
  const timedOut = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => {
      const error = new Error(`The snapshot did not finish within ${timeoutMs / 1000} s (SNAPSHOT_TIMEOUT_MS) and was stopped`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });
  timedOut.catch(() => undefined);
  const run = async () => {
    let factTables = new Map<string, string>();
    try {
      const { inputs } = await frozenInputs(orgId, snapshotId);
      factTables = new Map(inputs.factTables.map((t) => [t.id, t.name]));
      await Promise.race([runLocally(orgId, snapshotId, controller.signal), timedOut]);
    } catch (error) {
      await failSnapshot(orgId, snapshotId, failureMessage(error, factTables));
    } finally {
      controller.abort();
    }
  };
  trackLocalRun(run().catch((error) => logger.error('Snapshot run could not record its outcome', { orgId, snapshotId, error })));
}

/** Counts a run going on in this process (a snapshot's, a metric analysis's) until it ends, for `localRunsSettled`. */
export function trackLocalRun(running: Promise<void>): void {
  inFlight.add(running);
  void running.finally(() => inFlight.delete(running));
}

/** Local runs still going in this process. */
const inFlight = new Set<Promise<void>>();

/** Resolves once every local run started in this process has ended: a server that stops waits for them. */
export async function localRunsSettled(): Promise<void> {
  await Promise.allSettled([...inFlight]);
}
