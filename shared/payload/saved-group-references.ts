import { groupValues } from './conditions';
import { hashSecure } from './hashing';
import type { PayloadReferences, SdkFeature } from './types';

/**
 * Saved groups sent by reference, as GrowthBook does for connections with
 * `savedGroupReferencesEnabled`: conditions keep `$inGroup` / `$notInGroup` with the group's id, and
 * the payload carries each group's values once, in a top-level `savedGroups` map, which SDKs look
 * the ids up in. A group used by many rules is then sent once instead of once per rule.
 */

/** The values of each saved group, by id, as SDKs read the payload's `savedGroups`. */
export type SavedGroupValues = Record<string, Array<string | number>>;

/** Calls `visit` with the group id of every `$inGroup` / `$notInGroup` below `node`. */
export function walkGroupIds(node: unknown, visit: (id: string) => void): void {
  if (Array.isArray(node)) node.forEach((item) => walkGroupIds(item, visit));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string') visit(value);
      else walkGroupIds(value, visit);
    }
  }
}

/** The ids of the groups the rules of `features` reference, in code-point order. */
export function referencedGroupIds(features: Record<string, SdkFeature>): string[] {
  const ids = new Set<string>();
  for (const feature of Object.values(features)) {
    for (const rule of feature.rules ?? []) {
      walkGroupIds(rule.condition, (id) => ids.add(id));
      walkGroupIds(rule.parentConditions, (id) => ids.add(id));
    }
  }
  return [...ids].sort((a, b) => (a < b ? -1 : 1));
}

/**
 * The `savedGroups` map for the groups `features` reference: each list group's values (numbers
 * for a number attribute; hashed with `secureAttributeSalt` for a secure one, as the conditions
 * comparing with them are). A referenced group that no longer exists is sent empty, so it matches nobody.
 */
export function savedGroupValues(
  features: Record<string, SdkFeature>,
  refs: PayloadReferences,
  secureAttributeSalt?: string,
): SavedGroupValues {
  const map: SavedGroupValues = {};
  for (const id of referencedGroupIds(features)) {
    const group = refs.savedGroups.get(id);
    if (!group) {
      map[id] = [];
      continue;
    }
    const datatype = refs.attributes?.get(group.attributeKey ?? 'id');
    const secure = secureAttributeSalt !== undefined && (datatype === 'secureString' || datatype === 'secureString[]');
    map[id] = secure ? (group.values ?? []).map((value) => hashSecure(secureAttributeSalt, value)) : groupValues(group, refs.attributes);
  }
  return map;
}
