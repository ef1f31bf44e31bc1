/**
 * The floor every function is compared with: a handler that does one GetItem with the same
 * DynamoDB client and no middleware at all.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

const endpoint = process.env.DYNAMODB_ENDPOINT;
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient(
    endpoint ? { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {},
  ),
);

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const { Item } = await client.send(
    new GetCommand({
      TableName: process.env.TABLE_NAME ?? 'switchyard',
      Key: { PK: event.pathParameters?.pk ?? 'BARE', SK: event.pathParameters?.sk ?? 'BARE' },
    }),
  );
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ item: Item ?? null }) };
};
