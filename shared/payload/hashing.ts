import { createHash } from 'node:crypto';
import type { AttributeDatatype } from './types';

/** Hex sha256 of salt + value: how a secure attribute's value is compared without being sent in clear. */
export const hashSecure = (salt: string, value: string) => createHash('sha256').update(salt + value).digest('hex');

/** Whether an attribute type is hashed with `hashSecureAttributes`. */
export const isSecure = (datatype: AttributeDatatype | undefined) => datatype === 'secureString' || datatype === 'secureString[]';

/**
 * A condition with every string compared with a secure attribute hashed, as GrowthBook does it:
 * below a key naming a secure attribute, every string is hashed (except a `$inGroup` group id).
 */
export function hashSecureStrings(node: unknown, salt: string, attributes: Map<string, AttributeDatatype>, hashing = false): unknown {
  if (Array.isArray(node)) return node.map((item) => hashSecureStrings(item, salt, attributes, hashing));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        const here = attributes.has(key) ? isSecure(attributes.get(key)) : hashing;
        const hashed = here && !(key === '$inGroup' || key === '$notInGroup');
        return [key, hashSecureStrings(value, salt, attributes, hashed)];
      }),
    );
  }
  return typeof node === 'string' && hashing ? hashSecure(salt, node) : node;
}
