/**
 * The single table's physical shape: key attributes, indexes and stream.
 * Read by the store, the local runtime (to create the table) and the CDK data stack.
 */
export const tableSchema = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expiresAt',
  // What the table's stream carries: the stream consumers (infra/stream-consumers.ts) read new images only.
  streamViewType: 'NEW_IMAGE',
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
    {
      // Due ramp schedules, sparse: only a schedule with pending work has these keys, sorted by when
      // it is due, so the advancer queries `GSI2SK <= now` and never scans. One partition for every
      // organization: it takes one write per schedule transition, far below a partition's limits.
      indexName: 'GSI2',
      partitionKey: 'GSI2PK',
      sortKey: 'GSI2SK',
      nonKeyAttributes: ['organization', 'id', 'entityId'],
    },
  ],
} as const;

export type IndexName = (typeof tableSchema.indexes)[number]['indexName'];
