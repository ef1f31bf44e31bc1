import { InvalidInputError } from '../errors';
import type { Attribute } from '../contracts/attributes';

/** Refuses an `enum` attribute without its values: it could never be targeted. */
export function assertEnumHasValues(attribute: Pick<Attribute, 'datatype' | 'enum'>): void {
  if (attribute.datatype === 'enum' && !attribute.enum?.trim()) {
    throw new InvalidInputError('Request body: [enum] an enum attribute needs its values, comma-separated, e.g. "red, green"');
  }
}
