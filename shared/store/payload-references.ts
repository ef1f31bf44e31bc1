import type { Experiment } from '../contracts/experiments';
import type { SavedGroup } from '../contracts/saved-groups';
import {
  payloadReferenceIds,
  type AttributeDatatype,
  type PayloadEntry,
  type PayloadExperiment,
  type PayloadReferences,
} from '../domain/sdk-payload';
import { attributes } from './attributes';
import { experiments } from './experiments';
import { namespaces } from './namespaces';
import { savedGroups } from './saved-groups';

/**
 * What an SDK payload reads besides its feature entries: the saved groups, experiments and namespaces
 * the entries' rules name (and the groups and namespaces the experiments' phases name), and the
 * attribute types, read fresh whenever a payload is built. At most two round trips after the entries,
 * whatever their number: experiments, rule groups, rule namespaces and attributes at once, then the
 * groups and namespaces only phases name.
 */

/** Saved groups and experiments already read in this request, which `loadPayloadReferences` need not read again. */
export interface KnownReferences {
  savedGroups?: SavedGroup[];
  experiments?: Experiment[];
}

/** Reads the saved groups, experiments and attribute types some payload entries need, except those already `known` (`attributes` reads the types in any case). */
export async function loadPayloadReferences(
  orgId: string,
  entries: PayloadEntry[],
  known: KnownReferences = {},
  options: { attributes?: boolean } = {},
): Promise<PayloadReferences & { dates: string[] }> {
  const knownGroups = new Map((known.savedGroups ?? []).map((group) => [group.id, group]));
  const knownExperiments = new Map((known.experiments ?? []).map((experiment) => [experiment.id, experiment]));
  const ids = payloadReferenceIds(entries);
  const unread = (wanted: string[], have: Map<string, unknown>) => wanted.filter((id) => !have.has(id));
  const groupIds = unread(ids.savedGroups, knownGroups);
  const experimentIds = unread(ids.experiments, knownExperiments);
  // Attribute types matter where saved groups can appear, and to hash secure values: skip the read otherwise.
  const needsAttributes = options.attributes || ids.savedGroups.length > 0 || ids.experiments.length > 0;
  const [readGroups, readExperiments, allAttributes, ruleNamespaces] = await Promise.all([
    groupIds.length ? savedGroups.getMany(orgId, groupIds) : [],
    experimentIds.length ? experiments.getMany(orgId, experimentIds) : [],
    needsAttributes ? attributes.all(orgId) : [],
    ids.namespaces.length ? namespaces.getMany(orgId, ids.namespaces) : [],
  ]);
  const found = [...ids.experiments.flatMap((id) => knownExperiments.get(id) ?? []), ...readExperiments];
  const groups = [...ids.savedGroups.flatMap((id) => knownGroups.get(id) ?? []), ...readGroups];
  // The groups only the experiments' phases name: known now that the experiments are read.
  const phaseIds = unread(payloadReferenceIds([], found).savedGroups, new Map(groups.map((group) => [group.id, group])));
  // Likewise the namespaces only the phases name, read in the same round.
  const phaseNamespaceIds = payloadReferenceIds([], found).namespaces.filter((id) => !ids.namespaces.includes(id));
  const [phaseGroups, phaseNamespaces] = await Promise.all([
    savedGroups.getMany(orgId, phaseIds.filter((id) => !knownGroups.has(id))),
    phaseNamespaceIds.length ? namespaces.getMany(orgId, phaseNamespaceIds) : [],
  ]);
  const fromPhases = [...phaseIds.flatMap((id) => knownGroups.get(id) ?? []), ...phaseGroups];
  const allNamespaces = [...ruleNamespaces, ...phaseNamespaces];
  const allGroups = [...groups, ...fromPhases];
  return {
    savedGroups: new Map(allGroups.map((group) => [group.id, group])),
    experiments: new Map(found.map((experiment) => [experiment.id, experiment satisfies PayloadExperiment])),
    attributes: new Map(allAttributes.map((attribute) => [attribute.property, attribute.datatype as AttributeDatatype])),
    namespaces: new Map(allNamespaces.map((ns) => [ns.id, ns])),
    dates: [...allGroups, ...found, ...allNamespaces].map((item) => item.dateUpdated),
  };
}
