import type { InformationSchema, InformationSchemaTable } from '../contracts/information-schema';
import { informationSchemaIdOf, tableIdOf } from './information-schema';

// An Athena data source's information schema from the Glue Data Catalog that Athena's default catalog
// (AwsDataCatalog) is: GrowthBook's shape, with the catalog as the database, each Glue database a schema and
// each Glue table a table (as Athena's own information_schema names them: table_catalog, table_schema, table_name).

/** The catalog Athena reads Glue through; other catalogs (federated sources) are not in Glue. */
export const GLUE_CATALOG = 'AwsDataCatalog';

/** What the mapping reads of a Glue table (`Table` of @aws-sdk/client-glue), so the mapping needs no SDK. */
export interface GlueTable {
  Name?: string;
  DatabaseName?: string;
  CreateTime?: Date;
  UpdateTime?: Date;
  StorageDescriptor?: { Columns?: GlueColumn[] };
  /** Partition columns: Athena shows them after the table's own columns. */
  PartitionKeys?: GlueColumn[];
}
export interface GlueColumn {
  Name?: string;
  Type?: string;
}

/** A Glue table's path in a table id: Glue names hold no `/`. */
export const glueTablePath = (database: string, table: string) => `${database}/${table}`;

/** The database and table a Glue table path names, or undefined when it is not one. */
export function parseGlueTablePath(path: string): { database: string; table: string } | undefined {
  const parts = path.split('/');
  return parts.length === 2 && parts[0] && parts[1] ? { database: parts[0], table: parts[1] } : undefined;
}

/** A Glue table's columns as Athena lists them: its own, then its partition keys. */
export function glueColumns(table: GlueTable): { columnName: string; dataType: string }[] {
  return [...(table.StorageDescriptor?.Columns ?? []), ...(table.PartitionKeys ?? [])]
    .filter((column) => column.Name)
    .map((column) => ({ columnName: column.Name!, dataType: column.Type ?? '' }));
}

const isoOr = (date: Date | undefined, fallback: string) => (date ? date.toISOString() : fallback);

/** The information schema of `databases` (in order) and their `tables`; a database without tables is listed empty. */
export function glueInformationSchema(datasourceId: string, databases: string[], tables: GlueTable[], now: string, error?: string): InformationSchema {
  const schemas = databases.map((database) => ({
    schemaName: database,
    path: `${GLUE_CATALOG}.${database}`,
    dateCreated: now,
    dateUpdated: now,
    tables: tables
      .filter((table) => table.DatabaseName === database && table.Name)
      .sort((a, b) => a.Name!.localeCompare(b.Name!))
      .map((table) => ({
        tableName: table.Name!,
        path: `${GLUE_CATALOG}.${database}.${table.Name}`,
        id: tableIdOf(datasourceId, glueTablePath(database, table.Name!)),
        numOfColumns: glueColumns(table).length,
        dateCreated: isoOr(table.CreateTime, now),
        dateUpdated: isoOr(table.UpdateTime ?? table.CreateTime, now),
      })),
  }));
  return {
    id: informationSchemaIdOf(datasourceId),
    datasourceId,
    status: 'COMPLETE',
    ...(error ? { error: { errorType: 'generic' as const, message: error } } : {}),
    databases: [{ databaseName: GLUE_CATALOG, path: GLUE_CATALOG, dateCreated: now, dateUpdated: now, schemas }],
    dateCreated: now,
    dateUpdated: now,
  };
}

/** One Glue table with its columns, as GrowthBook's information schema table. */
export function glueInformationSchemaTable(datasourceId: string, table: GlueTable & { Name: string; DatabaseName: string }, now: string, refreshMS: number): InformationSchemaTable {
  return {
    id: tableIdOf(datasourceId, glueTablePath(table.DatabaseName, table.Name)),
    datasourceId,
    informationSchemaId: informationSchemaIdOf(datasourceId),
    tableName: table.Name,
    tableSchema: table.DatabaseName,
    databaseName: GLUE_CATALOG,
    columns: glueColumns(table),
    refreshMS,
    dateCreated: isoOr(table.CreateTime, now),
    dateUpdated: isoOr(table.UpdateTime ?? table.CreateTime, now),
  };
}
