import type { ChecklistItem } from './start-checklist';
import { ConflictError, InvalidInputError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import type { PutExperimentScheduleBody, StopExperimentBody } from '../contracts/experiment-status';

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);
/** GrowthBook's `invalid_status`, with the status found and the ones the action needs (its registry's details). */
const wrongStatus = (message: string, currentStatus: string, expectedStatuses: string[]) =>
  new ConflictError('invalid_status', message, { currentStatus, expectedStatuses });

/** Holdouts have their own lifecycle; GrowthBook refuses them on these endpoints too. */
export function assertNotHoldout(experiment: Experiment): void {
  if (experiment.type === 'holdout') throw new InvalidInputError('Holdouts are not supported via this API');
}

/** GrowthBook's `checklist_incomplete` refusal of a start, with the incomplete required items as its registry describes them. */
export function checklistIncompleteError(remainingChecklistItems: ChecklistItem[]): ConflictError {
  return new ConflictError(
    'checklist_incomplete',
    `The start checklist is incomplete: ${remainingChecklistItems.map((item) => item.key).join(', ')} (send skipChecklist: true to start anyway)`,
    { remainingChecklistItems },
  );
}

/** A start scheduled for later than `now` (bandits keep their own cadence and have none). */
export function futureStart(experiment: Experiment, now: string): string | undefined {
  const startAt = experiment.type === 'multi-armed-bandit' ? undefined : experiment.statusUpdateSchedule?.startAt;
  return startAt && new Date(startAt).toISOString() > now ? new Date(startAt).toISOString() : undefined;
}

/** The experiment with its scheduled start staged (approved to happen at `startAt`). */
export function stagedStart(experiment: Experiment, startAt: string): Experiment {
  if (experiment.nextScheduledStatusUpdate) {
    throw wrongStatus(
      'Experiment is already staged for a scheduled start. To start now, remove the schedule first (PUT /experiments/{id}/schedule without startAt)',
      experiment.status,
      ['draft'],
    );
  }
  if (experiment.status !== 'draft') throw wrongStatus('Experiment must be in draft status', experiment.status, ['draft']);
  return { ...experiment, nextScheduledStatusUpdate: { type: 'start', date: startAt } };
}

/**
 * When the experiment's staged start fires, if it still can: a draft, not archived, staged for the
 * start its schedule names. Anything else is a staging that no longer holds.
 */
export function stagedStartAt(experiment: Experiment): string | undefined {
  const staged = experiment.nextScheduledStatusUpdate;
  const startAt = experiment.statusUpdateSchedule?.startAt;
  if (staged?.type !== 'start' || !startAt || experiment.status !== 'draft' || experiment.archived) return undefined;
  const date = new Date(staged.date).toISOString();
  return new Date(startAt).toISOString() === date ? date : undefined;
}

/**
 * The experiment without a staging that no longer holds (its schedule changed or was cleared, it
 * left draft, it was archived), so a write that ends a staging also cancels its boundary.
 */
export function withStagingInStep(experiment: Experiment): Experiment {
  if (!experiment.nextScheduledStatusUpdate || stagedStartAt(experiment)) return experiment;
  const { nextScheduledStatusUpdate: _ended, ...rest } = experiment;
  return rest;
}

/**
 * What the scheduler does at the boundary `at` of a staged start: the experiment started at `now`,
 * as POST /start starts it, or undefined when that staging no longer holds or is not yet due.
 */
export function scheduledStart(experiment: Experiment, at: string, now: string): Experiment | undefined {
  const startAt = stagedStartAt(experiment);
  return startAt === at && startAt <= now ? startedExperiment(experiment, now) : undefined;
}

/** The experiment started now: running, its latest phase (a new one when it has none) starting now, schedule done. */
export function startedExperiment(experiment: Experiment, now: string): Experiment {
  if (experiment.status !== 'draft') throw wrongStatus('Experiment must be in draft status', experiment.status, ['draft']);
  const { statusUpdateSchedule: _schedule, nextScheduledStatusUpdate: _next, ...rest } = experiment;
  const phases = experiment.phases.length
    ? experiment.phases.map((phase, i) => (i === experiment.phases.length - 1 ? { ...phase, dateStarted: now, dateEnded: '' } : phase))
    : [
        {
          name: 'Main',
          dateStarted: now,
          dateEnded: '',
          reasonForStopping: '',
          seed: experiment.trackingKey,
          coverage: 1,
          trafficSplit: experiment.variations.map((v) => ({ variationId: v.variationId, weight: 1 / experiment.variations.length })),
          targetingCondition: '',
          prerequisites: [],
          savedGroupTargeting: [],
        },
      ];
  return { ...rest, status: 'running', phases };
}

/**
 * The experiment stopped (when running) with its results recorded, as GrowthBook's stop does: the
 * latest phase ends (`dateEnded` or now) with the reason; a temporary rollout serves the released
 * variation to everyone, otherwise the experiment leaves the SDK payload.
 */
export function stoppedExperiment(experiment: Experiment, input: StopExperimentBody, now: string): Experiment {
  if (experiment.status === 'draft') throw wrongStatus('Cannot stop an experiment in draft status', experiment.status, ['running', 'stopped']);
  const variations = experiment.variations;
  const indexOf = (id: string | undefined) => (id ? variations.findIndex((v) => v.variationId === id) : -1);
  const winnerIndex = indexOf(input.winnerVariationId);
  if (input.winnerVariationId && winnerIndex < 0) throw invalid('winnerVariationId', 'must be the id of a variation of this experiment');
  if (input.results === 'won' && winnerIndex < 0) throw invalid('winnerVariationId', "is required when results is 'won'");
  const winner = variations[Math.max(winnerIndex, 0)];
  const rollout = input.enableTemporaryRollout ?? false;
  const releasedVariationId = rollout ? (input.releasedVariationId ?? input.winnerVariationId ?? winner?.variationId ?? '') : '';
  if (rollout && indexOf(releasedVariationId) < 0) throw invalid('releasedVariationId', 'must be the id of a variation of this experiment');
  const last = experiment.phases.length - 1;
  const phases = experiment.phases.map((phase, i) =>
    i === last
      ? {
          ...phase,
          dateEnded: input.dateEnded ? new Date(input.dateEnded).toISOString() : now,
          coverage: rollout ? 1 : phase.coverage,
          reasonForStopping: input.reason ?? '',
        }
      : phase,
  );
  return {
    ...experiment,
    status: experiment.status === 'running' ? 'stopped' : experiment.status,
    phases,
    resultSummary: {
      status: input.results,
      winner: winner?.variationId ?? '',
      conclusions: input.analysis ?? experiment.resultSummary?.conclusions ?? '',
      releasedVariationId,
      excludeFromPayload: !rollout,
    },
  };
}

/**
 * The experiment with its schedule replaced by `input` (absent means cleared) and its staging reset.
 * Only a start can be scheduled: it is for drafts, and a changed start must lie in the future.
 */
export function rescheduledExperiment(experiment: Experiment, input: PutExperimentScheduleBody, now: string): Experiment {
  if (experiment.type === 'multi-armed-bandit') throw invalid('startAt', 'scheduling is not supported for bandit experiments');
  if (experiment.archived || experiment.status === 'stopped') {
    throw wrongStatus('Cannot change the schedule of a stopped or archived experiment', experiment.archived ? 'archived' : experiment.status, [
      'draft',
      'running',
    ]);
  }
  for (const field of ['stopAt', 'stopAfter', 'scheduledStopPlan'] as const) {
    if (input[field] !== undefined && input[field] !== null) {
      throw invalid(field, 'scheduled stops are not supported; stop the experiment with POST /experiments/{id}/stop');
    }
  }
  const { statusUpdateSchedule: current, nextScheduledStatusUpdate: _staged, ...rest } = experiment;
  if (!input.startAt) return rest;
  const startAt = new Date(input.startAt).toISOString();
  if (experiment.status !== 'draft') throw invalid('startAt', 'a start can only be scheduled for a draft experiment');
  const unchanged = current?.startAt && new Date(current.startAt).toISOString() === startAt;
  if (!unchanged && startAt <= now) throw invalid('startAt', 'must be in the future');
  // As GrowthBook: any schedule write resets the staging (and so cancels its boundary); POST /start stages it again.
  return { ...rest, statusUpdateSchedule: { startAt } };
}
