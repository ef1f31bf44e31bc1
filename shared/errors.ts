/**
 * The kinds of failure that domain, store and analysis code reports. They carry a message, a machine-readable
 * code and optional details, but no HTTP status: `shared/api/errors.ts` alone decides what each kind means over HTTP.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input is wrong: a field, a reference to something that does not exist, a value out of range. */
export class InvalidInputError extends DomainError {
  readonly code = 'invalid_request';
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
}

export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}

/**
 * The id is taken (`already_exists`), the state forbids the action (`invalid_status`), a write lost every
 * retry (`conflict`), a draft conflicts with the live version (`merge_conflict`, its conflicts in the
 * details), or what the caller expected to find has changed since (`outdated`). Only `conflict` is retried.
 */
export class ConflictError extends DomainError {
  constructor(
    readonly code: 'already_exists' | 'invalid_status' | 'conflict' | 'merge_conflict' | 'outdated',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

/** A dependency (DynamoDB, a query engine) is busy or out of reach; trying again later may work. */
export class UnavailableError extends DomainError {
  readonly code = 'unavailable';

  constructor(message = 'The data store is busy; retry shortly') {
    super(message);
  }
}
