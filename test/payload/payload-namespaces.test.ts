import type { FeatureRule } from '../../shared/contracts/features';
import type { Experiment } from '../../shared/contracts/experiments';
import type { PayloadEntry } from '../../shared/payload/types';
import { newId } from '../../shared/ids';
import { namespaces } from '../../shared/store/namespaces';
import { loadPayloadReferences } from '../../shared/payload/references';
import { commandsDuring } from '../support/dynamo-commands';

/** The namespace definitions a payload needs are read with its other references, and only when named. */

const orgId = newId('org_');
const base = { description: '', condition: '', enabled: true };
const entry = (rules: FeatureRule[]): PayloadEntry => ({ project: '', valueType: 'boolean', defaultValue: 'false', rules, prerequisites: [] });
const definition = (displayName: string) =>
  namespaces.create(orgId, { id: newId('ns-'), displayName, description: '', status: 'active', format: 'multiRange', hashAttribute: 'deviceId', seed: `${displayName}-seed` });

it("reads the namespaces experiment rules name with the first round and those only phases name with the second, and none when none is named", async () => {
  const [ruleNs, phaseNs] = await Promise.all([definition('rules'), definition('phases')]);
  const rule = { ...base, id: 'r', type: 'experiment', namespace: { enabled: true, name: ruleNs.id, range: [0, 0.5] }, value: [] } as FeatureRule;
  const ref = { ...base, id: 'x', type: 'experiment-ref', experimentId: 'exp_1', variations: [] } as FeatureRule;
  const known = { id: 'exp_1', dateUpdated: '2025-01-01T00:00:00.000Z', phases: [{ namespace: { namespaceId: phaseNs.id, enabled: true, ranges: [[0, 1]] } }] } as unknown as Experiment;

  let refs: Awaited<ReturnType<typeof loadPayloadReferences>> | undefined;
  const sent = (
    await commandsDuring(async () => {
      refs = await loadPayloadReferences(orgId, [entry([rule, ref])], { experiments: [known] });
    })
  ).sort();
  const none = await commandsDuring(() => loadPayloadReferences(orgId, [entry([{ ...base, id: 'f', type: 'force', value: 'true' } as FeatureRule])]));

  // The rule's namespace in the first round's BatchGet; the phase's in the second's, beside the attributes' Query
  // (this organization has no complete attribute-types item).
  expect(sent).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);
  expect(Object.fromEntries([...refs!.namespaces!.values()].map((ns) => [ns.id, ns.seed]))).toEqual({ [ruleNs.id]: 'rules-seed', [phaseNs.id]: 'phases-seed' });
  expect(refs!.dates).toEqual(expect.arrayContaining([ruleNs.dateUpdated, phaseNs.dateUpdated]));
  expect(none).toEqual([]);
});
