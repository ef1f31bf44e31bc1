import type { Experiment } from '../contracts/experiments';
import type { SavedGroup } from '../contracts/saved-groups';
import { payloadReferenceIds, type PayloadEntry, type PayloadExperiment, type PayloadReferences } from '../domain/sdk-payload';
import { experiments } from './experiments';
import { savedGroups } from './saved-groups';

/**
 * What an SDK payload reads besides its feature entries: the saved groups and experiments the
 * entries' rules name, read fresh whenever a payload is built.
 */

/** Saved groups and experiments already read in this request, which `loadPayloadReferences` need not read again. */
export interface KnownReferences {
  savedGroups?: SavedGroup[];
  experiments?: Experiment[];
}

/** Reads the saved groups and experiments some payload entries name, except those already `known`. */
export async function loadPayloadReferences(
  orgId: string,
  entries: PayloadEntry[],
  known: KnownReferences = {},
): Promise<PayloadReferences & { dates: string[] }> {
  const ids = payloadReferenceIds(entries);
  const knownGroups = new Map((known.savedGroups ?? []).map((group) => [group.id, group]));
  const knownExperiments = new Map((known.experiments ?? []).map((experiment) => [experiment.id, experiment]));
  const groupIds = ids.savedGroups.filter((id) => !knownGroups.has(id));
  const experimentIds = ids.experiments.filter((id) => !knownExperiments.has(id));
  const [readGroups, readExperiments] = await Promise.all([
    groupIds.length ? savedGroups.getMany(orgId, groupIds) : [],
    experimentIds.length ? experiments.getMany(orgId, experimentIds) : [],
  ]);
  const groups = [...ids.savedGroups.flatMap((id) => knownGroups.get(id) ?? []), ...readGroups];
  const found = [...ids.experiments.flatMap((id) => knownExperiments.get(id) ?? []), ...readExperiments];
  return {
    savedGroups: new Map(groups.map((group) => [group.id, group])),
    experiments: new Map(found.map((experiment) => [experiment.id, experiment satisfies PayloadExperiment])),
    dates: [...groups, ...found].map((item) => item.dateUpdated),
  };
}
