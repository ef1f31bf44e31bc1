/** A response with its own status or headers; handlers that only return JSON with 200 just return the body. */
export class HttpResponse {
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

/** A response whose body is text sent as it is (not JSON), e.g. a YAML document. */
export class TextResponse {
  constructor(
    readonly body: string,
    readonly contentType: string,
    readonly headers: Record<string, string> = {},
  ) {}
}
