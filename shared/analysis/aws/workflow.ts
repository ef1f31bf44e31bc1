/**
 * What the snapshot state machine passes between its states. The plan Lambda answers a
 * `SnapshotPlan`; the Map runs each query on Athena; the analyse Lambda receives the executions;
 * the fail Lambda receives the caught error or, after a timeout, the execution's status event.
 */

/** Where the Athena queries of one snapshot run; every field is set, so the state machine's paths always resolve. */
export interface AthenaTarget {
  workGroup: string;
  database: string;
  catalog: string;
  outputLocation: string;
  /** Multi-tenant (`athenaTenants`): the organization's role, which the query runs with. */
  roleArn?: string;
}

export interface SnapshotPlan {
  queries: { id: string; sql: string }[];
  athena: AthenaTarget;
}

export interface AnalyseInput {
  orgId: string;
  snapshotId: string;
  executions: { id: string; queryExecutionId: string }[];
}

/** A Catch's error object (`States.*` or the task's own error name, and its cause). */
export interface CaughtError {
  Error?: string;
  Cause?: string;
}

export type FailInput =
  | { orgId: string; snapshotId: string; error: CaughtError }
  | { detail: { status: string; input: string; stopDate?: number; startDate?: number } };

/** The words worth showing from a cause: Lambda's `errorMessage`, or Athena's `StateChangeReason`. */
function readableCause(cause: string): string {
  try {
    const parsed = JSON.parse(cause) as {
      errorMessage?: string;
      QueryExecution?: { Status?: { StateChangeReason?: string; AthenaError?: { ErrorMessage?: string } } };
    };
    return (
      parsed.errorMessage ??
      parsed.QueryExecution?.Status?.StateChangeReason ??
      parsed.QueryExecution?.Status?.AthenaError?.ErrorMessage ??
      cause
    );
  } catch {
    return cause;
  }
}

/**
 * A message a user can act on from an error the state machine caught. A query's failure arrives
 * as `Query <id> failed: <cause>` (the Map's iterator says which query), the cause being Athena's
 * execution or Lambda's error as JSON.
 */
export function failureMessage(error: CaughtError): string {
  const cause = error.Cause ?? '';
  const query = /^Query (\S+) failed: ([\s\S]*)$/.exec(cause);
  if (query) return `Query ${query[1]} failed on Athena: ${readableCause(query[2])}`;
  if (error.Error === 'States.Timeout') return 'The analysis took longer than its time limit and was stopped';
  return readableCause(cause) || error.Error || 'The analysis failed';
}

/** The snapshot and message to record from the fail Lambda's input, whichever way it was invoked. */
export function failureOf(input: FailInput): { orgId: string; snapshotId: string; message: string } {
  if ('detail' in input) {
    const { orgId, snapshotId } = JSON.parse(input.detail.input) as { orgId: string; snapshotId: string };
    const status = input.detail.status;
    const message =
      status === 'TIMED_OUT'
        ? 'The analysis did not finish within the state machine time limit and was stopped'
        : `The analysis run ended with status ${status}`;
    return { orgId, snapshotId, message };
  }
  return { orgId: input.orgId, snapshotId: input.snapshotId, message: failureMessage(input.error) };
}
