import { randomBytes } from 'node:crypto';
import type { Experiment } from '../contracts/experiments';
import type { Namespace, NamespaceExperimentMember, StoredNamespace } from '../contracts/namespaces';

/** A namespace as the API shows it (GrowthBook's shape has no dates). */
export function toApiNamespace({ dateCreated: _created, dateUpdated: _updated, ...namespace }: StoredNamespace): Namespace {
  return namespace;
}

/** A new hashing seed for a multiRange namespace. */
export const newSeed = () => randomBytes(8).toString('hex');

/** The ranges a phase's namespace claims: its `ranges`, or its single `range`. */
function claimedRanges(namespace: { range?: [number, number]; ranges?: Array<[number, number]> }): Array<[number, number]> {
  if (namespace.ranges?.length) return namespace.ranges;
  return namespace.range ? [namespace.range] : [];
}

/** The experiments whose latest phase uses the namespace (enabled), in the order given, as GrowthBook lists its members. */
export function namespaceMembers(experiments: Experiment[], namespaceId: string): NamespaceExperimentMember[] {
  return experiments.flatMap((experiment) => {
    const namespace = experiment.phases.at(-1)?.namespace;
    if (!namespace?.enabled || namespace.namespaceId !== namespaceId) return [];
    const { id, name, trackingKey, status } = experiment;
    return [{ id, name, trackingKey, status, ranges: claimedRanges(namespace) }];
  });
}
