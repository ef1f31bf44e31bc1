import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The table every store module reads and writes. */
export const tableName = () => process.env.TABLE_NAME ?? 'switchyard';

let documentClient: DynamoDBDocumentClient | undefined;

/** One document client per container, created on first use so cold start does no work for routes that never reach DynamoDB. */
export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const endpoint = process.env.DYNAMODB_ENDPOINT;
    const client = new DynamoDBClient({
      maxAttempts: 4,
      ...(endpoint
        ? { endpoint, region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return documentClient;
}

/** Drops the cached client (tests that change DYNAMODB_ENDPOINT). */
export function resetDb(): void {
  documentClient = undefined;
}
