import type { Attribute } from '../contracts/attributes';

/**
 * The attribute with its allowed values (`enum`) kept only where they apply, as GrowthBook keeps them:
 * the `enum` datatype and the list datatypes. Other datatypes store `""`. An `enum` attribute may
 * have no values yet: they only help write conditions, which the SDK evaluates without them.
 */
export function withApplicableEnum<T extends Pick<Attribute, 'datatype' | 'enum'>>(attribute: T): T {
  const applies = attribute.datatype === 'enum' || attribute.datatype.endsWith('[]');
  return applies || !attribute.enum ? attribute : { ...attribute, enum: '' };
}
