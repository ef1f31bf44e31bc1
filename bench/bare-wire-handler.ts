/**
 * The second floor: the bare handler (bench/bare-handler.ts) with the SDK's client replaced by ours
 * (shared/db/client.ts), as every function now reads DynamoDB. Its distance from the first floor
 * is what the SDK's client costs a cold start; a function's distance from it is our own code's.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { db } from '../shared/db/client';

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const { Item } = await db.get({
    TableName: process.env.TABLE_NAME ?? 'switchyard',
    Key: { PK: event.pathParameters?.pk ?? 'BARE', SK: event.pathParameters?.sk ?? 'BARE' },
  });
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ item: Item ?? null }) };
};
