/** A response with its own status or headers; handlers that only return JSON with 200 just return the body. */
export class HttpResponse {
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

/**
 * A response whose body is already serialised: text (a YAML document), or bytes (a compressed body) sent base64 with
 * `isBase64Encoded`, as API Gateway expects them from Lambda.
 */
export class EncodedResponse {
  constructor(
    readonly statusCode: number,
    readonly body: string,
    readonly headers: Record<string, string>,
    readonly isBase64Encoded = false,
  ) {}
}
