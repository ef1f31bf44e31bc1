import { ensureTable, startDynamoLocal } from '../../infra/local/dynamodb';

/** Starts one in-memory DynamoDB Local for the whole run; workers find it through DYNAMODB_ENDPOINT. */
export default async function globalSetup() {
  const dynamo = await startDynamoLocal();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await ensureTable(dynamo.endpoint, 'switchyard-test');
  (globalThis as { __dynamo?: typeof dynamo }).__dynamo = dynamo;
}
