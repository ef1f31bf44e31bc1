import { randomBytes } from 'node:crypto';
import type { Namespace, StoredNamespace } from '../contracts/namespaces';

/** A namespace as the API shows it (GrowthBook's shape has no dates). */
export function toApiNamespace({ dateCreated: _created, dateUpdated: _updated, ...namespace }: StoredNamespace): Namespace {
  return namespace;
}

/** A new hashing seed for a multiRange namespace. */
export const newSeed = () => randomBytes(8).toString('hex');
