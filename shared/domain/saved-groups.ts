import { InvalidInputError } from '../errors';
import type { SavedGroup } from '../contracts/saved-groups';

type Definition = Pick<SavedGroup, 'type' | 'condition' | 'attributeKey' | 'values'>;

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
    return { type, condition: input.condition };
  }
  if (input.condition !== undefined) {
    throw new InvalidInputError('Request body: [condition] a list group takes attributeKey and values, not condition');
  }
  if (input.attributeKey === undefined) throw new InvalidInputError('Request body: [attributeKey] is required for a list group');
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
}
