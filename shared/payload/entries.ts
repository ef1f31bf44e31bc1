import type { FeatureContent } from '../domain/features';
import { conditionGroupIds, targetingGroupIds } from './conditions';
import type { PayloadEntry, PayloadExperiment } from './types';

/** What the payload stores of a feature per environment, and what a set of stored entries names or waits for. */

/** What the payload of `environment` keeps of a feature; undefined when it is not served there (archived or off). */
export function payloadEntry(feature: FeatureContent, environment: string): PayloadEntry | undefined {
  const settings = feature.environments[environment];
  if (feature.archived || !settings?.enabled) return undefined;
  return {
    project: feature.project,
    valueType: feature.valueType,
    defaultValue: feature.defaultValue,
    rules: settings.rules.filter((rule) => rule.enabled),
    prerequisites: feature.prerequisites,
    ...(feature.tags.length ? { tags: feature.tags } : {}),
    ...(feature.customFields && Object.keys(feature.customFields).length ? { customFields: feature.customFields } : {}),
    ...(feature.holdout ? { holdout: feature.holdout } : {}),
  };
}

/** The entries an SDK connection with these projects is served (none means every project). */
export function entriesForProjects(entries: Record<string, PayloadEntry>, projects: string[]): PayloadEntry[] {
  return Object.values(entries).filter((entry) => projects.length === 0 || projects.includes(entry.project));
}

/**
 * The saved groups, experiments and namespaces some entries name, to be read before translating them. Groups
 * and namespaces an experiment's phase names are only known once the experiments are read: pass them as `experiments`.
 */
export function payloadReferenceIds(
  entries: PayloadEntry[],
  experiments: Iterable<PayloadExperiment> = [],
): { savedGroups: string[]; experiments: string[]; namespaces: string[] } {
  const groupIds = new Set<string>();
  const experimentIds = new Set<string>();
  const namespaceIds = new Set<string>();
  for (const entry of entries) {
    for (const rule of entry.rules) {
      targetingGroupIds(rule.savedGroupTargeting, groupIds);
      conditionGroupIds(rule.condition, groupIds);
      rule.prerequisites?.forEach((p) => conditionGroupIds(p.condition, groupIds));
      if (rule.type === 'experiment-ref') experimentIds.add(rule.experimentId);
      if (rule.type === 'experiment' && rule.namespace?.enabled && rule.namespace.name) namespaceIds.add(rule.namespace.name);
    }
  }
  for (const experiment of experiments) {
    for (const phase of experiment.phases?.slice(-1) ?? []) {
      targetingGroupIds(phase.savedGroupTargeting, groupIds);
      conditionGroupIds(phase.targetingCondition, groupIds);
      phase.prerequisites?.forEach((p) => conditionGroupIds(p.condition, groupIds));
      if (phase.namespace?.enabled && phase.namespace.namespaceId) namespaceIds.add(phase.namespace.namespaceId);
    }
  }
  return { savedGroups: [...groupIds], experiments: [...experimentIds], namespaces: [...namespaceIds] };
}

/** The dated schedule steps of some entries' rules, as ISO timestamps: the moments their payload changes by itself. */
export function scheduleBoundaries(entries: PayloadEntry[]): string[] {
  const dates = new Set<string>();
  for (const entry of entries) {
    for (const rule of entry.rules) {
      for (const step of rule.scheduleRules ?? []) {
        if (step.timestamp && !Number.isNaN(Date.parse(step.timestamp))) dates.add(new Date(step.timestamp).toISOString());
      }
    }
  }
  return [...dates].sort();
}
