import type { AttributeValue, ConsumedCapacity, QueryInput, QueryOutput } from '@aws-sdk/client-dynamodb';
import type * as Doc from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { callDynamo } from './dynamo-http';
import { InvalidInputError } from '../errors';

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
 * tests read it, and each request's metric line (shared/api/endpoint.ts). The trace holds the last
 * TRACE_LIMIT calls since the last reset. `retries` counts attempts our client sent again
 * (throttling, a dropped connection), apart from the snapshot: a retried call is still one call,
 * as the cost bench counts it.
 */
export const dynamoMeter = {
  calls: 0,
  readUnits: 0,
  writeUnits: 0,
  retries: 0,
  trace: [] as TracedCall[],
  reset() {
    this.calls = 0;
    this.readUnits = 0;
    this.writeUnits = 0;
    this.retries = 0;
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

const writeCommands = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** Adds a response's consumed capacity (table and indexes) to the meter: write units for writes, read units for reads. */
function meter(operation: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined) {
  for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    const units = entry.CapacityUnits ?? (entry.ReadCapacityUnits ?? 0) + (entry.WriteCapacityUnits ?? 0);
    if (writeCommands.has(operation)) dynamoMeter.writeUnits += units;
    else dynamoMeter.readUnits += units;
  }
}

/**
 * Told of every call as it is sent: the command's name (`GetItemCommand`, as the SDK names it) and
 * its input as the store wrote it. What it returns, if a function, is told the call's error (or
 * nothing) when the call ends.
 */
export type CommandWatcher = (command: string, input: Record<string, unknown>) => void | ((error: unknown) => void);

/** Functions told every call sent (tests count commands with this; benches count what failed). */
const watchers = new Set<CommandWatcher>();

/** Calls `watcher` with the name and input of every call sent until the returned function is called. */
export function watchCommands(watcher: CommandWatcher): () => void {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

const countRetry = () => {
  dynamoMeter.retries += 1;
};

/**
 * Checks a call against the calling function's IAM grant and throws what AWS would answer when it
 * lacks one. Only the local runtime sets it (infra/local/iam.ts): in Lambda, IAM itself decides.
 */
export type CallAuthorizer = (operation: string, input: Record<string, unknown>) => void;
let authorize: CallAuthorizer | undefined;

/** Makes every call pass `authorizer` first (the local runtime's IAM emulation). */
export function setCallAuthorizer(authorizer: CallAuthorizer | undefined): void {
  authorize = authorizer;
}

/** One call, metered and traced: `input` is what watchers see, `wire` what is sent (attribute values marshalled). */
async function call(operation: string, input: object, wire: object): Promise<Record<string, unknown>> {
  const command = `${operation}Command`;
  dynamoMeter.calls += 1; // a call that fails (a failed condition, say) is a round trip too
  const settled = [...watchers].map((watcher) => watcher(command, input as Record<string, unknown>)).filter((done) => typeof done === 'function');
  const traced: TracedCall = { command, start: performance.now(), end: Infinity };
  if (dynamoMeter.trace.length < TRACE_LIMIT) dynamoMeter.trace.push(traced);
  try {
    // Inside the try, so that watchers and callers see a refusal as they see any error DynamoDB answers.
    authorize?.(operation, input as Record<string, unknown>);
    const output = await callDynamo(operation, { ReturnConsumedCapacity: 'INDEXES', ...wire }, countRetry);
    meter(operation, output.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined);
    for (const done of settled) done(undefined);
    return output;
  } catch (error) {
    for (const done of settled) done(error);
    throw tooDeep(error) ? new InvalidInputError(TOO_DEEP_MESSAGE, { cause: (error as Error).message }) : error;
  } finally {
    traced.end = performance.now();
  }
}

// The body parser refuses input deeper than an item holds at its top level; a field stored further down
// (a value inside a revision, say) can still exceed DynamoDB's 32 levels, which DynamoDB refuses with this.
const TOO_DEEP_MESSAGE = 'A value is nested too deeply to be stored: an item holds at most 32 levels of objects and lists';
const tooDeep = (error: unknown) =>
  (error as Error)?.name === 'ValidationException' && /nesting levels have exceeded/i.test((error as Error).message);

/** An item, key or set of expression values in plain values (`{ id: 'x' }`); `Wire` is the same in attribute values. */
type Plain = Record<string, unknown>;
type Wire = Record<string, AttributeValue>;
/** An output as the SDK's document client types it, without the SDK's `$metadata`. */
type Out<T> = Omit<T, '$metadata'>;

// As the document client was configured: undefined attributes are left out; a class instance (a Date) is an error.
const toWire = (item: Plain): Wire => marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: false });
const fromWire = (item: Wire): Plain => unmarshall(item);

/** A request (or a transaction's item) with its key, item and expression values in attribute values. */
function marshalled<T extends object>(request: T): T {
  const { Key, Item, ExpressionAttributeValues, ExclusiveStartKey } = request as Record<string, Plain | undefined>;
  return {
    ...request,
    ...(Key && { Key: toWire(Key) }),
    ...(Item && { Item: toWire(Item) }),
    ...(ExpressionAttributeValues && { ExpressionAttributeValues: toWire(ExpressionAttributeValues) }),
    ...(ExclusiveStartKey && { ExclusiveStartKey: toWire(ExclusiveStartKey) }),
  };
}

/** An answer with its item, old attributes, items and last key in plain values. */
function unmarshalled<T>(output: Record<string, unknown>): T {
  const { Item, Attributes, Items, LastEvaluatedKey } = output as Record<string, Wire & Wire[]>;
  return {
    ...output,
    ...(Item && { Item: fromWire(Item) }),
    ...(Attributes && { Attributes: fromWire(Attributes) }),
    ...(Items && { Items: Items.map(fromWire) }),
    ...(LastEvaluatedKey && { LastEvaluatedKey: fromWire(LastEvaluatedKey) }),
  } as T;
}

const mapValues = <T, U>(record: Record<string, T>, f: (value: T) => U): Record<string, U> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));

type WriteRequests<T> = Record<string, Array<{ PutRequest?: { Item: T }; DeleteRequest?: { Key: T } }>>;
const writeRequests = <A, B>(requests: WriteRequests<A>, convert: (item: A) => B): WriteRequests<B> =>
  mapValues(requests, (list) =>
    list.map((request) =>
      request.PutRequest ? { PutRequest: { Item: convert(request.PutRequest.Item) } } : { DeleteRequest: { Key: convert(request.DeleteRequest!.Key) } },
    ),
  );

/**
 * The table's client: DynamoDB's data calls with items in plain values, as the SDK's document
 * client takes and gives them (the same inputs and outputs, typed by the SDK's own types).
 */
export const db = {
  get: async (input: Doc.GetCommandInput) => unmarshalled<Out<Doc.GetCommandOutput>>(await call('GetItem', input, marshalled(input))),
  put: async (input: Doc.PutCommandInput) => unmarshalled<Out<Doc.PutCommandOutput>>(await call('PutItem', input, marshalled(input))),
  update: async (input: Doc.UpdateCommandInput) => unmarshalled<Out<Doc.UpdateCommandOutput>>(await call('UpdateItem', input, marshalled(input))),
  delete: async (input: Doc.DeleteCommandInput) => unmarshalled<Out<Doc.DeleteCommandOutput>>(await call('DeleteItem', input, marshalled(input))),
  query: async (input: Doc.QueryCommandInput) => unmarshalled<Out<Doc.QueryCommandOutput>>(await call('Query', input, marshalled(input))),
  /** A Query whose input and answer stay in attribute values: no conversion at all (the SDK payload's version read). */
  queryWire: async (input: QueryInput) => (await call('Query', input, input)) as Out<QueryOutput>,
  batchGet: async (input: Doc.BatchGetCommandInput): Promise<Out<Doc.BatchGetCommandOutput>> => {
    const wire = { ...input, RequestItems: mapValues(input.RequestItems!, (entry) => ({ ...entry, Keys: entry.Keys!.map(toWire) })) };
    const { Responses, UnprocessedKeys, ...rest } = (await call('BatchGetItem', input, wire)) as Record<string, Record<string, never>>;
    return {
      ...rest,
      Responses: Responses && mapValues(Responses as Record<string, Wire[]>, (items) => items.map(fromWire)),
      UnprocessedKeys: UnprocessedKeys && mapValues(UnprocessedKeys as Record<string, { Keys: Wire[] }>, (entry) => ({ ...entry, Keys: entry.Keys.map(fromWire) })),
    };
  },
  batchWrite: async (input: Doc.BatchWriteCommandInput): Promise<Out<Doc.BatchWriteCommandOutput>> => {
    const wire = { ...input, RequestItems: writeRequests(input.RequestItems as WriteRequests<Plain>, toWire) };
    const { UnprocessedItems, ...rest } = await call('BatchWriteItem', input, wire);
    return { ...rest, UnprocessedItems: UnprocessedItems && writeRequests(UnprocessedItems as WriteRequests<Wire>, fromWire) } as Out<Doc.BatchWriteCommandOutput>;
  },
  transactWrite: async (input: Doc.TransactWriteCommandInput): Promise<Out<Doc.TransactWriteCommandOutput>> => {
    const TransactItems = input.TransactItems!.map((item) => mapValues(item as Record<string, object>, marshalled));
    return (await call('TransactWriteItems', input, { ...input, TransactItems })) as Out<Doc.TransactWriteCommandOutput>;
  },
};
