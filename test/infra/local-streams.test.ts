import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { ensureTable, startDynamoLocal } from '../../infra/local/dynamodb';
import { startStreamConsumers, type StreamConsumers } from '../../infra/local/streams';
import { eventPublisher, matchesFilter, proxyPusher, type StreamConsumer } from '../../infra/stream-consumers';
import { db, tableName } from '../../shared/db/client';
import { answerWith, batches } from '../fixtures/stream/recording-handler';

/**
 * The local event source mapping, against the jest DynamoDB Local's stream of the test table. Other
 * test files write to that table at the same time: the consumer here wakes only for this run's items.
 */

const run = randomUUID();
const consumer: StreamConsumer = {
  name: 'Recorder',
  handler: 'test/fixtures/stream/recording-handler.ts',
  tableAccess: 'none',
  startingPosition: 'LATEST',
  batchSize: 3,
  // A batch waits up to a second for its records, so the three written together arrive together.
  maxBatchingWindowSeconds: 1,
  reportBatchItemFailures: true,
  retryAttempts: 2,
  maxRecordAgeSeconds: 3600,
  filter: { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entityType: { S: ['STREAM_TEST'] }, run: { S: [run] } } } },
};

let consumers: StreamConsumers;

beforeAll(async () => {
  consumers = await startStreamConsumers({
    endpoint: process.env.DYNAMODB_ENDPOINT!,
    tableName: tableName(),
    consumers: [consumer],
    pollMs: 50,
    retryDelayMs: 10,
    log: false,
  });
});
afterAll(() => consumers.stop());
beforeEach(() => {
  batches.length = 0;
  answerWith(() => ({ batchItemFailures: [] }));
});

const put = (id: string, entityType = 'STREAM_TEST') => db.put({ TableName: tableName(), Item: { PK: `STREAMTEST#${run}`, SK: id, entityType, run } });
const idsOf = (records: DynamoDBRecord[]) => records.map((record) => record.dynamodb!.NewImage!.SK.S);

async function until(what: string, done: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen; batches: ${JSON.stringify(batches.map(idsOf))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the local table stream consumer', () => {
  it('calls the handler module with the records Lambda delivers: wire images, sequence numbers and the stream ARN', async () => {
    await put('shape');

    await until('a batch', () => batches.length > 0);

    const [record] = batches[0];
    expect(record).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventSourceARN: expect.stringMatching(/:table\/.+\/stream\//),
      dynamodb: {
        Keys: { PK: { S: `STREAMTEST#${run}` }, SK: { S: 'shape' } },
        NewImage: { PK: { S: `STREAMTEST#${run}` }, SK: { S: 'shape' }, entityType: { S: 'STREAM_TEST' }, run: { S: run } },
        SequenceNumber: expect.any(String),
        StreamViewType: 'NEW_IMAGE',
      },
    });
    // Lambda's event carries epoch seconds here, not a date.
    expect(typeof record.dynamodb!.ApproximateCreationDateTime).toBe('number');
  });

  it('leaves out the records its filter does not match', async () => {
    await put('other', 'SOMETHING_ELSE');
    await put('matched');

    await until('the matched record', () => batches.flat().some((record) => record.dynamodb!.NewImage!.SK.S === 'matched'));

    expect(batches.flat().map((record) => record.dynamodb!.NewImage!.SK.S)).toEqual(['matched']);
  });

  it('retries a batch from its first failed record on, as Lambda does with batchItemFailures', async () => {
    let failedOnce = false;
    answerWith((records) => {
      const second = records.find((record) => record.dynamodb!.NewImage!.SK.S === 'b');
      if (failedOnce || !second) return { batchItemFailures: [] };
      failedOnce = true;
      return { batchItemFailures: [{ itemIdentifier: second.dynamodb!.SequenceNumber! }] };
    });
    await db.transactWrite({
      TransactItems: ['a', 'b', 'c'].map((SK) => ({ Put: { TableName: tableName(), Item: { PK: `STREAMTEST#${run}`, SK, entityType: 'STREAM_TEST', run } } })),
    });

    await until('the retry', () => batches.length >= 2);

    expect(batches.map(idsOf)).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c'],
    ]);
  });

  it('gives a failing batch up after the retry attempts, and goes on with the next records', async () => {
    answerWith((records) => {
      if (idsOf(records).includes('poison')) throw new Error('the handler failed');
      return { batchItemFailures: [] };
    });
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await put('poison');
    await until('the attempts', () => batches.length >= 3);

    await put('after');
    await until('the next record', () => batches.flat().some((record) => record.dynamodb!.NewImage!.SK.S === 'after'));

    const logged = errors.mock.calls.map(([message]) => String(message));
    errors.mockRestore();
    expect(batches.map(idsOf)).toEqual([['poison'], ['poison'], ['poison'], ['after']]);
    expect(logged.filter((message) => message === 'Recorder failed')).toHaveLength(3);
    expect(logged).toContain('Recorder gave up on 1 records after 3 attempts (in AWS they go to the failed-records bucket)');
  });
});

describe('the consumers of the deployed stack, as `npm start` runs them', () => {
  const record = (eventName: string, entityType: string) => ({ eventName, dynamodb: { NewImage: { entityType: { S: entityType } } } });

  it('wake the publisher for inserted event items only', () => {
    expect(matchesFilter(record('INSERT', 'EVENT'), eventPublisher.filter)).toBe(true);
    expect(matchesFilter(record('MODIFY', 'EVENT'), eventPublisher.filter)).toBe(false);
    expect(matchesFilter(record('INSERT', 'FEATURE'), eventPublisher.filter)).toBe(false);
    expect(matchesFilter({ eventName: 'REMOVE', dynamodb: {} }, eventPublisher.filter)).toBe(false);
  });

  it('wake the proxy pusher for inserted and modified payload versions only', () => {
    expect(matchesFilter(record('INSERT', 'SDK_VERSION'), proxyPusher.filter)).toBe(true);
    expect(matchesFilter(record('MODIFY', 'SDK_VERSION'), proxyPusher.filter)).toBe(true);
    expect(matchesFilter(record('REMOVE', 'SDK_VERSION'), proxyPusher.filter)).toBe(false);
    expect(matchesFilter(record('MODIFY', 'EVENT'), proxyPusher.filter)).toBe(false);
  });
});

describe('the local table', () => {
  // Its own DynamoDB Local, as `npm start` has: late in a full test run the shared one holds every suite's items and
  // streams and answers far slower, and waiting for each new index there took over 30 s in CI.
  let own: Awaited<ReturnType<typeof startDynamoLocal>>;
  beforeAll(async () => {
    own = await startDynamoLocal();
  }, 60_000);
  afterAll(() => own?.stop());

  it('gets the stream of the schema when it was made without one (by an earlier `npm start`)', async () => {
    const endpoint = own.endpoint;
    const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const TableName = `switchyard-no-stream-${run.slice(0, 8)}`;
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
      }),
    );

    await ensureTable(endpoint, TableName);
    await ensureTable(endpoint, TableName);

    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    expect(Table?.LatestStreamArn).toBeDefined();
  });
});
