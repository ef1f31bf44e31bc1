import { ConflictError } from '../errors';

/** How many times a write that loses a race to another writer is tried in all. */
export const CONFLICT_ATTEMPTS = 15;

const lostRace = (error: unknown) => error instanceof ConflictError && error.code === 'conflict';
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 5 * 2 ** attempt)));

/**
 * Runs `attempt` (a read, a decision and a write conditional on what was read) again, after a short
 * jittered pause, while it loses races to other writers (ConflictError `conflict`); any other error ends
 * it at once. After the last attempt the conflict reaches the caller.
 */
export async function retryOnConflict<T>(attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!lostRace(error) || n === CONFLICT_ATTEMPTS) throw error;
      await pause(n);
    }
  }
}
