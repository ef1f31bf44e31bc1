import { startEarly } from '../concurrency';
import { ConflictError, InvalidInputError } from '../errors';
import type { StoredNamespace } from '../contracts/namespaces';
import { experiments } from './experiments';
import { prepareTouch } from '../payload/write';
import { repository } from '../db/repository';

export const namespaces = repository<StoredNamespace>({
  type: 'NAMESPACE',
  label: 'Namespace',
  // SDK payloads hash namespace ranges with the definition's seed and attribute.
  touch: (orgId, { id }) => [prepareTouch(orgId, id)],
});

/** Raises 409 when another namespace of the organization already has this display name (GrowthBook keeps them unique). */
export async function assertDisplayNameFree(orgId: string, displayName: string, except?: string): Promise<void> {
  const taken = (await namespaces.all(orgId)).find((ns) => ns.displayName.toLowerCase() === displayName.toLowerCase() && ns.id !== except);
  if (taken) throw new ConflictError('already_exists', `Request body: [displayName] namespace ${taken.id} is already named ${displayName}`);
}

/** Deletes a namespace; 409 while an experiment's phase uses it (one query of the experiments' list index). */
export async function removeNamespace(orgId: string, id: string): Promise<void> {
  // Read alongside the namespace, but looked at only once it is found (an unknown namespace is a 404).
  const using = startEarly(experiments.list(orgId, { limit: 1, offset: 0, tags: [`namespace:${id}`] }));
  await namespaces.remove(orgId, id, async () => {
    const { items, total } = await using;
    if (total > 0) {
      throw new ConflictError('conflict', `Namespace ${id} is used by ${total} experiment(s), e.g. ${items[0]?.id}; remove it from their phases first`);
    }
  });
}

/** A multiRange namespace assigns users by an attribute, so it needs one; a legacy namespace has none. */
export function assertHashAttribute(format: StoredNamespace['format'], hashAttribute: string | undefined): void {
  if (format === 'multiRange' && !hashAttribute) throw new InvalidInputError("Request body: [hashAttribute] is required when format is 'multiRange'");
  if (format === 'legacy' && hashAttribute) throw new InvalidInputError("Request body: [hashAttribute] only applies to multiRange namespaces");
}

/** The experiments any of whose phases names the namespace, in creation order (a keys-only query of the list index, then their items). */
export async function namespaceUsers(orgId: string, id: string) {
  return experiments.allTagged(orgId, [`namespace:${id}`]);
}
