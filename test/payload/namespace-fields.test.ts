import type { FeatureRule } from '../../shared/contracts/features';
import { payloadReferenceIds } from '../../shared/payload/entries';
import { namespaceFields } from '../../shared/payload/namespaces';
import { sdkFeature } from '../../shared/payload/rules';
import type { PayloadEntry, PayloadExperiment, PayloadNamespace } from '../../shared/payload/types';

/** How a rule's namespace reaches the SDK given the organization's namespace definitions (GrowthBook's precedence). */

const definitions = (...list: PayloadNamespace[]) => new Map(list.map((ns) => [ns.id, ns]));
const multi: PayloadNamespace = { id: 'ns-1', format: 'multiRange', hashAttribute: 'deviceId', seed: 'seed-a' };

describe('namespaceFields', () => {
  it("hashes a multiRange namespace on the definition's attribute and seed, over the rule's attribute and the namespace id", () => {
    const value = { name: 'ns-1', enabled: true, ranges: [[0, 0.2], [0.5, 0.6]] as Array<[number, number]> };

    expect(namespaceFields(value, 'id', definitions(multi))).toEqual({
      filters: [{ attribute: 'deviceId', seed: 'seed-a', hashVersion: 2, ranges: [[0, 0.2], [0.5, 0.6]] }],
    });
  });

  it("falls back to the rule's attribute, then id, and to the namespace id as seed, where the definition has none", () => {
    const bare = definitions({ id: 'ns-1', format: 'multiRange' });
    const value = { name: 'ns-1', enabled: true, ranges: [[0, 0.5]] as Array<[number, number]> };

    expect(namespaceFields(value, 'company', bare).filters).toEqual([{ attribute: 'company', seed: 'ns-1', hashVersion: 2, ranges: [[0, 0.5]] }]);
    expect(namespaceFields(value, undefined, bare).filters).toEqual([{ attribute: 'id', seed: 'ns-1', hashVersion: 2, ranges: [[0, 0.5]] }]);
  });

  it('lets the definition decide the format: a single range of a multiRange namespace is a filter, ranges of a legacy one the first range as a tuple', () => {
    const legacy = definitions({ id: 'ns-old', format: 'legacy' });

    expect(namespaceFields({ name: 'ns-1', enabled: true, range: [0.1, 0.4] }, 'id', definitions(multi))).toEqual({
      filters: [{ attribute: 'deviceId', seed: 'seed-a', hashVersion: 2, ranges: [[0.1, 0.4]] }],
    });
    expect(namespaceFields({ name: 'ns-old', enabled: true, ranges: [[0.2, 0.3], [0.6, 0.7]] }, 'id', legacy)).toEqual({ namespace: ['ns-old', 0.2, 0.3] });
  });

  it("follows the value's own shape for a namespace the organization does not define", () => {
    expect(namespaceFields({ name: 'pricing', enabled: true, ranges: [[0, 0.5]] }, 'id', definitions(multi))).toEqual({
      filters: [{ attribute: 'id', seed: 'pricing', hashVersion: 2, ranges: [[0, 0.5]] }],
    });
    expect(namespaceFields({ name: 'pricing', enabled: true, range: [0, 0.5] }, 'id')).toEqual({ namespace: ['pricing', 0, 0.5] });
  });

  it('serves nothing for a disabled or unnamed namespace', () => {
    expect(namespaceFields({ name: 'ns-1', enabled: false, ranges: [[0, 1]] }, 'id', definitions(multi))).toEqual({});
    expect(namespaceFields({ enabled: true, ranges: [[0, 1]] }, 'id', definitions(multi))).toEqual({});
  });
});

describe('namespaces in payload rules', () => {
  const base = { description: '', condition: '', enabled: true };
  const entry = (rules: FeatureRule[]): PayloadEntry => ({ project: '', valueType: 'boolean', defaultValue: 'false', rules, prerequisites: [] });
  const experiment: PayloadExperiment = {
    id: 'exp_1',
    trackingKey: 'k',
    status: 'running',
    hashAttribute: 'id',
    variations: [{ variationId: 'v0' }, { variationId: 'v1' }],
    phases: [{ coverage: 1, namespace: { namespaceId: 'ns-1', enabled: true, ranges: [[0, 0.5]] } }],
  };
  const ref = { ...base, id: 'ref', type: 'experiment-ref', experimentId: 'exp_1', variations: [{ variationId: 'v1', value: 'true' }] } as FeatureRule;
  const rule = { ...base, id: 'exp', type: 'experiment', hashAttribute: 'id', namespace: { enabled: true, name: 'ns-1', range: [0, 0.5] }, value: [] } as FeatureRule;

  it('names the namespaces of experiment rules and of the latest phases, to read with the other references', () => {
    expect(payloadReferenceIds([entry([rule, ref])]).namespaces).toEqual(['ns-1']);
    expect(payloadReferenceIds([], [{ ...experiment, phases: [{ namespace: { namespaceId: 'ns-old', enabled: true } }, ...experiment.phases!] }]).namespaces).toEqual(['ns-1']);
  });

  it('filters experiment and experiment-ref rules with the definition the references hold', () => {
    const refs = { savedGroups: new Map(), experiments: new Map([[experiment.id, experiment]]), namespaces: definitions(multi) };
    const filter = { attribute: 'deviceId', seed: 'seed-a', hashVersion: 2, ranges: [[0, 0.5]] };

    const rules = sdkFeature('f', entry([rule, ref]), refs, { now: new Date('2025-01-01T00:00:00Z') }).rules!;

    expect(rules.map((r) => r.filters)).toEqual([[filter], [filter]]);
  });
});
