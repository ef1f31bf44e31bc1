import {
  ConflictError,
  DomainError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  PublishBlockedError,
  UnavailableError,
} from '../errors';

/** An error that exists only over HTTP (auth header, body size, content type); the error handler answers it as is. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'A valid API key is required') {
    super(401, 'unauthorized', message);
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `Request body is larger than ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  constructor(contentType: string) {
    super(415, 'unsupported_media_type', `Content-Type ${contentType} is not supported; send application/json or application/x-www-form-urlencoded`);
  }
}

const statusByKind: [new (...args: never[]) => DomainError, number][] = [
  [InvalidInputError, 400],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [PublishBlockedError, 422],
  [UnavailableError, 503],
];

/** The HTTP status of a domain error kind. */
export function httpStatusOf(error: DomainError): number {
  return statusByKind.find(([kind]) => error instanceof kind)?.[1] ?? 500;
}

/** Any error the API answers deliberately, as an ApiError; undefined for a bug. */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return new ApiError(httpStatusOf(error), error.code, error.message, error.details);
  return undefined;
}
