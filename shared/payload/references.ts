import type { Experiment } from '../contracts/experiments';
import type { SavedGroup } from '../contracts/saved-groups';
import type { StoredNamespace } from '../contracts/namespaces';
import { payloadReferenceIds } from './entries';
import type { AttributeDatatype, KnownReferences, PayloadEntry, PayloadExperiment, PayloadReferences } from './types';
import { attributes } from '../store/attributes';
import { readAttributeTypes } from '../store/attribute-types';
import { keys } from '../db/keys';
import { namespaces } from '../store/namespaces';
import { getItems, toEntity } from '../db/repository';
import { savedGroups } from '../store/saved-groups';

/**
 * What an SDK payload reads besides its feature entries: the saved groups, experiments and namespaces
 * the entries' rules name (and the groups and namespaces the experiments' phases name), and the
 * attribute types, read fresh whenever a payload is built. One BatchGet after the entries, whatever
 * their number (groups, experiments, namespaces, the attribute-types item, and the environment when
 * asked), and a second only for groups and namespaces that only experiments' phases name.
 */

/** Reads the saved groups, experiments and attribute types some payload entries need, except those already `known` (`attributes` reads the types in any case). With `environment`, also whether it exists and its projects. */
export async function loadPayloadReferences(
  orgId: string,
  entries: PayloadEntry[],
  known: KnownReferences = {},
  options: { attributes?: boolean; environment?: string } = {},
): Promise<PayloadReferences & { dates: string[]; environmentExists: boolean; environmentProjects?: string[] }> {
  const knownGroups = new Map((known.savedGroups ?? []).map((group) => [group.id, group]));
  const knownExperiments = new Map((known.experiments ?? []).map((experiment) => [experiment.id, experiment]));
  const ids = payloadReferenceIds(entries);
  const unread = (wanted: string[], have: Map<string, unknown>) => wanted.filter((id) => !have.has(id));
  const groupIds = unread(ids.savedGroups, knownGroups);
  const experimentIds = unread(ids.experiments, knownExperiments);
  // Attribute types matter where saved groups can appear, and to hash secure values: skip the read otherwise.
  const needsAttributes = !known.attributes && (options.attributes || ids.savedGroups.length > 0 || ids.experiments.length > 0);
  const wanted = [
    ...groupIds.map((id) => keys.entity(orgId, 'SAVED_GROUP', id)),
    ...experimentIds.map((id) => keys.entity(orgId, 'EXPERIMENT', id)),
    ...ids.namespaces.map((id) => keys.entity(orgId, 'NAMESPACE', id)),
    ...(needsAttributes ? [keys.attributeTypes(orgId)] : []),
    ...(options.environment ? [keys.entity(orgId, 'ENVIRONMENT', options.environment)] : []),
  ];
  const items = wanted.length ? await getItems(wanted) : [];
  const read = (from: number, count: number) => items.slice(from, from + count).flatMap((item) => (item ? [toEntity<any>(item)] : []));
  const readGroups: SavedGroup[] = read(0, groupIds.length);
  const readExperiments: Experiment[] = read(groupIds.length, experimentIds.length);
  let after = groupIds.length + experimentIds.length;
  const ruleNamespaces: StoredNamespace[] = read(after, ids.namespaces.length);
  after += ids.namespaces.length;
  const typesItem = needsAttributes ? items[after++] : undefined;
  const environmentItem = options.environment ? items[after] : undefined;
  const environmentExists = options.environment ? environmentItem !== undefined : true;
  const found = [...ids.experiments.flatMap((id) => knownExperiments.get(id) ?? []), ...readExperiments];
  const groups = [...ids.savedGroups.flatMap((id) => knownGroups.get(id) ?? []), ...readGroups];
  // The groups only the experiments' phases name: known now that the experiments are read.
  const phaseIds = unread(payloadReferenceIds([], found).savedGroups, new Map(groups.map((group) => [group.id, group])));
  const phaseUnread = phaseIds.filter((id) => !knownGroups.has(id));
  // Likewise the namespaces only the phases name, read in the same round.
  const phaseNamespaceIds = payloadReferenceIds([], found).namespaces.filter((id) => !ids.namespaces.includes(id));
  // An organization whose attribute-types item is not complete yet (see attribute-types.ts) has its attributes read whole.
  const types = needsAttributes ? readAttributeTypes(typesItem) : undefined;
  const [fromPhases, phaseNamespaces, allAttributes] = await Promise.all([
    savedGroups.getMany(orgId, phaseUnread),
    phaseNamespaceIds.length ? namespaces.getMany(orgId, phaseNamespaceIds) : [],
    needsAttributes && !types ? attributes.all(orgId) : (known.attributes ?? []),
  ]);
  const allGroups = [...groups, ...phaseIds.flatMap((id) => knownGroups.get(id) ?? []), ...fromPhases];
  const allNamespaces = [...ruleNamespaces, ...phaseNamespaces];
  return {
    savedGroups: new Map(allGroups.map((group) => [group.id, group])),
    experiments: new Map(found.map((experiment) => [experiment.id, experiment satisfies PayloadExperiment])),
    attributes: types ?? new Map(allAttributes.map((attribute) => [attribute.property, attribute.datatype as AttributeDatatype])),
    namespaces: new Map(allNamespaces.map((ns) => [ns.id, ns])),
    dates: [...allGroups, ...found, ...allNamespaces].map((item) => item.dateUpdated),
    environmentExists,
    // The projects the environment limits its connections to (none: no limit).
    environmentProjects: environmentItem ? (toEntity<{ projects?: string[] }>(environmentItem).projects ?? []) : undefined,
  };
}
