import Ajv from 'ajv';
import type { Api, TestOrg } from './api';
import { referenceDocument } from './reference';

/** A validator of GrowthBook's `ExperimentResults` from the reference document itself. */
export function referenceResultsValidator() {
  const document = referenceDocument('growthbook-v1-analysis.yaml');
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  return ajv.compile({ $ref: '#/components/schemas/ExperimentResults', components: document.components });
}

/** Polls `GET /snapshots/{id}` until the snapshot leaves `running` (or the attempts run out). */
export async function waitForSnapshot(api: Api, org: TestOrg, id: string, attempts = 600): Promise<string> {
  for (let i = 0; i < attempts; i++) {
    const response = await api.request('GET', `/api/v1/snapshots/${id}`, { key: org.keys.admin });
    if (response.body?.snapshot?.status !== 'running') return response.body?.snapshot?.status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return 'running';
}

/** Creates a DuckDB data source with one assignment query reading `exposures.csv` (with a `country` dimension column). */
export async function createDuckDbDataSource(api: Api, org: TestOrg, sql = "SELECT * FROM read_csv('exposures.csv')") {
  const response = await api.request('POST', '/api/v1/data-sources', {
    key: org.keys.admin,
    body: {
      name: 'Local files',
      type: 'duckdb',
      params: {},
      identifierTypes: [{ id: 'user_id' }],
      assignmentQueries: [{ id: 'user_exposures', name: 'Users', identifierType: 'user_id', sql, dimensionColumns: ['country'] }],
    },
  });
  if (response.status !== 200) throw new Error(`data source: ${JSON.stringify(response.body)}`);
  return response.body.dataSource as { id: string };
}
