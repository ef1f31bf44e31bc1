/**
 * The single table's physical shape: key attributes and indexes.
 * Read by the store, the local runtime (to create the table) and the CDK data stack.
 */
export const tableSchema = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expiresAt',
  indexes: [
    {
      // Lists: one partition per organization and entity type, ordered by creation time then id.
      // Keys plus the small `listTags` attribute only, so counting and skipping to an offset
      // never reads whole items.
      indexName: 'GSI1',
      partitionKey: 'GSI1PK',
      sortKey: 'GSI1SK',
      nonKeyAttributes: ['listTags'],
    },
  ],
} as const;

export type IndexName = (typeof tableSchema.indexes)[number]['indexName'];
