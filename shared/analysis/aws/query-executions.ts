import { GetQueryExecutionCommand, type AthenaClient } from '@aws-sdk/client-athena';
import type { QueryRun } from '../../domain/queries';
import { runOfExecution } from './query-runs';

/** What Athena says of each of a snapshot's executions (one GetQueryExecution each, side by side). */
export async function athenaQueryRuns(executions: { id: string; queryExecutionId: string }[], athena: AthenaClient): Promise<QueryRun[]> {
  return Promise.all(
    executions.map(async ({ id, queryExecutionId }) => {
      const { QueryExecution } = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: queryExecutionId }));
      return runOfExecution(id, QueryExecution);
    }),
  );
}
