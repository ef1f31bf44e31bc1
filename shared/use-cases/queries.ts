import * as contract from '../contracts/queries';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { currentQuery } from '../domain/queries';
import { queries } from '../store/queries';
import { snapshots } from '../store/snapshots';
import { readableOfExperimentOr404 } from './read-access';

/** `GET /queries/{id}`: one of a snapshot's queries, as it stands. */
export async function getQuery({ params, auth }: UseCaseInput<typeof contract.getQuery>): UseCaseOutput<typeof contract.getQuery> {
  const stored = await queries.get(auth.orgId, params.id);
  const [query, snapshot] = await Promise.all([
    readableOfExperimentOr404(auth, stored, stored.experimentId, 'Query', params.id),
    snapshots.get(auth.orgId, stored.snapshotId),
  ]);
  const current = currentQuery(query, snapshot);
  return {
    query: {
      id: current.id,
      organization: auth.orgId,
      datasource: current.datasource,
      language: 'sql',
      query: current.sql,
      queryType: current.queryType,
      createdAt: current.dateCreated,
      startedAt: current.startedAt ?? '',
      status: current.status,
      externalId: current.externalId ?? '',
      dependencies: [],
      runAtEnd: false,
      ...(current.finishedAt ? { finishedAt: current.finishedAt } : {}),
      ...(current.error ? { error: current.error } : {}),
    },
  };
}
