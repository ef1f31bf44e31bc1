import { runOfExecution } from '../../shared/analysis/aws/query-runs';
import { currentQuery, duckDbRuns, queryIdOf, type StoredQuery } from '../../shared/domain/queries';

describe('runOfExecution', () => {
  it("reads a succeeded Athena execution: its id, submission and completion times, no error", () => {
    const run = runOfExecution('q0_orders', {
      QueryExecutionId: 'exec-1',
      Status: { State: 'SUCCEEDED', SubmissionDateTime: new Date('2026-01-01T00:00:00Z'), CompletionDateTime: new Date('2026-01-01T00:00:02Z') },
    });

    expect(run).toEqual({ planId: 'q0_orders', status: 'succeeded', externalId: 'exec-1', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:02.000Z' });
  });

  it("prefers Athena's error message to the state change reason, and names a cancelled query's state", () => {
    const failed = runOfExecution('q0', { Status: { State: 'FAILED', StateChangeReason: 'reason', AthenaError: { ErrorMessage: 'SYNTAX_ERROR: line 1' } } });
    const cancelled = runOfExecution('q0', { Status: { State: 'CANCELLED' } });

    expect(failed).toMatchObject({ status: 'failed', error: 'SYNTAX_ERROR: line 1' });
    expect(cancelled).toMatchObject({ status: 'failed', error: 'Athena reports the query CANCELLED' });
  });
});

describe('duckDbRuns', () => {
  it('marks the queries before a failure succeeded, the failing one failed, and later ones as never run', () => {
    const runs = duckDbRuns(['q0_a', 'q1_b', 'q2_c'], { q0_a: { startedAt: 0, finishedAt: 1000 }, q1_b: { startedAt: 1000, finishedAt: 1500 } }, { queryId: 'q1_b', message: 'Binder Error' });

    expect(runs).toEqual([
      { planId: 'q0_a', status: 'succeeded', startedAt: '1970-01-01T00:00:00.000Z', finishedAt: '1970-01-01T00:00:01.000Z' },
      { planId: 'q1_b', status: 'failed', startedAt: '1970-01-01T00:00:01.000Z', finishedAt: '1970-01-01T00:00:01.500Z', error: 'Binder Error' },
      { planId: 'q2_c', status: 'failed', startedAt: null, error: 'Not run: query q1_b failed first' },
    ]);
  });
});

describe('currentQuery', () => {
  const query: StoredQuery = {
    id: queryIdOf('snp_abc', 'q0_traffic'),
    snapshotId: 'snp_abc',
    experimentId: 'exp_1',
    datasource: 'ds_1',
    planId: 'q0_traffic',
    queryType: 'experimentTraffic',
    sql: 'SELECT 1',
    status: 'running',
    dateCreated: '2026-01-01T00:00:00.000Z',
    dateUpdated: '2026-01-01T00:00:00.000Z',
  };

  it('keeps a running query of a running snapshot as it is', () => {
    expect(currentQuery(query, { status: 'running' })).toBe(query);
  });

  it("shows a query that never reported, of a snapshot that failed, as failed with the snapshot's reason", () => {
    expect(currentQuery(query, { status: 'error', error: 'timed out' })).toMatchObject({ status: 'failed', error: 'timed out' });
  });

  it('keeps what a query reported, whatever the snapshot did afterwards', () => {
    const done = { ...query, status: 'succeeded' as const };
    expect(currentQuery(done, { status: 'error', error: 'analysis failed' })).toBe(done);
  });
});
