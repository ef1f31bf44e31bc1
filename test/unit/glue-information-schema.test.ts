import type { GetTablesCommandOutput } from '@aws-sdk/client-glue';
import { tableIdOf } from '../../shared/domain/information-schema';
import { glueColumns, glueInformationSchema, glueInformationSchemaTable, parseGlueTablePath } from '../../shared/domain/glue-information-schema';
import { referenceSchemaValidator } from '../support/reference';

// There is no Glue Data Catalog to call here: these tests check the mapping from the shape Glue answers
// (GetTables' TableList, as @aws-sdk/client-glue types it) to GrowthBook's information schema.

const created = new Date('2025-02-01T10:00:00Z');
const updated = new Date('2025-03-01T12:30:00Z');
const now = '2026-11-26T00:00:00.000Z';

/** Two pages of GetTables for two databases, as Glue answers them (fields the mapping ignores included). */
const pages: NonNullable<GetTablesCommandOutput['TableList']>[] = [
  [
    {
      Name: 'orders',
      DatabaseName: 'events',
      CreateTime: created,
      UpdateTime: updated,
      TableType: 'EXTERNAL_TABLE',
      StorageDescriptor: {
        Columns: [
          { Name: 'user_id', Type: 'string' },
          { Name: 'amount', Type: 'decimal(10,2)', Comment: 'in euros' },
          { Name: 'timestamp', Type: 'timestamp' },
        ],
        Location: 's3://lake/orders/',
      },
      PartitionKeys: [{ Name: 'dt', Type: 'string' }],
    },
  ],
  [
    { Name: 'exposures', DatabaseName: 'events', CreateTime: created, StorageDescriptor: { Columns: [{ Name: 'user_id', Type: 'string' }, { Name: 'variation_id', Type: 'string' }] } },
    { Name: 'sessions', DatabaseName: 'web', CreateTime: created, UpdateTime: updated, StorageDescriptor: { Columns: [{ Name: 'session_id', Type: 'string' }] } },
  ],
];

describe('the information schema of an Athena data source from Glue', () => {
  const schema = glueInformationSchema('ds_1', ['events', 'web', 'empty'], pages.flat(), now);

  it('is one database (the catalog) with a schema per Glue database, in the order given, each table in name order', () => {
    expect(schema.databases.map((d) => [d.databaseName, d.path])).toEqual([['AwsDataCatalog', 'AwsDataCatalog']]);
    expect(schema.databases[0]!.schemas.map((s) => [s.schemaName, s.path, s.tables.map((t) => t.tableName)])).toEqual([
      ['events', 'AwsDataCatalog.events', ['exposures', 'orders']],
      ['web', 'AwsDataCatalog.web', ['sessions']],
      ['empty', 'AwsDataCatalog.empty', []],
    ]);
  });

  it("gives each table Athena's path, an id that GET /information-schema-tables resolves, its column count with partition keys, and Glue's dates", () => {
    const orders = schema.databases[0]!.schemas[0]!.tables[1]!;

    expect(orders).toEqual({
      tableName: 'orders',
      path: 'AwsDataCatalog.events.orders',
      id: tableIdOf('ds_1', 'events/orders'),
      numOfColumns: 4,
      dateCreated: created.toISOString(),
      dateUpdated: updated.toISOString(),
    });
    // A table Glue never updated shows its creation date for both.
    expect(schema.databases[0]!.schemas[0]!.tables[0]!.dateUpdated).toBe(created.toISOString());
  });

  it("matches GrowthBook 5.0.1's InformationSchema", () => {
    const valid = referenceSchemaValidator('InformationSchema', 'growthbook-5.0.1-openapi.yaml');

    expect(valid(schema) ? [] : valid.errors).toEqual([]);
    expect(schema).toMatchObject({ id: 'inf_ds_1', datasourceId: 'ds_1', status: 'COMPLETE' });
    expect(schema.error).toBeUndefined();
  });

  it('carries a listing error as GrowthBook’s generic error', () => {
    expect(glueInformationSchema('ds_1', [], [], now, 'The Glue Data Catalog could not be read (AccessDeniedException)').error).toEqual({
      errorType: 'generic',
      message: 'The Glue Data Catalog could not be read (AccessDeniedException)',
    });
  });

  it('leaves out tables without a name and tables of databases not listed', () => {
    const only = glueInformationSchema('ds_1', ['web'], [...pages.flat(), { DatabaseName: 'web' }], now);

    expect(only.databases[0]!.schemas.map((s) => s.tables.map((t) => t.tableName))).toEqual([['sessions']]);
  });
});

describe('one Glue table', () => {
  it("lists its columns, then its partition keys, with Glue's types, as GrowthBook's InformationSchemaTable", () => {
    const table = glueInformationSchemaTable('ds_1', { ...pages[0]![0]!, Name: 'orders', DatabaseName: 'events' }, now, 42);
    const valid = referenceSchemaValidator('InformationSchemaTable', 'growthbook-5.0.1-openapi.yaml');

    expect(valid(table) ? [] : valid.errors).toEqual([]);
    expect(table).toEqual({
      id: tableIdOf('ds_1', 'events/orders'),
      datasourceId: 'ds_1',
      informationSchemaId: 'inf_ds_1',
      tableName: 'orders',
      tableSchema: 'events',
      databaseName: 'AwsDataCatalog',
      columns: [
        { columnName: 'user_id', dataType: 'string' },
        { columnName: 'amount', dataType: 'decimal(10,2)' },
        { columnName: 'timestamp', dataType: 'timestamp' },
        { columnName: 'dt', dataType: 'string' },
      ],
      refreshMS: 42,
      dateCreated: created.toISOString(),
      dateUpdated: updated.toISOString(),
    });
  });

  it('has no columns when Glue gives no storage descriptor, and an empty type where Glue gives none', () => {
    expect(glueColumns({ Name: 'view' })).toEqual([]);
    expect(glueColumns({ StorageDescriptor: { Columns: [{ Name: 'x' }, { Type: 'string' }] } })).toEqual([{ columnName: 'x', dataType: '' }]);
  });

  it('reads a table path back as database and table, and nothing else', () => {
    expect(parseGlueTablePath('events/orders')).toEqual({ database: 'events', table: 'orders' });
    expect([parseGlueTablePath('events'), parseGlueTablePath('a/b/c'), parseGlueTablePath('/orders'), parseGlueTablePath('events/')]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
