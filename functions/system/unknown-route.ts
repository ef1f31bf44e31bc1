import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { jsonHeaders } from '../../shared/api/responses';

export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 404,
  headers: jsonHeaders,
  body: JSON.stringify({ message: 'Unknown API endpoint' }),
});
