import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { matchesFilter, streamConsumers, type StreamConsumer } from '../stream-consumers';
import { asFunction } from './iam';
import { handlerFor, lambdaContext } from './server';

/**
 * The table stream's event source mappings for `npm start`: each consumer of infra/stream-consumers.ts
 * polls DynamoDB Local's stream on its own, filters records as Lambda does, batches them up to its
 * batch size or batching window, and calls the handler module Lambda runs with the event Lambda
 * delivers. A batch that fails (the handler throws, or reports `batchItemFailures`) is retried, from
 * its first failed record on, up to the consumer's retry attempts, then logged and skipped (in AWS it
 * goes to the failed-records bucket, records and all). A handler's failure is never the server's.
 *
 * Where a Lambda mapping keeps its position across deployments, this one starts at the stream's
 * end when the server starts (it has no checkpoint of an earlier run, and replaying one would
 * repeat its events); shards that appear later are read from their start, so nothing is missed.
 * Not emulated: bisecting a failed batch and the maximum record age (local batches are small and
 * retried within seconds), and parallel delivery across shards (shards are read one after another).
 */
export interface StreamConsumers {
  stop(): Promise<void>;
}

export interface StreamConsumerOptions {
  endpoint: string;
  tableName: string;
  consumers?: StreamConsumer[];
  pollMs?: number;
  retryDelayMs?: number;
  log?: boolean;
}

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Lambda's record: the wire JSON (dates as epoch seconds, binary as base64), with the stream's ARN. */
function lambdaRecord(record: StreamRecord, eventSourceARN: string): DynamoDBRecord {
  const json = JSON.stringify(record, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
    return value;
  });
  const parsed = JSON.parse(json) as DynamoDBRecord & { dynamodb?: { ApproximateCreationDateTime?: unknown } };
  const created = record.dynamodb?.ApproximateCreationDateTime;
  if (parsed.dynamodb && created) parsed.dynamodb.ApproximateCreationDateTime = Math.floor(new Date(created).getTime() / 1000);
  return { ...parsed, eventSourceARN };
}

interface Shard {
  id: string;
  parentId?: string;
  iterator?: string;
  /** The sequence number of the last record read, to take an expired iterator again after it. */
  last?: string;
  /** Matching records read but not yet delivered, and since when the oldest waits. */
  buffer: DynamoDBRecord[];
  since: number;
}

/** Starts polling for every consumer; resolves once each holds its place at the stream's end. */
export async function startStreamConsumers(options: StreamConsumerOptions): Promise<StreamConsumers> {
  const config = { endpoint: options.endpoint, region: 'local', credentials };
  const table = (await new DynamoDBClient(config).send(new DescribeTableCommand({ TableName: options.tableName }))).Table;
  const streamArn = table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream`);
  const streams = new DynamoDBStreamsClient(config);
  const abort = new AbortController();
  const pause = (ms: number) => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);
  const pollMs = options.pollMs ?? 500;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const say = (message: string) => {
    if (options.log !== false) console.log(message);
  };

  async function iterator(shardId: string, type: 'LATEST' | 'TRIM_HORIZON' | 'AFTER_SEQUENCE_NUMBER', after?: string) {
    const answer = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type, ...(after ? { SequenceNumber: after } : {}) }),
    );
    return answer.ShardIterator;
  }

  /**
   * Reads the shard's next records. As Lambda's poller: an iterator that expired is taken again after the last
   * record read, and one whose records were trimmed meanwhile starts again at the oldest record left.
   */
  async function read(shard: Shard, limit: number) {
    try {
      return await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: limit }));
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'ExpiredIteratorException') {
        shard.iterator = await iterator(shard.id, shard.last ? 'AFTER_SEQUENCE_NUMBER' : 'LATEST', shard.last);
      } else if (name === 'TrimmedDataAccessException') {
        say(`${shard.id}: records were trimmed before they were read; going on from the oldest record left`);
        shard.iterator = await iterator(shard.id, 'TRIM_HORIZON');
      } else {
        throw error;
      }
      return streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: limit }));
    }
  }

  /** Adds the shards the stream has that `shards` does not, open ones at `position`. */
  async function discover(shards: Map<string, Shard>, done: Set<string>, position: 'LATEST' | 'TRIM_HORIZON') {
    const description = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription;
    for (const shard of description?.Shards ?? []) {
      if (!shard.ShardId || shards.has(shard.ShardId) || done.has(shard.ShardId)) continue;
      // At start, a closed shard holds only writes from before this run.
      if (position === 'LATEST' && shard.SequenceNumberRange?.EndingSequenceNumber) {
        done.add(shard.ShardId);
        continue;
      }
      shards.set(shard.ShardId, { id: shard.ShardId, parentId: shard.ParentShardId, iterator: await iterator(shard.ShardId, position), buffer: [], since: 0 });
    }
  }

  /** Calls the handler with `records` until it succeeds or the retries run out. */
  async function deliver(consumer: StreamConsumer, records: DynamoDBRecord[]) {
    const handler = handlerFor<StreamHandler>(consumer.handler);
    let pending = records;
    for (let attempt = 0; !abort.signal.aborted; attempt++) {
      let failedFrom = 0;
      try {
        const records = pending;
        const response = await asFunction(consumer.tableAccess, consumer.name, () => handler({ Records: records }, lambdaContext(consumer.name, randomUUID())));
        const failures = consumer.reportBatchItemFailures ? (response?.batchItemFailures ?? []) : [];
        if (!failures.length) return;
        // As Lambda: the batch is retried from its first failed record on (an unknown identifier fails it all).
        const failed = new Set(failures.map((failure) => failure.itemIdentifier));
        failedFrom = Math.max(0, pending.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? '')));
        say(`${consumer.name}: ${pending.length - failedFrom} of ${pending.length} records failed`);
      } catch (error) {
        console.error(`${consumer.name} failed`, error);
      }
      pending = pending.slice(failedFrom);
      if (attempt >= consumer.retryAttempts) {
        const sequenceNumbers = pending.map((record) => record.dynamodb?.SequenceNumber);
        console.error(`${consumer.name} gave up on ${pending.length} records after ${attempt + 1} attempts (in AWS they go to the failed-records bucket)`, sequenceNumbers);
        return;
      }
      await pause(retryDelayMs);
    }
  }

  /** Reads each shard once, and delivers the batches that are full or have waited their window. */
  async function poll(consumer: StreamConsumer, shards: Map<string, Shard>, done: Set<string>) {
    for (const shard of [...shards.values()]) {
      // A child shard waits until its parent is read to the end, so records keep their order.
      if (shard.parentId && shards.has(shard.parentId)) continue;
      if (shard.iterator && shard.buffer.length < consumer.batchSize) {
        const answer = await read(shard, consumer.batchSize - shard.buffer.length);
        shard.iterator = answer.NextShardIterator;
        shard.last = answer.Records?.at(-1)?.dynamodb?.SequenceNumber ?? shard.last;
        const matching = (answer.Records ?? []).map((record) => lambdaRecord(record, streamArn!)).filter((record) => matchesFilter(record, consumer.filter));
        if (matching.length && !shard.buffer.length) shard.since = Date.now();
        shard.buffer.push(...matching);
      }
      const windowOver = Date.now() - shard.since >= consumer.maxBatchingWindowSeconds * 1000;
      if (shard.buffer.length && (shard.buffer.length >= consumer.batchSize || windowOver || !shard.iterator)) {
        await deliver(consumer, shard.buffer.splice(0, consumer.batchSize));
      }
      if (!shard.iterator && !shard.buffer.length) {
        shards.delete(shard.id);
        done.add(shard.id);
      }
    }
  }

  async function start(consumer: StreamConsumer) {
    const shards = new Map<string, Shard>();
    const done = new Set<string>();
    await discover(shards, done, 'LATEST');
    // Wrapped, so that awaiting `start` waits for the place at the stream's end, not for the loop's end.
    const loop = (async () => {
      for (let round = 0; !abort.signal.aborted; round++) {
        try {
          // New shards (DynamoDB rolls them over, and splits them) are looked for every few seconds.
          if (round % 10 === 0 && round > 0) await discover(shards, done, 'TRIM_HORIZON');
          await poll(consumer, shards, done);
        } catch (error) {
          if (!abort.signal.aborted) console.error(`${consumer.name}: reading the stream failed`, error);
        }
        await pause(pollMs);
      }
    })();
    return { loop };
  }

  const loops = (await Promise.all((options.consumers ?? streamConsumers).map(start))).map(({ loop }) => loop);
  return {
    stop: async () => {
      abort.abort();
      await Promise.all(loops);
      streams.destroy();
    },
  };
}
