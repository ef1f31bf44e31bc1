import { InvalidInputError } from '../errors';
import type { SavedGroup } from '../contracts/saved-groups';

type Definition = Pick<SavedGroup, 'type' | 'condition' | 'attributeKey' | 'values'>;

/** GrowthBook's limit on a list group's values: 1 MiB of JSON. */
export const MAX_VALUES_BYTES = 1024 * 1024;

/** The attribute types a list group can match by id, as in GrowthBook. */
export const ID_LIST_DATATYPES = ['string', 'number', 'secureString'];

/** Refuses a condition group's condition that matches everyone, as GrowthBook does (`""` arrives as `"{}"`). */
export function assertConditionNotEmpty(condition: string | undefined): void {
  if (condition === undefined) return;
  const parsed = JSON.parse(condition) as Record<string, unknown>;
  if (Object.keys(parsed).length === 0) throw new InvalidInputError('Request body: [condition] Condition cannot be empty');
}

/** Refuses list values over GrowthBook's 1 MiB. */
export function assertValuesSize(values: string[] | undefined): void {
  if (values && Buffer.byteLength(JSON.stringify(values)) > MAX_VALUES_BYTES) {
    throw new InvalidInputError('Request body: [values] The maximum size for a list is 1 MB');
  }
}

/**
 * The type and definition of a new saved group: `type` as given, or inferred (`condition` means a
 * condition group, `attributeKey` a list group). Fields of the other type are refused.
 */
export function savedGroupDefinition(input: Partial<Definition>): Definition {
  const type = input.type ?? (input.condition !== undefined ? 'condition' : input.attributeKey !== undefined ? 'list' : undefined);
  if (!type) {
    throw new InvalidInputError('Request body: [type] give type, or condition for a condition group, or attributeKey and values for a list group');
  }
  if (type === 'condition') {
    if (input.attributeKey !== undefined || input.values !== undefined) {
      throw new InvalidInputError('Request body: [attributeKey] a condition group takes condition, not attributeKey or values');
    }
    if (input.condition === undefined) throw new InvalidInputError('Request body: [condition] is required for a condition group');
    assertConditionNotEmpty(input.condition);
    return { type, condition: input.condition };
  }
  if (input.condition !== undefined) {
    throw new InvalidInputError('Request body: [condition] a list group takes attributeKey and values, not condition');
  }
  if (input.attributeKey === undefined) throw new InvalidInputError('Request body: [attributeKey] is required for a list group');
  assertValuesSize(input.values);
  return { type, attributeKey: input.attributeKey, values: input.values ?? [] };
}

/** Refuses an update field that does not fit the group's type. */
export function assertFitsType(group: Pick<SavedGroup, 'type'>, change: { condition?: string; values?: string[] }): void {
  if (group.type === 'list' && change.condition !== undefined) {
    throw new InvalidInputError('Request body: [condition] this is a list group; update its values instead');
  }
  if (group.type === 'condition' && change.values !== undefined) {
    throw new InvalidInputError('Request body: [values] this is a condition group; update its condition instead');
  }
  assertConditionNotEmpty(change.condition);
  assertValuesSize(change.values);
}
