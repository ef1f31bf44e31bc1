import type { DataSource } from '../contracts/data-sources';
import { dataSourceReferenceError, type DataSourceReference } from '../domain/data-sources';
import { repository } from '../db/repository';

/** Data sources: the engine, its params and the assignment queries experiments read exposures from. */
export const dataSources = repository<DataSource>({ type: 'DATA_SOURCE', label: 'Data source' });

/**
 * Raises 400 naming the first reference whose data source does not exist in the organization, or
 * whose assignment query is not one of that data source's. One read (a BatchGet) for them all.
 */
export async function assertDataSourceReferences(orgId: string, references: DataSourceReference[]): Promise<void> {
  if (references.length === 0) return;
  const found = new Map((await dataSources.getMany(orgId, references.map((r) => r.datasource.id))).map((ds) => [ds.id, ds]));
  for (const reference of references) {
    const error = dataSourceReferenceError(reference, found.get(reference.datasource.id));
    if (error) throw error;
  }
}
