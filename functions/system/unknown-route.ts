import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { jsonHeaders } from '../../shared/api/responses';

/**
 * API Gateway's `$default` route: no route matched. A path with a trailing slash is sent on to
 * the same path without it (308 keeps the method and body), because routes are declared without
 * one; anything else is an unknown endpoint.
 */
export const handler = async (event?: Partial<APIGatewayProxyEventV2>): Promise<APIGatewayProxyStructuredResultV2> => {
  const path = event?.rawPath ?? '';
  if (path.length > 1 && path.endsWith('/')) {
    const query = event?.rawQueryString ? `?${event.rawQueryString}` : '';
    return {
      statusCode: 308,
      // One leading slash: `//host/` must stay a path here, not become a redirect to another host; and no
      // backslash after it, since browsers read `/\host` as `//host`.
      headers: { ...jsonHeaders, location: `/${path.replace(/^[/\\]+|\/+$/g, '')}${query}` },
      body: JSON.stringify({ message: 'Use the path without the trailing slash' }),
    };
  }
  return { statusCode: 404, headers: jsonHeaders, body: JSON.stringify({ message: 'Unknown API endpoint' }) };
};
