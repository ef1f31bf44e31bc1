import type { Experiment } from '../contracts/experiments';
import type { FeatureRule } from '../contracts/features';
import { ConflictError, InvalidInputError } from '../errors';

/** One item of GrowthBook's pre-launch checklist (its `checklistItems` schema). */
export interface ChecklistItem {
  key: string;
  required: boolean;
  status: 'complete' | 'incomplete';
  manual: boolean;
  reason: string;
}

/** A feature that references the experiment, with the variations its experiment rules give a value. */
export interface LinkedFeature {
  id: string;
  variationIds: string[];
}

/** A manual task of a launch checklist (GrowthBook's `completionType: "manual"`): its text is its key. */
export interface ManualTask {
  task: string;
  url?: string;
}

/** What the checklist needs to know besides the experiment itself. */
export interface ChecklistFacts {
  linkedFeatures: LinkedFeature[];
  sdkConnections: number;
  /** The manual tasks of the launch checklist the experiment follows (its project's, else its organization's). */
  manualTasks: ManualTask[];
  /** The keys of the manual tasks the experiment has marked complete. */
  completedTasks: string[];
}

/** The linked feature as the checklist sees it: the variations its rules for `experimentId` (any environment) give a value. */
export function linkedFeature(feature: { id: string; environments: Record<string, { rules: FeatureRule[] }> }, experimentId: string): LinkedFeature {
  const variationIds = Object.values(feature.environments).flatMap((env) =>
    env.rules.flatMap((rule) => (rule.type === 'experiment-ref' && rule.experimentId === experimentId ? rule.variations.map((v) => v.variationId) : [])),
  );
  return { id: feature.id, variationIds: [...new Set(variationIds)] };
}

const item = (key: string, complete: boolean, reason: string): ChecklistItem => ({
  key,
  required: true,
  status: complete ? 'complete' : 'incomplete',
  manual: false,
  reason,
});

/**
 * GrowthBook's start checklist, item by item: a linked change, a goal metric for a bandit, a phase,
 * an SDK connection, a value for every variation in each linked feature, then each manual task of
 * the configured launch checklist (required, complete once the experiment has marked it so).
 */
export function startChecklist(experiment: Experiment, facts: ChecklistFacts): ChecklistItem[] {
  const bandit = experiment.type === 'multi-armed-bandit';
  // Features are linked through their published rules, which are live: a bandit's stricter rule (live changes only) holds too.
  const linked = facts.linkedFeatures.length > 0 || !!experiment.hasVisualChangesets || !!experiment.hasURLRedirects;
  const items = [
    item(
      'linkedChanges',
      linked,
      bandit
        ? 'Add at least one live linked change before starting a bandit.'
        : 'Add at least one linked feature, visual changeset, or URL redirect before starting.',
    ),
    ...(bandit ? [item('banditGoalMetric', experiment.settings.goals.length > 0, 'Bandits require a goal metric before starting.')] : []),
    item('targeting', experiment.phases.length > 0, 'Configure at least one phase with assignment/targeting settings.'),
    item('sdkConnection', facts.sdkConnections > 0, 'Add an SDK connection before starting.'),
  ];
  // Only missing values make an item, as in GrowthBook: a feature with every value adds nothing.
  const split = experiment.phases.at(-1)?.trafficSplit ?? [];
  const variations = split.length ? split.map((s) => s.variationId) : experiment.variations.map((v) => v.variationId);
  for (const feature of facts.linkedFeatures) {
    if (variations.some((id) => !feature.variationIds.includes(id))) {
      items.push(item(`missingVariationValues:${feature.id}`, false, `Fill in missing variation values for linked feature ${feature.id} before starting.`));
    }
  }
  for (const { task } of facts.manualTasks) {
    items.push({
      ...item(task, facts.completedTasks.includes(task), `Required custom launch checklist item is incomplete: ${task}`),
      manual: true,
    });
  }
  return items;
}

/** `ready` when every required item is complete. */
export function checklistStatus(items: ChecklistItem[]): 'ready' | 'notReady' {
  return items.some((i) => i.required && i.status === 'incomplete') ? 'notReady' : 'ready';
}

/** The keys of the required items still incomplete. */
export function incompleteKeys(items: ChecklistItem[]): string[] {
  return items.filter((i) => i.required && i.status === 'incomplete').map((i) => i.key);
}

/** Raises GrowthBook's 400 `invalid_checklist_keys` unless every key names a manual task of the launch checklist. */
export function assertManualKeys(tasks: ManualTask[], keys: string[]): void {
  const invalid = keys.filter((key) => !tasks.some((task) => task.task === key));
  if (invalid.length) throw new InvalidInputError(`invalid_checklist_keys: ${invalid.join(', ')} are not manual checklist items`);
}

/** The experiment's completed task keys with `keys` added (each once, in the order first completed). */
export function withCompleted(completed: string[], keys: string[]): string[] {
  return [...new Set([...completed, ...keys])];
}

/**
 * The stopped experiment with its temporary rollout turned on (the released variation served to
 * everyone: the latest phase at full coverage) or off (the experiment leaves the SDK payload), as
 * GrowthBook's modifyTemporaryRollout.
 */
export function withTemporaryRollout(experiment: Experiment, enable: boolean, releasedVariationId: string | undefined): Experiment {
  if (experiment.status !== 'stopped') throw new ConflictError('invalid_status', 'Can only modify temporary rollout for stopped experiments');
  if (enable && !releasedVariationId) {
    throw new InvalidInputError('Request body: [releasedVariationId] is required when enableTemporaryRollout is true');
  }
  if (releasedVariationId && !experiment.variations.some((v) => v.variationId === releasedVariationId)) {
    throw new InvalidInputError(`Request body: [releasedVariationId] no variation of this experiment has the id ${releasedVariationId}`);
  }
  const summary = experiment.resultSummary ?? { status: '', winner: '', conclusions: '', releasedVariationId: '', excludeFromPayload: true };
  const last = experiment.phases.length - 1;
  return {
    ...experiment,
    phases: enable ? experiment.phases.map((phase, i) => (i === last ? { ...phase, coverage: 1 } : phase)) : experiment.phases,
    resultSummary: { ...summary, excludeFromPayload: !enable, ...(releasedVariationId ? { releasedVariationId } : {}) },
  };
}
