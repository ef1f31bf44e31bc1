import type { PayloadNamespace, SdkRule } from './types';

/**
 * A rule's namespace as GrowthBook serves it. The definition, when the organization has it,
 * decides the format: multiRange is a filter hashed on the definition's attribute (else the rule's,
 * else `id`) with the definition's seed (else the namespace id), so rotating the seed reshuffles
 * users; legacy is the `[id, start, end]` tuple of the first range. Without a definition the
 * value's own shape decides.
 */
export function namespaceFields(
  namespace: { name?: string; enabled?: boolean; range?: [number, number]; ranges?: Array<[number, number]> } | undefined,
  hashAttribute: string | undefined,
  definitions?: Map<string, PayloadNamespace>,
): Pick<SdkRule, 'namespace' | 'filters'> {
  if (!namespace?.enabled || !namespace.name) return {};
  const definition = definitions?.get(namespace.name);
  const ranges = namespace.ranges?.length ? namespace.ranges : namespace.range ? [namespace.range] : [];
  const multiRange = definition ? definition.format === 'multiRange' : !!namespace.ranges?.length;
  if (multiRange) {
    const attribute = definition?.hashAttribute || hashAttribute || 'id';
    return { filters: [{ attribute, seed: definition?.seed || namespace.name, hashVersion: 2, ranges }] };
  }
  const [start, end] = ranges[0] ?? [];
  if (start === undefined || end === undefined) return {};
  return { namespace: [namespace.name, start, end] };
}
