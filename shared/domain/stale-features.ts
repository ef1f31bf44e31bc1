import type { Experiment } from '../contracts/experiments';
import type { FeatureRule } from '../contracts/features';
import { prerequisiteIds, type StoredFeature } from './features';

// GrowthBook's staleness heuristic (isFeatureStale in its shared/util/features) and the value a
// stale flag should be replaced by in each environment (getStaleFeatures).

/** A feature not changed for two weeks may be stale. */
const STALE_AFTER_MS = 14 * 24 * 60 * 60 * 1000;

type ExperimentLike = Pick<Experiment, 'id' | 'archived' | 'status' | 'phases' | 'variations' | 'resultSummary'>;

/** Whether an experiment is served in SDK payloads: running, or stopped with a released variation. */
export function experimentServed(experiment: ExperimentLike): boolean {
  if (experiment.archived || experiment.status === 'draft' || experiment.resultSummary?.excludeFromPayload) return false;
  return experiment.status === 'running' || !!experiment.resultSummary?.releasedVariationId;
}

const targeted = (rule: FeatureRule) =>
  (!!rule.condition && rule.condition.trim() !== '{}') || (rule.savedGroupTargeting?.length ?? 0) > 0;

/** Every rule gives everyone the same value: force rules and full rollouts, none of them targeted. */
export function oneSided(rules: FeatureRule[]): boolean {
  return rules.every((rule) => {
    if (rule.type === 'force') return !targeted(rule);
    if (rule.type === 'rollout') return rule.coverage === 1 && !targeted(rule);
    return true;
  });
}

export type StaleReason = 'no-rules' | 'rules-one-sided';

/**
 * Whether `feature` is stale: unchanged for two weeks, no feature that depends on it is fresh, no
 * served experiment depends on it or is referenced by its rules, and its enabled rules (in enabled
 * environments) are none or one-sided. `features` and `experiments` are the ones to look at for
 * dependents and references.
 */
export function isFeatureStale(
  feature: StoredFeature,
  features: StoredFeature[],
  experiments: ExperimentLike[],
  now: number,
): { stale: boolean; reason?: StaleReason } {
  const byId = new Map(features.map((f) => [f.id, f]));
  const experimentById = new Map(experiments.map((e) => [e.id, e]));
  const visited = new Set<string>();
  const visit = (current: StoredFeature): { stale: boolean; reason?: StaleReason } => {
    if (visited.has(current.id)) return { stale: false };
    visited.add(current.id);
    if (now - new Date(current.dateUpdated).getTime() <= STALE_AFTER_MS) return { stale: false };
    const dependents = features.filter((f) => f.id !== current.id && prerequisiteIds(f).includes(current.id));
    if (dependents.some((f) => !visit(byId.get(f.id)!).stale)) return { stale: false };
    const dependentExperiments = experiments.filter((e) => (e.phases.at(-1)?.prerequisites ?? []).some((p) => p.id === current.id));
    if (dependentExperiments.some(experimentServed)) return { stale: false };
    const rules = Object.values(current.environments)
      .filter((settings) => settings.enabled)
      .flatMap((settings) => settings.rules)
      .filter((rule) => rule.enabled);
    if (rules.length === 0) return { stale: true, reason: 'no-rules' };
    const linked = rules.flatMap((rule) => (rule.type === 'experiment-ref' ? [experimentById.get(rule.experimentId)] : []));
    if (linked.some((e) => e && experimentServed(e))) return { stale: false };
    return oneSided(rules) ? { stale: true, reason: 'rules-one-sided' } : { stale: false };
  };
  return visit(feature);
}

/**
 * The value code should keep when a stale flag is removed, in one environment: null where the
 * feature is off (or archived without a deciding rule, since the fallback in code is unknown), the
 * first enabled force rule or full rollout, a stopped experiment's released (or winning) variation,
 * else the default value.
 */
export function effectiveValue(feature: StoredFeature, environment: string, experimentById: Map<string, ExperimentLike>): string | null {
  const settings = feature.environments[environment];
  if (!settings?.enabled) return null;
  for (const rule of settings.rules) {
    if (rule.type === 'experiment-ref') {
      const experiment = experimentById.get(rule.experimentId);
      if (experiment?.status !== 'stopped') continue;
      const chosen = experiment.resultSummary?.releasedVariationId || experiment.resultSummary?.winner;
      const value = chosen ? rule.variations.find((v) => v.variationId === chosen)?.value : undefined;
      if (value !== undefined && value !== '') return value;
      continue;
    }
    if (!rule.enabled) continue;
    if (rule.type === 'force') return rule.value;
    if (rule.type === 'rollout' && rule.coverage === 1) return rule.value;
  }
  return feature.archived ? null : feature.defaultValue;
}
