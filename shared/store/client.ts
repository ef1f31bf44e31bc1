import { DynamoDBClient, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The table every store module reads and writes. */
export const tableName = () => process.env.TABLE_NAME ?? 'switchyard';

/** One round trip as the meter saw it: the command, and when it was sent and answered (performance.now(), ms). */
export interface TracedCall {
  command: string;
  start: number;
  end: number;
}

/**
 * Round trips and capacity units this container has used, with when each call ran; benchmarks and
 * tests read it. The trace holds the last TRACE_LIMIT calls since the last reset.
 */
export const dynamoMeter = {
  calls: 0,
  readUnits: 0,
  writeUnits: 0,
  trace: [] as TracedCall[],
  reset() {
    this.calls = 0;
    this.readUnits = 0;
    this.writeUnits = 0;
    this.trace = [];
  },
  snapshot() {
    return { calls: this.calls, readUnits: this.readUnits, writeUnits: this.writeUnits };
  },
  /** The calls on the critical path of everything since the last reset (see `criticalPath`). */
  criticalPath() {
    return criticalPath(this.trace);
  },
};

/** A long-lived container is never reset: the trace keeps only this many calls. */
const TRACE_LIMIT = 1000;

/**
 * The calls on a request's critical path: the longest chain of calls each sent after the one
 * before was answered. Calls that overlap (sent together) count once; calls one after another add up.
 */
export function criticalPath(trace: TracedCall[]): number {
  // Earliest answer first: greedily taking each call that starts after the chain's last answer gives the longest chain.
  let chain = 0;
  let last = -Infinity;
  for (const call of [...trace].sort((a, b) => a.end - b.end)) {
    if (call.start >= last) {
      chain += 1;
      last = call.end;
    }
  }
  return chain;
}

const dataCommands = new Set([
  'GetItemCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'QueryCommand',
  'BatchGetItemCommand',
  'BatchWriteItemCommand',
  'TransactGetItemsCommand',
  'TransactWriteItemsCommand',
]);

const writeCommands = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/** Adds a response's consumed capacity (table and indexes) to the meter: write units for writes, read units for reads. */
function meter(command: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined) {
  for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    const units = entry.CapacityUnits ?? (entry.ReadCapacityUnits ?? 0) + (entry.WriteCapacityUnits ?? 0);
    if (writeCommands.has(command)) dynamoMeter.writeUnits += units;
    else dynamoMeter.readUnits += units;
  }
}

/** Functions told every data command sent (name and input), whichever client sent it (tests count commands with this). */
const watchers = new Set<(command: string, input: Record<string, unknown>) => void>();

/** Calls `watcher` with the name and input of every data command sent until the returned function is called. */
export function watchCommands(watcher: (command: string, input: Record<string, unknown>) => void): () => void {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

/** A low-level client whose every data call reports what it consumed, so cost per request is a measured number. */
function lowLevelClient(options: { cacheMiddleware?: boolean } = {}): DynamoDBClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({
    maxAttempts: 4,
    ...options,
    ...(endpoint
      ? { endpoint, region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  // No SDK logger is configured, yet its middleware walks every input and output through the
  // schema's sensitive-data filter for the no-op logger on each call: a few % of a read's CPU.
  client.middlewareStack.remove('loggerMiddleware');
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!dataCommands.has(context.commandName ?? '')) return next(args);
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity ??= 'INDEXES';
      dynamoMeter.calls += 1; // a call that fails (a failed condition, say) is a round trip too
      for (const watcher of watchers) watcher(context.commandName!, args.input as Record<string, unknown>);
      const call: TracedCall = { command: context.commandName!, start: performance.now(), end: Infinity };
      if (dynamoMeter.trace.length < TRACE_LIMIT) dynamoMeter.trace.push(call);
      try {
        const result = await next(args);
        meter(context.commandName!, (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity);
        return result;
      } finally {
        call.end = performance.now();
      }
    },
    { step: 'initialize', name: 'consumedCapacityMeter' },
  );
  return client;
}

let documentClient: DynamoDBDocumentClient | undefined;
let hotClient: DynamoDBClient | undefined;

/** One document client per container, created on first use so cold start does no work for routes that never reach DynamoDB. */
export function db(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(lowLevelClient(), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return documentClient;
}

/**
 * The low-level client for the one read every SDK payload request makes (its version Query). It
 * resolves its middleware stack once per command class (the SDK's `cacheMiddleware`) instead of on
 * every call, and takes attribute values as they are, with no document marshalling. The document
 * client cannot share it: with `cacheMiddleware` a document command replays the first command sent.
 * Middleware added to it after its first call never runs: watch its calls with `watchCommands`.
 */
export function hotDb(): DynamoDBClient {
  hotClient ??= lowLevelClient({ cacheMiddleware: true });
  return hotClient;
}

/** Drops the cached client (tests that change DYNAMODB_ENDPOINT). */
export function resetDb(): void {
  documentClient = undefined;
  hotClient = undefined;
}
