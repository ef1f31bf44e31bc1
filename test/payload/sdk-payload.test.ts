import { createDecipheriv } from 'node:crypto';
import * as fc from 'fast-check';
import { GrowthBook, evalCondition, type ConditionInterface, type FeatureDefinition } from '@growthbook/growthbook';
import type { FeatureRule } from '../../shared/contracts/features';
import type { FeatureContent } from '../../shared/domain/features';
import { sdkPayloadBody } from '../../shared/payload/body';
import { payloadEntry, payloadReferenceIds, scheduleBoundaries } from '../../shared/payload/entries';
import { etagMatches } from '../../shared/payload/http';
import { scheduledOn, sdkFeature, sdkPayload } from '../../shared/payload/rules';
import type { PayloadEntry, PayloadExperiment, PayloadGroup, PayloadReferences } from '../../shared/payload/types';

/** Rule ids in, as connections with `includeRuleIds` get them. */
const opts = { now: new Date('2025-01-01T00:00:00Z'), includeRuleIds: true };
const noRefs: PayloadReferences = { savedGroups: new Map(), experiments: new Map() };
const refsWith = (groups: PayloadGroup[] = [], experiments: PayloadExperiment[] = []): PayloadReferences => ({
  savedGroups: new Map(groups.map((g) => [g.id, g])),
  experiments: new Map(experiments.map((e) => [e.id, e])),
});
const base = { description: '', condition: '', enabled: true };
const force = (id: string, value: string, extra: Partial<FeatureRule> = {}): FeatureRule => ({ ...base, id, type: 'force', value, ...extra }) as FeatureRule;
const entry = (rules: FeatureRule[], extra: Partial<PayloadEntry> = {}): PayloadEntry => ({
  project: '',
  valueType: 'boolean',
  defaultValue: 'false',
  rules,
  prerequisites: [],
  ...extra,
});

const beta: PayloadGroup = { id: 'grp_beta', type: 'list', attributeKey: 'id', values: ['u1', 'u2'] };
const us: PayloadGroup = { id: 'grp_us', type: 'condition', condition: '{"country":"US"}' };

describe('payloadEntry', () => {
  const feature: FeatureContent = {
    id: 'f',
    archived: false,
    description: '',
    owner: '',
    project: 'prj_a',
    valueType: 'boolean',
    defaultValue: 'true',
    tags: [],
    prerequisites: ['p'],
    environments: {
      production: { enabled: true, rules: [force('on', 'true'), force('off', 'false', { enabled: false })] },
      dev: { enabled: false, rules: [] },
    },
  };

  it('keeps the enabled rules of an environment the feature is on in', () => {
    expect(payloadEntry(feature, 'production')).toEqual({
      project: 'prj_a',
      valueType: 'boolean',
      defaultValue: 'true',
      rules: [force('on', 'true')],
      prerequisites: ['p'],
    });
  });

  it('has nothing for an environment the feature is off in, has never been set up in, or when archived', () => {
    expect(payloadEntry(feature, 'dev')).toBeUndefined();
    expect(payloadEntry(feature, 'staging')).toBeUndefined();
    expect(payloadEntry({ ...feature, archived: true }, 'production')).toBeUndefined();
  });
});

describe('sdkFeature', () => {
  it('omits rules when there are none', () => {
    expect(sdkFeature('f', entry([]), noRefs, opts)).toEqual({ defaultValue: false });
  });

  it.each([
    ['boolean', 'true', true],
    ['number', '-2.5', -2.5],
    ['string', 'plain text', 'plain text'],
    ['string', '"quoted"', 'quoted'],
    ['json', '{"a":[1,null]}', { a: [1, null] }],
  ] as const)('parses a %s value %s', (valueType, defaultValue, expected) => {
    expect(sdkFeature('f', entry([], { valueType, defaultValue }), noRefs, opts).defaultValue).toEqual(expected);
  });

  it('adds coverage, hash attribute, seed and hash version to a partial rollout only', () => {
    const rules = [
      { ...base, id: 'part', type: 'rollout', value: 'true', coverage: 0.2, hashAttribute: 'deviceId' },
      { ...base, id: 'seeded', type: 'rollout', value: 'true', coverage: 0.2, hashAttribute: 'id', seed: 's', hashVersion: 1 },
      { ...base, id: 'full', type: 'rollout', value: 'true', coverage: 1, hashAttribute: 'id' },
    ] as FeatureRule[];

    expect(sdkFeature('f', entry(rules), noRefs, opts).rules).toEqual([
      // No seed and no hash version given: none sent, so the SDK seeds with the feature key and hashes with v1, as with GrowthBook.
      { id: 'part', force: true, coverage: 0.2, hashAttribute: 'deviceId' },
      { id: 'seeded', force: true, coverage: 0.2, hashAttribute: 'id', seed: 's', hashVersion: 1 },
      { id: 'full', force: true },
    ]);
  });

  it('gives an experiment rule variations, 4-decimal weights, key, meta and namespace', () => {
    const rule = {
      ...base,
      id: 'exp',
      type: 'experiment',
      hashAttribute: 'id',
      coverage: 0.5,
      namespace: { enabled: true, name: 'ns', range: [0, 0.5] },
      value: [
        { value: 'true', weight: 0.123456 },
        { value: 'false', weight: 0.876544, name: 'Off' },
      ],
    } as FeatureRule;

    expect(sdkFeature('my-flag', entry([rule]), noRefs, opts).rules).toEqual([
      {
        id: 'exp',
        variations: [true, false],
        weights: [0.1235, 0.8765],
        coverage: 0.5,
        key: 'my-flag',
        hashAttribute: 'id',
        namespace: ['ns', 0, 0.5],
        meta: [{ key: '0' }, { key: '1', name: 'Off' }],
      },
    ]);
  });

  it('puts feature prerequisites first, as one gating rule', () => {
    expect(sdkFeature('f', entry([force('r', 'true')], { prerequisites: ['a', 'b'] }), noRefs, opts).rules).toEqual([
      { parentConditions: [{ id: 'a', condition: { value: true }, gate: true }, { id: 'b', condition: { value: true }, gate: true }] },
      { id: 'r', force: true },
    ]);
  });

  describe('saved groups', () => {
    const targeting = (matchType: 'all' | 'any' | 'none', savedGroups: string[]) =>
      force('r', 'true', { savedGroupTargeting: [{ matchType, savedGroups }] });

    it('merges a condition group with the rule condition', () => {
      const rule = force('r', 'true', { condition: '{"plan":"pro"}', savedGroupTargeting: [{ matchType: 'all', savedGroups: ['grp_us'] }] });

      expect(sdkFeature('f', entry([rule]), refsWith([us]), opts).rules![0].condition).toEqual({ $and: [{ plan: 'pro' }, { country: 'US' }] });
    });

    it.each([
      ['all', { $and: [{ id: { $in: ['u1', 'u2'] } }, { country: 'US' }] }],
      ['any', { $or: [{ id: { $in: ['u1', 'u2'] } }, { country: 'US' }] }],
      ['none', { $and: [{ id: { $nin: ['u1', 'u2'] } }, { $not: { country: 'US' } }] }],
    ] as const)('combines groups for match %s', (matchType, condition) => {
      expect(sdkFeature('f', entry([targeting(matchType, ['grp_beta', 'grp_us'])]), refsWith([beta, us]), opts).rules![0].condition).toEqual(condition);
    });

    it('drops a rule that needs a deleted group, and ignores a deleted group it excludes', () => {
      const rules = [targeting('all', ['grp_beta', 'grp_gone']), targeting('any', ['grp_gone']), targeting('none', ['grp_gone'])];

      expect(sdkFeature('f', entry(rules), refsWith([beta]), opts).rules).toEqual([{ id: 'r', force: true }]);
    });

    it('keeps the groups that exist when one of several under any is deleted', () => {
      expect(sdkFeature('f', entry([targeting('any', ['grp_gone', 'grp_beta'])]), refsWith([beta]), opts).rules![0].condition).toEqual({
        id: { $in: ['u1', 'u2'] },
      });
    });

    it('matches exactly the members of a list group, for any members and user (checked with the SDK)', () => {
      fc.assert(
        fc.property(fc.uniqueArray(fc.string({ minLength: 1 }), { maxLength: 5 }), fc.string({ minLength: 1 }), (values, user) => {
          const group: PayloadGroup = { id: 'g', type: 'list', attributeKey: 'id', values };
          const [inGroup] = sdkFeature('f', entry([targeting('all', ['g'])]), refsWith([group]), opts).rules!;
          const [outOfGroup] = sdkFeature('f', entry([targeting('none', ['g'])]), refsWith([group]), opts).rules!;
          expect(evalCondition({ id: user }, (inGroup.condition ?? {}) as ConditionInterface)).toBe(values.includes(user));
          expect(evalCondition({ id: user }, (outOfGroup.condition ?? {}) as ConditionInterface)).toBe(!values.includes(user));
        }),
      );
    });
  });

  describe('experiment-ref rules', () => {
    const experiment: PayloadExperiment = {
      id: 'exp_1',
      name: 'Test',
      trackingKey: 'test-key',
      status: 'running',
      hashAttribute: 'id',
      hashVersion: 2,
      variations: [
        { variationId: 'v0', key: 'control', name: 'Control' },
        { variationId: 'v1', key: 'treatment', name: 'Treatment' },
      ],
      phases: [
        { coverage: 1, trafficSplit: [] },
        {
          coverage: 0.4,
          seed: 'seed-1',
          targetingCondition: '{"country":"US"}',
          trafficSplit: [
            { variationId: 'v0', weight: 0.3 },
            { variationId: 'v1', weight: 0.7 },
          ],
          namespace: { namespaceId: 'ns', enabled: true, range: [0, 0.5] },
        },
      ],
    };
    const ref = { ...base, id: 'ref', type: 'experiment-ref', experimentId: 'exp_1', variations: [{ variationId: 'v1', value: 'true' }] } as FeatureRule;

    it('takes variations, weights, coverage and targeting from the latest phase; a missing value is the default', () => {
      expect(sdkFeature('f', entry([ref]), refsWith([], [experiment]), { ...opts, includeExperimentNames: true }).rules).toEqual([
        {
          id: 'ref',
          condition: { country: 'US' },
          variations: [false, true],
          weights: [0.3, 0.7],
          coverage: 0.4,
          key: 'test-key',
          hashAttribute: 'id',
          hashVersion: 2,
          seed: 'seed-1',
          namespace: ['ns', 0, 0.5],
          meta: [{ key: 'control', name: 'Control' }, { key: 'treatment', name: 'Treatment' }],
          name: 'Test',
          phase: '1',
        },
      ]);
    });

    it('leaves experiment and variation names out unless the connection asks for them', () => {
      const [rule] = sdkFeature('f', entry([ref]), refsWith([], [experiment]), opts).rules!;

      expect(rule.name).toBeUndefined();
      expect(rule.meta).toEqual([{ key: 'control' }, { key: 'treatment' }]);
    });

    it('serves the released variation of a stopped experiment with the coverage, hashing and namespace of its phase', () => {
      const stopped = { ...experiment, status: 'stopped', resultSummary: { releasedVariationId: 'v1' } };

      expect(sdkFeature('f', entry([ref]), refsWith([], [stopped]), opts).rules).toEqual([
        {
          id: 'ref',
          condition: { country: 'US' },
          force: true,
          coverage: 0.4,
          hashAttribute: 'id',
          hashVersion: 2,
          seed: 'seed-1',
          namespace: ['ns', 0, 0.5],
        },
      ]);
    });

    it.each([
      ['unknown', undefined],
      ['a draft', { ...experiment, status: 'draft' }],
      ['archived', { ...experiment, archived: true }],
      ['excluded from the payload', { ...experiment, resultSummary: { excludeFromPayload: true } }],
      ['stopped without a released variation', { ...experiment, status: 'stopped' }],
    ])('drops the rule when the experiment is %s', (_case, found) => {
      expect(sdkFeature('f', entry([ref]), refsWith([], found ? [found] : []), opts).rules).toBeUndefined();
    });
  });

  it('makes a rollout include a superset of users as coverage grows (checked with the SDK)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.string({ minLength: 1 }), (a, b, user) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const rollout = (coverage: number) =>
          ({ ...base, id: 'r', type: 'rollout', value: 'true', coverage, hashAttribute: 'id' }) as FeatureRule;
        const isOn = (coverage: number) =>
          new GrowthBook({ attributes: { id: user } })
            .initSync({ payload: { features: { f: sdkFeature('f', entry([rollout(coverage)]), noRefs, opts) as FeatureDefinition } } })
            .isOn('f');
        if (isOn(low)) expect(isOn(high)).toBe(true);
      }),
    );
  });
});

describe('sdkPayload', () => {
  it('serves features in id order, only of the connection projects when it names any', () => {
    const entries = { b: entry([], { project: 'prj_b' }), a: entry([], { project: 'prj_a' }), c: entry([]) };

    expect(Object.keys(sdkPayload(entries, { projects: [], refs: noRefs, dateUpdated: 'd', ...opts }).features)).toEqual(['a', 'b', 'c']);
    expect(sdkPayload(entries, { projects: ['prj_b'], refs: noRefs, dateUpdated: 'd', ...opts })).toEqual({
      status: 200,
      features: { b: { defaultValue: false } },
      dateUpdated: 'd',
    });
  });

  it('names the saved groups and experiments to read', () => {
    const rules = [
      force('a', 'true', { savedGroupTargeting: [{ matchType: 'any', savedGroups: ['g1', 'g2'] }] }),
      { ...base, id: 'b', type: 'experiment-ref', experimentId: 'exp_1', variations: [] } as FeatureRule,
    ];

    expect(payloadReferenceIds([entry(rules), entry([force('c', 'true', { savedGroupTargeting: [{ matchType: 'all', savedGroups: ['g1'] }] })])])).toEqual({
      savedGroups: ['g1', 'g2'],
      experiments: ['exp_1'],
      namespaces: [],
    });
  });
});

describe('sdkPayloadBody', () => {
  const payload = sdkPayload({ a: entry([]) }, { projects: [], refs: noRefs, dateUpdated: '2024-01-01T00:00:00.000Z', ...opts });

  it('sends the payload as it is, with an ETag that changes exactly when the payload does', () => {
    const first = sdkPayloadBody(payload, {});

    expect(first.body).toEqual(payload);
    expect(etagMatches(sdkPayloadBody({ ...payload }, {}).etag, first.etag)).toBe(true);
    expect(etagMatches(sdkPayloadBody({ ...payload, dateUpdated: 'later' }, {}).etag, first.etag)).toBe(false);
  });

  it.each([
    ['the same tag', true, (etag: string) => etag],
    ['a weak form of it', true, (etag: string) => `W/${etag}`],
    ['a list holding it', true, (etag: string) => `"x", ${etag}`],
    ['a wildcard', true, () => '*'],
    ['another tag', false, () => '"other"'],
    ['no header', false, () => undefined],
  ])('If-None-Match with %s matches: %p', (_case, expected, header) => {
    expect(etagMatches(header('"abc"'), '"abc"')).toBe(expected);
  });

  it('encrypts the features with the key so the SDK can decrypt them, keeping one ETag per content', () => {
    const key = Buffer.alloc(16, 7).toString('base64');

    const first = sdkPayloadBody(payload, { encryptionKey: key });
    const second = sdkPayloadBody(payload, { encryptionKey: key });

    const body = first.body as { features: object; encryptedFeatures: string };
    const [iv, ciphertext] = body.encryptedFeatures.split('.');
    const decipher = createDecipheriv('aes-128-cbc', Buffer.from(key, 'base64'), Buffer.from(iv, 'base64'));
    const clear = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
    expect(body.features).toEqual({});
    expect(JSON.parse(clear)).toEqual(payload.features);
    expect(second.etag).toBe(first.etag);
    expect(first.etag).not.toBe(sdkPayloadBody(payload, {}).etag);
  });
});

describe('scheduled rules', () => {
  const at = (iso: string) => ({ now: new Date(iso) });
  const scheduled = (scheduleRules: FeatureRule['scheduleRules']) => entry([force('r', 'true', { scheduleRules })]);

  it('leaves a rule out before its start and after its end, and serves it in between', () => {
    const window = scheduled([
      { enabled: true, timestamp: '2025-01-01T00:00:00Z' },
      { enabled: false, timestamp: '2025-02-01T00:00:00Z' },
    ]);

    expect(sdkFeature('f', window, noRefs, at('2024-12-31T23:59:59Z')).rules).toBeUndefined();
    expect(sdkFeature('f', window, noRefs, at('2025-01-01T00:00:00Z')).rules).toEqual([{ force: true }]);
    expect(sdkFeature('f', window, noRefs, at('2025-02-01T00:00:01Z')).rules).toBeUndefined();
  });

  it('serves a rule whose steps have no date, and reads steps in date order', () => {
    expect(scheduledOn([{ enabled: false, timestamp: null }], new Date())).toBe(true);
    const steps = [
      { enabled: false, timestamp: '2025-02-01T00:00:00Z' },
      { enabled: true, timestamp: '2025-01-01T00:00:00Z' },
    ];
    expect(scheduledOn(steps, new Date('2025-01-15T00:00:00Z'))).toBe(true);
  });

  it('lists the dated steps of the served rules as the moments the payload changes', () => {
    const entries = [
      scheduled([{ enabled: true, timestamp: '2025-01-01T00:00:00+01:00' }, { enabled: false, timestamp: null }]),
      scheduled([{ enabled: false, timestamp: '2024-12-31T23:00:00.000Z' }]),
    ];

    expect(scheduleBoundaries(entries)).toEqual(['2024-12-31T23:00:00.000Z']);
  });
});

describe('GrowthBook defaults', () => {
  it('leaves rule ids out unless asked, and a 0% rollout out altogether', () => {
    const rules = [force('r', 'true'), { ...base, id: 'zero', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' } as FeatureRule];

    expect(sdkFeature('f', entry(rules), noRefs, { now: new Date() }).rules).toEqual([{ force: true }]);
  });

  it('finds the groups a phase names once the experiment is known, and groups named inside conditions', () => {
    const experiment: PayloadExperiment = {
      id: 'exp',
      phases: [{ savedGroupTargeting: [{ matchType: 'none', savedGroups: ['grp_phase'] }], targetingCondition: '{"id":{"$inGroup":"grp_cond"}}' }],
    };
    const ref = { ...base, id: 'r', type: 'experiment-ref', experimentId: 'exp', variations: [] } as FeatureRule;
    const own = force('o', 'true', { condition: '{"$savedGroups":["grp_nested"]}' });

    expect(payloadReferenceIds([entry([ref, own])], [experiment])).toEqual({
      savedGroups: ['grp_nested', 'grp_phase', 'grp_cond'],
      experiments: ['exp'],
      namespaces: [],
    });
  });

  it('sends list values as numbers for a number attribute, as strings otherwise', () => {
    const accounts: PayloadGroup = { id: 'g', type: 'list', attributeKey: 'accountId', values: ['123', '4.5'] };
    const rule = force('r', 'true', { savedGroupTargeting: [{ matchType: 'all', savedGroups: ['g'] }] });
    const numberRefs = { ...refsWith([accounts]), attributes: new Map([['accountId', 'number' as const]]) };

    expect(sdkFeature('f', entry([rule]), numberRefs, opts).rules![0].condition).toEqual({ accountId: { $in: [123, 4.5] } });
    expect(sdkFeature('f', entry([rule]), refsWith([accounts]), opts).rules![0].condition).toEqual({ accountId: { $in: ['123', '4.5'] } });
  });
});
