import type { QueryExecution } from '@aws-sdk/client-athena';
import type { QueryRun } from '../../domain/queries';
import type { CaughtError } from './workflow';

// Apart from the Athena client, so the fail function that reads these bundles none of it.

/** An Athena date as the SDK gives it (a Date) or as Step Functions passes it on (epoch ms or an ISO string). */
const isoOf = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined;
  const date = value instanceof Date ? value : new Date(value as string | number);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
};

/** One of a snapshot's queries as Athena's execution reports it: its state, when it was submitted and completed, and why it failed. */
export function runOfExecution(planId: string, execution: QueryExecution | undefined): QueryRun {
  const status = execution?.Status;
  const succeeded = status?.State === 'SUCCEEDED';
  const error = succeeded ? undefined : (status?.AthenaError?.ErrorMessage ?? status?.StateChangeReason ?? `Athena reports the query ${status?.State ?? 'in an unknown state'}`);
  return {
    planId,
    status: succeeded ? 'succeeded' : 'failed',
    startedAt: isoOf(status?.SubmissionDateTime),
    finishedAt: isoOf(status?.CompletionDateTime),
    externalId: execution?.QueryExecutionId,
    ...(error ? { error } : {}),
  };
}

/**
 * The failed query named by the state machine's error (`Query <id> failed: <cause>`, the cause being
 * the execution Athena reported), or undefined when the failure was not a query's.
 */
export function failedAthenaQuery(error: CaughtError): QueryRun | undefined {
  const match = /^Query (\S+) failed: ([\s\S]*)$/.exec(error.Cause ?? '');
  if (!match) return undefined;
  let execution: QueryExecution | undefined;
  try {
    execution = (JSON.parse(match[2]!) as { QueryExecution?: QueryExecution }).QueryExecution;
  } catch {
    // Not Athena's JSON (a Step Functions timeout, say): the query failed with that message.
  }
  const run = runOfExecution(match[1]!, execution);
  return { ...run, status: 'failed', error: execution ? run.error : match[2] || error.Error || 'The query failed' };
}
