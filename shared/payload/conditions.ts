import type { FeatureRule } from '../contracts/features';
import type { Condition, ParentCondition, PayloadGroup, PayloadReferences } from './types';

/**
 * Targeting conditions as the payload sends them: parsed from their stored text, with the saved
 * groups they target inlined (or, for `savedGroupReferencesEnabled`, left as references).
 */

const parseCondition = (text: string | undefined): Condition | undefined => {
  if (!text || !text.trim()) return undefined;
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/** Calls `visit` with every key and value of a parsed condition, at any depth. */
function walkCondition(node: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) node.forEach((item) => walkCondition(item, visit));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      visit(key, value);
      walkCondition(value, visit);
    }
  }
}

/** Saved-group ids a condition names with `$inGroup`, `$notInGroup` or `$savedGroups`. */
export function conditionGroupIds(text: string | undefined, into: Set<string>): void {
  walkCondition(parseCondition(text), (key, value) => {
    if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string') into.add(value);
    if (key === '$savedGroups' && Array.isArray(value)) value.forEach((id) => typeof id === 'string' && into.add(id));
  });
}

/** Saved-group ids a rule or phase targets with `savedGroupTargeting`. */
export function targetingGroupIds(targeting: FeatureRule['savedGroupTargeting'], into: Set<string>): void {
  targeting?.forEach(({ savedGroups }) => savedGroups.forEach((id) => into.add(id)));
}

/** A list group's values, as numbers when its attribute is a number (as GrowthBook sends them). */
export function groupValues(group: PayloadGroup, attributes: PayloadReferences['attributes']): Array<string | number> {
  const values = group.values ?? [];
  return attributes?.get(group.attributeKey ?? 'id') === 'number' ? values.map((value) => parseFloat(value)) : values;
}

/** A group as a condition: a list group is `$inGroup` (resolved by `resolveGroups`), a condition group its condition. */
function groupCondition(group: PayloadGroup): Condition {
  if (group.type === 'list') return { [group.attributeKey ?? 'id']: { $inGroup: group.id } };
  return parseCondition(group.condition) ?? {};
}

function negatedGroupCondition(group: PayloadGroup): Condition {
  if (group.type === 'list') return { [group.attributeKey ?? 'id']: { $notInGroup: group.id } };
  return { $not: parseCondition(group.condition) ?? {} };
}

/**
 * A condition with every saved-group reference resolved against `groups`: `$inGroup` / `$notInGroup`
 * become `$in` / `$nin` of the group's values, `$savedGroups: [ids]` the AND of the groups' conditions.
 * A group that does not exist is an empty group.
 */
function resolveGroups(node: unknown, refs: PayloadReferences): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveGroups(item, refs));
  if (!node || typeof node !== 'object') return node;
  const out: Condition = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string' && refs.groupReferences) {
      out[key] = value;
    } else if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string') {
      const group = refs.savedGroups.get(value);
      out[key === '$inGroup' ? '$in' : '$nin'] = group ? groupValues(group, refs.attributes) : [];
    } else if (key === '$savedGroups' && Array.isArray(value)) {
      const conditions = value.map((id) => refs.savedGroups.get(String(id))).map((group) => (group ? resolveGroups(groupCondition(group), refs) : {}));
      out.$and = [...((out.$and as unknown[]) ?? []), ...conditions];
    } else {
      out[key] = resolveGroups(value, refs);
    }
  }
  return out;
}

/** Marks a rule that can match nobody (it targets saved groups that no longer exist). */
export const NEVER = Symbol('never');

/**
 * A rule's condition with its saved groups inlined: `all` is AND, `any` is `$or`, `none` negates
 * each group (a list group becomes `$nin`). A deleted group counts as an empty group: under `all`
 * or `any` (when it is the only one) it matches nobody, so the rule is dropped; under `none` it excludes nobody.
 */
export function inlineCondition(
  condition: string | undefined,
  targeting: FeatureRule['savedGroupTargeting'],
  refs: PayloadReferences,
): Condition | undefined | typeof NEVER {
  const groups = refs.savedGroups;
  const parts: Condition[] = [];
  const own = parseCondition(condition);
  if (own) parts.push(own);
  for (const { matchType, savedGroups } of targeting ?? []) {
    const found = savedGroups.map((id) => groups.get(id)).filter((group): group is PayloadGroup => group !== undefined);
    if (matchType === 'all') {
      if (found.length < savedGroups.length) return NEVER;
      parts.push(...found.map(groupCondition));
    } else if (matchType === 'any') {
      if (found.length === 0) return NEVER;
      parts.push(found.length === 1 ? groupCondition(found[0]) : { $or: found.map(groupCondition) });
    } else {
      parts.push(...found.map(negatedGroupCondition));
    }
  }
  const meaningful = parts.filter((part) => Object.keys(part).length > 0).map((part) => resolveGroups(part, refs) as Condition);
  if (meaningful.length === 0) return undefined;
  return meaningful.length === 1 ? meaningful[0] : { $and: meaningful };
}

/** Prerequisites as the SDKs' `parentConditions`, saved groups resolved. */
export function parentConditions(prerequisites: Array<{ id: string; condition: string }> | undefined, refs: PayloadReferences): ParentCondition[] {
  return (prerequisites ?? []).map(({ id, condition }) => ({ id, condition: (resolveGroups(parseCondition(condition), refs) as Condition) ?? {} }));
}
