import { ConflictError, UnresolvedConflictError } from '../errors';

/**
 * The one policy for writes that lose a race (optimistic concurrency): every write is conditional
 * on what it read, so a write that finds its condition broken reads again and tries again. Not to be
 * confused with the client's transport retries (dynamo-http.ts), which send the same request again
 * after a failure on the way; this sends a new write, made from a new read.
 *
 * 15 attempts, each after a pause of up to 5·2ⁿ ms (full jitter, at most 250 ms): enough for dozens
 * of writers on one item at once (test/api/concurrency.test.ts, 40 ramp starts on one feature with
 * edits alongside), at most about 2.3 s of pauses in all; a write that races rarely pays 10 or 20 ms once.
 */
export const RACE_ATTEMPTS = 15;
const RACE_DELAY_BASE_MS = 5;
const RACE_DELAY_MAX_MS = 250;

/**
 * True for a write that lost a race: the domain's `conflict` (a transaction op's condition on a
 * version read, or a transaction cancelled by a concurrent one), a single write's failed condition
 * (the writes this helper wraps condition only on what they read, never on an id being free), or a
 * single write that met a transaction on its item.
 */
export function isLostRace(error: unknown): boolean {
  if (error instanceof UnresolvedConflictError) return false;
  if (error instanceof ConflictError) return error.code === 'conflict';
  const { name, CancellationReasons } = (error ?? {}) as { name?: string; CancellationReasons?: Array<{ Code?: string }> };
  if (name === 'ConditionalCheckFailedException' || name === 'TransactionConflictException') return true;
  return (
    name === 'TransactionCanceledException' &&
    (CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict') &&
    (CancellationReasons ?? []).every((reason) => reason.Code === 'TransactionConflict' || reason.Code === 'None')
  );
}

/** The pause before attempt `attempt + 1`: full jitter over 5·2ⁿ ms, at most 250 ms. */
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(RACE_DELAY_MAX_MS, RACE_DELAY_BASE_MS * 2 ** attempt)));

const lostEveryRace = () => new ConflictError('conflict', 'Another change to the same data happened at the same time; retry');

/** What a caller's own decision threw inside a retried write, carried past the lost-race check unchanged. */
class Decided {
  constructor(readonly error: unknown) {}
}

/**
 * Runs the caller's own decision inside a retried write (a check that may refuse, the change to make): whatever it
 * throws ends the retries as it is, even a ConflictError `conflict` ("used by an experiment"): a refusal is an
 * answer, not a lost race.
 */
export async function decided<R>(decision: () => R | Promise<R>): Promise<R> {
  try {
    return await decision();
  } catch (error) {
    throw new Decided(error);
  }
}

/**
 * Runs `write` (given the attempt, 1 first) until it does not lose a race, RACE_ATTEMPTS times at
 * most; any other error is thrown at once. After the last lost race it throws ConflictError
 * `conflict`: `conflict()`'s when given, else the race's own when it is one, else a general one.
 */
export async function retryOnConflict<T>(write: (attempt: number) => Promise<T>, conflict?: () => ConflictError): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(attempt);
    } catch (error) {
      if (error instanceof Decided) throw error.error;
      if (!isLostRace(error)) throw error;
      if (attempt >= RACE_ATTEMPTS) throw conflict?.() ?? (error instanceof ConflictError ? error : lostEveryRace());
      await pause(attempt);
    }
  }
}
