/** Base of every error that maps to an HTTP status; the error handler turns it into `{message, code, details}`. */
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

export class BadRequestError extends ApiError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(400, 'invalid_request', message, details);
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'A valid API key is required') {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends ApiError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

/** 409: the id is taken (`already_exists`), the state forbids the action (`invalid_status`), or a write lost every retry (`conflict`). */
export class ConflictError extends ApiError {
  constructor(code: 'already_exists' | 'invalid_status' | 'conflict', message: string) {
    super(409, code, message);
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `Request body is larger than ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  constructor(contentType: string) {
    super(415, 'unsupported_media_type', `Content-Type ${contentType} is not supported; send application/json`);
  }
}

export class UnavailableError extends ApiError {
  constructor(message = 'The data store is busy; retry shortly') {
    super(503, 'unavailable', message);
  }
}
