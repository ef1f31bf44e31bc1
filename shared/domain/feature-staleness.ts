import type { StaleReason } from '../contracts/features-v2';
import type { FeatureRule } from '../contracts/features';
import type { StoredFeature } from './features';
import { experimentServed, oneSided } from './stale-features';

// GrowthBook 5's stale-flag verdict per feature and per environment (isFeatureStale in its
// shared/util/features, as `GET /stale-features` answers it), on Switchyard's per-environment rules.

type ExperimentLike = Parameters<typeof experimentServed>[0] & { phases: Array<{ prerequisites?: Array<{ id: string }> }> };

const DAY_MS = 24 * 60 * 60 * 1000;
/** Not changed for two weeks: old enough to be stale. */
const STALE_AFTER_MS = 14 * DAY_MS;
/** A draft touched within a month is being worked on; older, it is abandoned. */
const ACTIVE_DRAFT_MS = 30 * DAY_MS;

/** The verdict in one environment, and what the flag evaluates to there when it is stale. */
export interface EnvironmentVerdict {
  isStale: boolean;
  reason: Exclude<StaleReason, 'never-stale'> | null;
  evaluatesTo?: string;
}

/** The verdict for a feature, as `GET /stale-features` answers it. */
export interface StaleVerdict {
  featureId: string;
  isStale: boolean;
  staleReason: StaleReason | null;
  neverStale: boolean;
  staleByEnv?: Record<string, EnvironmentVerdict>;
}

/** What the verdict looks at besides the feature. */
export interface StalenessContext {
  /** Every feature of the organization (dependents are found among them). */
  features: StoredFeature[];
  experiments: ExperimentLike[];
  /** The environments that apply to each feature (GrowthBook leaves out environments of other projects). */
  environmentsOf: (feature: StoredFeature) => string[];
  now: number;
  /** When each feature's newest open draft was last changed, where it has one. */
  lastDraftChange?: (featureId: string) => number | undefined;
}

const targeted = (rule: FeatureRule) =>
  (!!rule.condition && rule.condition.trim() !== '' && rule.condition.trim() !== '{}') ||
  (rule.savedGroupTargeting?.length ?? 0) > 0 ||
  (rule.prerequisites?.length ?? 0) > 0;

/** A rule everyone who reaches it gets: the rules after it are never evaluated. */
const catchesAll = (rule: FeatureRule) => !targeted(rule) && (rule.type === 'force' || (rule.type === 'rollout' && rule.coverage === 1));

/** Whether `dependent` needs `featureId` on in `env`: a feature-level prerequisite, or an enabled rule's there. */
const dependsIn = (dependent: StoredFeature, featureId: string, env: string) =>
  dependent.prerequisites.includes(featureId) ||
  (dependent.environments[env]?.rules ?? []).some((rule) => rule.enabled && rule.prerequisites?.some((p) => p.id === featureId));

const dependsAnywhere = (dependent: StoredFeature, featureId: string) =>
  dependent.prerequisites.includes(featureId) ||
  Object.values(dependent.environments).some((settings) => settings.rules.some((rule) => rule.prerequisites?.some((p) => p.id === featureId)));

/** When environments disagree, the reason named for the whole feature. */
const REASON_PRIORITY: StaleReason[] = ['abandoned-draft', 'no-rules', 'rules-one-sided'];

function overallReason(reasons: Array<StaleReason | null>): StaleReason | null {
  const named = reasons.filter((reason): reason is StaleReason => reason !== null);
  if (!named.length) return null;
  if (named.every((reason) => reason === named[0])) return named[0]!;
  return REASON_PRIORITY.find((reason) => named.includes(reason)) ?? named[0]!;
}

/**
 * GrowthBook's stale verdict: per environment (toggled off, no rules, one-sided rules, an active
 * experiment, dependents there), then for the feature: recently updated, an active draft, dependents
 * that are not stale, or stale when every enabled environment is.
 */
export function staleVerdict(feature: StoredFeature, context: StalenessContext): StaleVerdict {
  const experimentById = new Map(context.experiments.map((experiment) => [experiment.id, experiment]));
  const visited = new Set<string>();

  const visit = (current: StoredFeature, root: boolean): { isStale: boolean; reason: StaleReason | null; byEnv: Record<string, EnvironmentVerdict> } => {
    if (visited.has(current.id)) return { isStale: false, reason: null, byEnv: {} };
    visited.add(current.id);
    const dependents = context.features.filter((other) => other.id !== current.id && dependsAnywhere(other, current.id));
    const liveDependents = dependents.filter((other) => !visit(other, false).isStale);
    const dependentExperiments = context.experiments.filter((e) => (e.phases.at(-1)?.prerequisites ?? []).some((p) => p.id === current.id));
    const servedDependentExperiment = dependentExperiments.some(experimentServed);

    const byEnv: Record<string, EnvironmentVerdict> = {};
    for (const env of context.environmentsOf(current)) {
      const settings = current.environments[env];
      if (!settings?.enabled) {
        byEnv[env] = { isStale: true, reason: 'toggled-off', evaluatesTo: 'null' };
        continue;
      }
      const rules = settings.rules.filter((rule) => rule.enabled);
      const neededHere = servedDependentExperiment || liveDependents.some((other) => dependsIn(other, current.id, env));
      if (rules.length === 0) {
        byEnv[env] = neededHere
          ? { isStale: false, reason: 'has-dependents', evaluatesTo: current.defaultValue }
          : { isStale: true, reason: 'no-rules', evaluatesTo: current.defaultValue };
        continue;
      }
      let activeExperiment = false;
      for (const rule of rules) {
        if (catchesAll(rule)) break;
        if (rule.type === 'experiment-ref') {
          const experiment = experimentById.get(rule.experimentId);
          if (experiment && experimentServed(experiment)) {
            activeExperiment = true;
            break;
          }
        }
      }
      if (activeExperiment) {
        byEnv[env] = { isStale: false, reason: 'active-experiment' };
        continue;
      }
      if (oneSided(rules)) {
        const first = rules.find((rule) => rule.type === 'force' || rule.type === 'rollout');
        const evaluatesTo = first && 'value' in first && typeof first.value === 'string' ? first.value : current.defaultValue;
        byEnv[env] = neededHere ? { isStale: false, reason: 'has-dependents', evaluatesTo } : { isStale: true, reason: 'rules-one-sided', evaluatesTo };
        continue;
      }
      byEnv[env] = { isStale: false, reason: 'has-rules' };
    }

    if (context.now - Date.parse(current.dateUpdated) <= STALE_AFTER_MS) return { isStale: false, reason: 'recently-updated', byEnv };
    const lastDraft = root ? context.lastDraftChange?.(current.id) : undefined;
    if (lastDraft !== undefined && context.now - lastDraft <= ACTIVE_DRAFT_MS) return { isStale: false, reason: 'active-draft', byEnv };
    if (liveDependents.length || servedDependentExperiment) return { isStale: false, reason: 'has-dependents', byEnv };
    // An environment toggled off is off, not stale: only the enabled ones decide.
    const active = Object.values(byEnv).filter((verdict) => verdict.reason !== 'toggled-off');
    const isStale = active.length > 0 && active.every((verdict) => verdict.isStale);
    if (!isStale) return { isStale, reason: null, byEnv };
    return { isStale, reason: lastDraft !== undefined ? 'abandoned-draft' : overallReason(active.map((verdict) => verdict.reason)), byEnv };
  };

  const { isStale, reason, byEnv } = visit(feature, true);
  return {
    featureId: feature.id,
    isStale,
    staleReason: reason,
    // Switchyard has no per-feature "never stale" setting.
    neverStale: false,
    ...(Object.keys(byEnv).length ? { staleByEnv: byEnv } : {}),
  };
}
