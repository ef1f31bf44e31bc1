import { InvalidInputError } from '../errors';
import { featureReferences, findCycle, prerequisiteIds, type FeatureContent, type StoredFeature } from '../domain/features';
import type { KnownReferences } from '../payload/types';
import { experiments } from '../store/experiments';
import { features } from '../store/features';
import { savedGroups } from '../store/saved-groups';

/**
 * Refuses references a change introduces to things that do not exist (prerequisite features, saved
 * groups, experiments; 400 naming the field) and prerequisites that would form a cycle. References
 * `current` already had are not re-checked, so a later deletion elsewhere does not block unrelated edits.
 * Returns the saved groups and experiments it read, for `presentFeatures`.
 */
export async function assertReferencesValid(orgId: string, feature: FeatureContent, current?: FeatureContent): Promise<KnownReferences> {
  const refs = featureReferences(feature);
  const before = current ? featureReferences(current) : undefined;
  const added = (kind: 'features' | 'savedGroups' | 'experiments') => new Map([...refs[kind]].filter(([id]) => !before?.[kind].has(id)));
  const [newFeatures, newGroups, newExperiments] = [added('features'), added('savedGroups'), added('experiments')];
  const selfReference = refs.features.get(feature.id);
  if (selfReference) throw new InvalidInputError(`Request body: [${selfReference}] a feature cannot be its own prerequisite`);
  const [parents, groups, found] = await Promise.all([
    features.getMany(orgId, [...newFeatures.keys()]),
    savedGroups.getMany(orgId, [...newGroups.keys()]),
    experiments.getMany(orgId, [...refs.experiments.keys()]),
  ]);
  const assertFound = (wanted: Map<string, string>, present: Array<{ id: string }>, what: string) => {
    const ids = new Set(present.map((item) => item.id));
    for (const [id, field] of wanted) {
      if (!ids.has(id)) throw new InvalidInputError(`Request body: [${field}] ${what} ${id} does not exist`);
    }
  };
  assertFound(newFeatures, parents, 'feature');
  assertFound(newGroups, groups, 'saved group');
  assertFound(newExperiments, found, 'experiment');
  assertVariationsKnown(feature, found);
  // Only a new prerequisite can close a cycle.
  if (newFeatures.size) await assertNoCycle(orgId, feature, await features.getMany(orgId, [...refs.features.keys()]));
  return { savedGroups: groups, experiments: found };
}

/** An experiment-ref rule may only give values for variations its experiment has. */
function assertVariationsKnown(feature: FeatureContent, found: Array<{ id: string; variations?: Array<{ variationId: string }> }>): void {
  const variationsOf = new Map(found.map((experiment) => [experiment.id, new Set((experiment.variations ?? []).map((v) => v.variationId))]));
  for (const [env, settings] of Object.entries(feature.environments)) {
    settings.rules.forEach((rule, i) => {
      if (rule.type !== 'experiment-ref') return;
      const known = variationsOf.get(rule.experimentId);
      rule.variations.forEach((variation, j) => {
        if (known && !known.has(variation.variationId)) {
          throw new InvalidInputError(
            `Request body: [environments.${env}.rules.${i}.variations.${j}.variationId] experiment ${rule.experimentId} has no variation ${variation.variationId}`,
          );
        }
      });
    });
  }
}

/** Walks the prerequisite graph from the feature's prerequisites, one batch read per level. */
async function assertNoCycle(orgId: string, feature: FeatureContent, parents: StoredFeature[]): Promise<void> {
  const graph = new Map<string, string[]>([[feature.id, prerequisiteIds(feature)]]);
  let frontier = parents;
  while (frontier.length) {
    for (const parent of frontier) graph.set(parent.id, prerequisiteIds(parent));
    const unseen = [...new Set(frontier.flatMap((parent) => graph.get(parent.id)!))].filter((id) => !graph.has(id));
    frontier = unseen.length ? await features.getMany(orgId, unseen) : [];
    for (const id of unseen) if (!graph.has(id)) graph.set(id, []);
  }
  const cycle = findCycle(feature.id, (id) => graph.get(id) ?? []);
  if (cycle) throw new InvalidInputError(`Request body: [prerequisites] would form a cycle: ${cycle.join(' -> ')}`);
}
