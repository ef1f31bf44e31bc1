import type { DataSource } from '../../shared/contracts/data-sources';
import { dataSources } from '../../shared/store/data-sources';

/** The assignment queries every test data source has, so experiments and templates can name them. */
export const testAssignmentQueryIds = ['user_id', 'anonymous_id', 'q'] as const;

/**
 * Stores DuckDB data sources with these ids in the organization, so fact tables, experiments and
 * templates that name them pass the reference check. Each has the identifier types `user_id` and
 * `anonymous_id` and the assignment queries in `testAssignmentQueryIds`.
 */
export async function createTestDataSources(orgId: string, ids: string[]): Promise<DataSource[]> {
  return Promise.all(
    ids.map((id) =>
      dataSources.create(orgId, {
        id,
        type: 'duckdb',
        params: {},
        name: `Data source ${id}`,
        description: '',
        projectIds: [],
        eventTracker: '',
        identifierTypes: [
          { id: 'user_id', description: '' },
          { id: 'anonymous_id', description: '' },
        ],
        assignmentQueries: testAssignmentQueryIds.map((queryId) => ({
          id: queryId,
          name: queryId,
          description: '',
          identifierType: queryId === 'anonymous_id' ? 'anonymous_id' : 'user_id',
          sql: `SELECT ${queryId === 'anonymous_id' ? 'anonymous_id' : 'user_id'}, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')`,
          includesNameColumns: false,
          dimensionColumns: [],
        })),
        identifierJoinQueries: [],
      }),
    ),
  );
}
