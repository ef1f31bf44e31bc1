/**
 * The functions the table's stream feeds, and how: the CDK events stack turns each into an event
 * source mapping, and `npm start` (infra/local/streams.ts) polls DynamoDB Local's stream with the
 * same settings and filter, so the two cannot drift. Plain data: the local runtime loads no CDK.
 */

/**
 * A Lambda event filter pattern, as far as the consumers use one: each leaf lists the values a
 * record's field may have, nested objects go down into the record.
 */
export interface StreamFilter {
  [field: string]: readonly string[] | StreamFilter;
}

export interface StreamConsumer {
  /** The construct id in the events stack, and the consumer's name in local logs. */
  name: string;
  /** Path from the repository root of the module whose `handler` the stream invokes. */
  handler: string;
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  batchSize: number;
  maxBatchingWindowSeconds: number;
  /** The handler answers `batchItemFailures`, and only those records (from the first of them on) are retried. */
  reportBatchItemFailures: boolean;
  retryAttempts: number;
  maxRecordAgeSeconds: number;
  /** Only records matching this wake the function. */
  filter: StreamFilter;
  /** What the function may do with the table (see infra/grants.ts); the stream itself needs none. */
  tableAccess: 'none' | 'read' | 'read-write';
}

export const eventPublisher: StreamConsumer = {
  name: 'Publisher',
  handler: 'functions/events/publish-events.ts',
  startingPosition: 'TRIM_HORIZON',
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  reportBatchItemFailures: true,
  retryAttempts: 10,
  maxRecordAgeSeconds: 24 * 3600,
  // Only new event items wake the function; every other write to the table is filtered out.
  filter: { eventName: ['INSERT'], dynamodb: { NewImage: { entityType: { S: ['EVENT'] } } } },
  // Publishes what the stream delivers; it reads nothing from the table.
  tableAccess: 'none',
};

export const proxyPusher: StreamConsumer = {
  name: 'ProxyPusher',
  handler: 'functions/events/push-to-proxies.ts',
  startingPosition: 'LATEST',
  batchSize: 100,
  // Changes within a few seconds share one push per connection.
  maxBatchingWindowSeconds: 2,
  // Only a transient table read failure sends records back, those its connections needed (a proxy's failure never does); a push is worth little once old.
  reportBatchItemFailures: true,
  retryAttempts: 3,
  maxRecordAgeSeconds: 3600,
  // Every payload change moves a version item of its environment; nothing else wakes the function.
  filter: { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entityType: { S: ['SDK_VERSION'] } } } },
  // Reads each changed payload and the SDK connections to push it to.
  tableAccess: 'read',
};

export const streamConsumers = [eventPublisher, proxyPusher];

/**
 * Whether a stream record (as Lambda delivers it) matches a filter, as Lambda's event filtering
 * decides for the patterns above: every field named must be present and one of the values listed.
 */
export function matchesFilter(record: unknown, filter: StreamFilter): boolean {
  return Object.entries(filter).every(([field, rule]) => {
    const value = (record as Record<string, unknown> | undefined)?.[field];
    if (Array.isArray(rule)) return typeof value === 'string' && rule.includes(value);
    return typeof value === 'object' && value !== null && matchesFilter(value, rule as StreamFilter);
  });
}
