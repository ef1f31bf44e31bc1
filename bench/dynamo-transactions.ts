/**
 * `npx tsx bench/dynamo-transactions.ts`: what DynamoDB Local itself allows, with no code of ours
 * between: minimal TransactWriteItems of N small Puts (N = 1, 5, 25, 50, 100), sent one after another
 * and several at once on items of their own, so the ramp advancer's figures can be read against
 * the ceiling the store sets. Uses DYNAMODB_ENDPOINT when set, else starts its own DynamoDB Local.
 */
import { DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { printTable, round, type Row } from './report';

let lanes = 0;
const runId = Math.random().toString(36).slice(2);

const localClient = () =>
  new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

/**
 * Minimal transactions of `items` conditional Puts of 600 bytes against DYNAMODB_ENDPOINT,
 * `concurrency` at once, each lane on items of its own, for about `seconds`: how many went through.
 */
export async function transactionRate(items: number, concurrency: number, seconds: number): Promise<{ transactions: number; elapsed: number }> {
  const client = localClient();
  const table = process.env.TABLE_NAME ?? 'switchyard';
  const payload = 'x'.repeat(600);
  let sent = 0;
  const lane = async (laneId: number) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const TransactItems = Array.from({ length: items }, (_, i) => ({
        Put: {
          TableName: table,
          Item: { PK: { S: `TXBENCH#${runId}#${laneId}` }, SK: { S: String(i) }, version: { N: String(n) }, body: { S: payload } },
          ConditionExpression: 'attribute_not_exists(version) OR version < :v',
          ExpressionAttributeValues: { ':v': { N: String(n) } },
        },
      }));
      await client.send(new TransactWriteItemsCommand({ TransactItems }));
      sent += 1;
    }
  };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, () => lane((lanes += 1))));
  client.destroy();
  return { transactions: sent, elapsed: (performance.now() - started) / 1000 };
}

/** Rows of transactions/s and items/s of minimal transactions against DynamoDB Local; `seconds` per cell. */
export async function benchDynamoTransactions(options: { sizes?: number[]; concurrencies?: number[]; seconds?: number } = {}): Promise<Row[]> {
  let stop = () => {};
  if (!process.env.DYNAMODB_ENDPOINT) {
    const { benchDynamo } = await import('./environment');
    stop = (await benchDynamo()).stop;
  }
  try {
    // Warm the JVM up, so the first cell does not pay for it.
    await transactionRate(25, 4, 2);
    const rows: Row[] = [];
    for (const items of options.sizes ?? [1, 5, 25, 50, 100]) {
      for (const concurrency of options.concurrencies ?? [1, 4]) {
        const { transactions, elapsed } = await transactionRate(items, concurrency, options.seconds ?? 3);
        rows.push({
          'items per transaction': items,
          'sent at once': concurrency,
          'transactions/s': round(transactions / elapsed, 1),
          'items/s': Math.round((transactions * items) / elapsed),
          'ms per transaction': round((elapsed * 1000 * concurrency) / transactions, 1),
        });
      }
    }
    printTable('DynamoDB Local alone: minimal TransactWriteItems of N Puts (conditional, 600 bytes each), one at a time and several at once on disjoint items', rows);
    return rows;
  } finally {
    stop();
  }
}

if (require.main === module) {
  benchDynamoTransactions({
    sizes: process.env.SIZES?.split(',').map(Number),
    concurrencies: process.env.CONCURRENCIES?.split(',').map(Number),
  }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
