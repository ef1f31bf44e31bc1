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

/** The id is taken (`already_exists`), the state forbids the action (`invalid_status`), or a write lost every retry (`conflict`). */
export class ConflictError extends DomainError {
  constructor(
    readonly code: 'already_exists' | 'invalid_status' | 'conflict',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

/**
 * GrowthBook's `conflict` (409) that reading again cannot settle, so it is never retried: a draft that
 * conflicts with the live version (its conflicts in `details.conflicts`, as GrowthBook's api-errors
 * registry gives them), or a state that moved since the caller looked at it.
 */
export class UnresolvedConflictError extends ConflictError {
  constructor(message: string, details?: { conflicts: unknown[] }) {
    super('conflict', message, details);
  }
}

/** One reason a publish is refused, as GrowthBook reports it: what clears it (a flag, a permission, a route). */
export interface PublishGate {
  type: string;
  severity: 'blocker' | 'warning';
  messages: string[];
  override: 'ignoreWarnings' | 'skipSchemaValidation' | 'skipHooks' | null;
  requiresPermission: string | null;
  resolution: { action: string; method: string; path: string } | null;
}

/**
 * GrowthBook's refused publish (422): the gates that block it, each with what would clear it, in
 * `details.gates` (and, as GrowthBook lists them, the messages a plain `ignoreWarnings` retry clears in
 * `details.warnings`).
 */
export class PublishBlockedError extends DomainError {
  readonly code = 'publish_blocked';

  constructor(gates: PublishGate[]) {
    super(
      [`Publish blocked by ${gates.length} gate(s):`, ...gates.map((gate) => `- [${gate.type}] ${gate.messages[0] ?? ''}`)].join('\n'),
      { gates, warnings: gates.filter((gate) => gate.override === 'ignoreWarnings').flatMap((gate) => gate.messages) },
    );
  }
}

/** A dependency (DynamoDB, a query engine) is busy or out of reach; trying again later may work. */
export class UnavailableError extends DomainError {
  readonly code = 'unavailable';

  constructor(message = 'The data store is busy; retry shortly') {
    super(message);
  }
}
