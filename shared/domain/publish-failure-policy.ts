/**
 * GrowthBook's policy for a scheduled publish that fails when it fires (its publishFailurePolicy):
 * a transient failure (a merge conflict, a draft still awaiting approval, an armer who cannot be
 * resolved, a store hiccup) is tried again after an exponential backoff, up to 10 attempts; a
 * terminal one, or the 10th, gives up: the schedule is cleared and `revision.publishFailed` is sent.
 */

export const SCHEDULED_PUBLISH_MAX_ATTEMPTS = 10;
const BACKOFF_BASE_MINUTES = 1;
const BACKOFF_MAX_MINUTES = 30;

export type PublishFailureOutcome =
  | { action: 'retry'; attempts: number; nextAttemptAt: string }
  | { action: 'give-up'; attempts: number; terminal: boolean };

/** Minutes before the next try after `attempts` failures: 1, 2, 4, ... at most 30. */
export function backoffMinutes(attempts: number): number {
  return Math.min(BACKOFF_BASE_MINUTES * 2 ** (Math.max(1, Math.floor(attempts)) - 1), BACKOFF_MAX_MINUTES);
}

/** What to do after a failed attempt; `attempts` counts the one that just failed. */
export function decidePublishFailure(failure: { attempts: number; terminal: boolean; now: Date }): PublishFailureOutcome {
  const { attempts, terminal, now } = failure;
  if (terminal || attempts >= SCHEDULED_PUBLISH_MAX_ATTEMPTS) return { action: 'give-up', attempts, terminal };
  return { action: 'retry', attempts, nextAttemptAt: new Date(now.getTime() + backoffMinutes(attempts) * 60_000).toISOString() };
}
