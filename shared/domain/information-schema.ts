import type { InformationSchema } from '../contracts/information-schema';

/** The database name a DuckDB data source's files show under. */
export const FILES_DATABASE = 'files';
/** The schema of files at the top of the data directory (a sub-folder is its own schema). */
export const TOP_SCHEMA = 'main';

/**
 * A table's id: its data source and path, encoded, so the same file keeps its id across listings. Nothing is
 * stored for it, and it resolves only within the organization that owns the data source: another organization's id is a 404.
 */
export function tableIdOf(datasourceId: string, path: string): string {
  return `ist_${Buffer.from(JSON.stringify([datasourceId, path])).toString('base64url')}`;
}

/** The data source and path a table id names, or undefined when it is not one. */
export function parseTableId(id: string): { datasourceId: string; path: string } | undefined {
  if (!id.startsWith('ist_')) return undefined;
  try {
    const [datasourceId, path] = JSON.parse(Buffer.from(id.slice(4), 'base64url').toString('utf8')) as unknown[];
    return typeof datasourceId === 'string' && typeof path === 'string' ? { datasourceId, path } : undefined;
  } catch {
    return undefined;
  }
}

export const informationSchemaIdOf = (datasourceId: string) => `inf_${datasourceId}`;

/** Where a file sits: its folder is its schema, its name its table. */
export function placeOf(path: string): { schemaName: string; tableName: string } {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? { schemaName: TOP_SCHEMA, tableName: path } : { schemaName: path.slice(0, slash), tableName: path.slice(slash + 1) };
}

/** GrowthBook's information schema of a DuckDB data source: one database of files, one schema per folder. */
export function filesSchema(
  datasourceId: string,
  files: { path: string; created: string; updated: string; columns: unknown[] }[],
  now: string,
  error?: string,
): InformationSchema {
  const schemas = new Map<string, InformationSchema['databases'][number]['schemas'][number]>();
  for (const file of files) {
    const { schemaName, tableName } = placeOf(file.path);
    const schema = schemas.get(schemaName) ?? { schemaName, path: schemaName === TOP_SCHEMA ? '' : schemaName, dateCreated: now, dateUpdated: now, tables: [] };
    schema.tables.push({ tableName, path: file.path, id: tableIdOf(datasourceId, file.path), numOfColumns: file.columns.length, dateCreated: file.created, dateUpdated: file.updated });
    schemas.set(schemaName, schema);
  }
  return {
    id: informationSchemaIdOf(datasourceId),
    datasourceId,
    status: 'COMPLETE',
    ...(error ? { error: { errorType: 'generic' as const, message: error } } : {}),
    databases: [{ databaseName: FILES_DATABASE, path: '', dateCreated: now, dateUpdated: now, schemas: [...schemas.values()] }],
    dateCreated: now,
    dateUpdated: now,
  };
}
