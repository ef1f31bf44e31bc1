import type { Holdout, HoldoutUpdate } from '../contracts/holdouts';
import { InvalidInputError } from '../errors';

/** The share of traffic a holdout keeps out when none is given, as GrowthBook defaults it. */
export const DEFAULT_HOLDOUT_SIZE = 0.05;

/** Refuses environments the organization does not have (400 naming the field). */
export function assertHoldoutEnvironments(environments: Record<string, unknown> | undefined, known: string[]): void {
  for (const environment of Object.keys(environments ?? {})) {
    if (!known.includes(environment)) {
      throw new InvalidInputError(`Request body: [environments.${environment}] is not an environment of this organization (${known.join(', ')})`);
    }
  }
}

/** A holdout as an update leaves it: the fields given replace the current ones. */
export function applyHoldoutUpdate(current: Holdout, update: HoldoutUpdate): Holdout {
  const given = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
  return { ...current, ...given };
}

/**
 * A holdout moved to `stage` at `now`: it records when it first started and when it stopped. A
 * holdout that has started cannot go back to draft (its users were bucketed already).
 */
export function stagedHoldout(current: Holdout, stage: Holdout['stage'], now: string): Holdout {
  if (stage === 'draft' && current.stage !== 'draft') {
    throw new InvalidInputError(`Request body: [stage] holdout ${current.id} has started and cannot go back to draft`);
  }
  const started = stage === 'running' || stage === 'analysis-period' || stage === 'stopped';
  return {
    ...current,
    stage,
    ...(started && !current.dateStarted ? { dateStarted: now } : {}),
    ...(stage === 'stopped' && current.stage !== 'stopped' ? { dateStopped: now } : {}),
  };
}
