import type { Experiment } from '../../shared/contracts/experiments';
import type { FeatureRule } from '../../shared/contracts/features';
import type { StoredFeature } from '../../shared/domain/features';
import { effectiveValue, experimentServed, isFeatureStale } from '../../shared/domain/stale-features';

const now = Date.parse('2025-06-30T00:00:00Z');
const old = '2025-06-01T00:00:00.000Z';
const recent = '2025-06-25T00:00:00.000Z';

function feature(id: string, rules: FeatureRule[] = [], fields: Partial<StoredFeature> = {}): StoredFeature {
  return {
    id,
    dateCreated: old,
    dateUpdated: old,
    archived: false,
    description: '',
    owner: '',
    project: '',
    valueType: 'string',
    defaultValue: 'default',
    tags: [],
    prerequisites: [],
    environments: { production: { enabled: true, rules } },
    revision: { version: 1, comment: '', date: old, createdBy: '', publishedBy: '' },
    ...fields,
  };
}

const force = (value: string, extra: Partial<FeatureRule> = {}) => ({ id: `r-${value}`, type: 'force', value, description: '', enabled: true, ...extra }) as FeatureRule;
const rollout = (value: string, coverage: number) => ({ id: `ro-${value}`, type: 'rollout', value, coverage, hashAttribute: 'id', description: '', enabled: true }) as FeatureRule;
const ref = (experimentId: string) =>
  ({ id: 'ref', type: 'experiment-ref', experimentId, description: '', enabled: true, variations: [{ variationId: 'v0', value: 'red' }, { variationId: 'v1', value: 'blue' }] }) as FeatureRule;

function experiment(id: string, fields: Partial<Experiment> = {}) {
  return {
    id,
    archived: false,
    status: 'running',
    phases: [],
    variations: [
      { variationId: 'v0', key: '0', name: 'A', description: '', screenshots: [] },
      { variationId: 'v1', key: '1', name: 'B', description: '', screenshots: [] },
    ],
    ...fields,
  } as Pick<Experiment, 'id' | 'archived' | 'status' | 'phases' | 'variations' | 'resultSummary'>;
}

describe('isFeatureStale', () => {
  it.each([
    ['changed within two weeks', feature('f', [], { dateUpdated: recent }), false, undefined],
    ['no enabled rules in enabled environments', feature('f', [force('x', { enabled: false })]), true, 'no-rules'],
    ['only untargeted force rules and full rollouts', feature('f', [force('x'), rollout('y', 1)]), true, 'rules-one-sided'],
    ['a partial rollout', feature('f', [rollout('y', 0.5)]), false, undefined],
    ['a targeted force rule', feature('f', [force('x', { condition: '{"a":1}' })]), false, undefined],
    ['a force rule targeting saved groups', feature('f', [force('x', { savedGroupTargeting: [{ matchType: 'all', savedGroups: ['grp_1'] }] })]), false, undefined],
  ])('is %s -> stale %s', (_case, subject, stale, reason) => {
    expect(isFeatureStale(subject, [subject], [], now)).toEqual(reason ? { stale, reason } : { stale });
  });

  it('is not stale while a fresh feature depends on it, and is once that one is stale too', () => {
    const parent = feature('parent');
    const freshChild = feature('child', [], { prerequisites: ['parent'], dateUpdated: recent });
    const staleChild = feature('child', [], { prerequisites: ['parent'] });

    expect(isFeatureStale(parent, [parent, freshChild], [], now).stale).toBe(false);
    expect(isFeatureStale(parent, [parent, staleChild], [], now).stale).toBe(true);
  });

  it('is not stale while its rules reference a served experiment, and is once that experiment is stopped without a release', () => {
    const subject = feature('f', [ref('exp_1')]);

    expect(isFeatureStale(subject, [subject], [experiment('exp_1')], now).stale).toBe(false);
    expect(isFeatureStale(subject, [subject], [experiment('exp_1', { status: 'stopped' })], now)).toEqual({ stale: true, reason: 'rules-one-sided' });
  });

  it('is not stale while a served experiment has it as a prerequisite', () => {
    const subject = feature('f');
    const dependent = experiment('exp_2', {
      phases: [{ prerequisites: [{ id: 'f', condition: '{}' }] } as unknown as Experiment['phases'][number]],
    });

    expect(isFeatureStale(subject, [subject], [dependent], now).stale).toBe(false);
  });
});

describe('experimentServed', () => {
  it('serves running experiments and stopped ones with a released variation only', () => {
    expect(experimentServed(experiment('e'))).toBe(true);
    expect(experimentServed(experiment('e', { status: 'draft' }))).toBe(false);
    expect(experimentServed(experiment('e', { archived: true }))).toBe(false);
    expect(experimentServed(experiment('e', { status: 'stopped' }))).toBe(false);
    const released = { status: 'won', winner: 'v1', conclusions: '', releasedVariationId: 'v1', excludeFromPayload: false };
    expect(experimentServed(experiment('e', { status: 'stopped', resultSummary: released }))).toBe(true);
  });
});

describe('effectiveValue', () => {
  const none = new Map();

  it('is null where the feature is off or unknown', () => {
    const subject = feature('f', [], { environments: { production: { enabled: false, rules: [force('x')] } } });

    expect(effectiveValue(subject, 'production', none)).toBeNull();
    expect(effectiveValue(subject, 'dev', none)).toBeNull();
  });

  it('is the first enabled force rule or full rollout, skipping partial rollouts', () => {
    const subject = feature('f', [force('off', { enabled: false }), rollout('half', 0.5), rollout('all', 1), force('late')]);

    expect(effectiveValue(subject, 'production', none)).toBe('all');
  });

  it("is a stopped experiment's released variation, else its winner", () => {
    const subject = feature('f', [ref('exp_1')]);
    const summary = { status: 'won', winner: 'v0', conclusions: '', releasedVariationId: '', excludeFromPayload: true };

    expect(effectiveValue(subject, 'production', new Map([['exp_1', experiment('exp_1', { status: 'stopped', resultSummary: { ...summary, releasedVariationId: 'v1' } })]]))).toBe('blue');
    expect(effectiveValue(subject, 'production', new Map([['exp_1', experiment('exp_1', { status: 'stopped', resultSummary: summary })]]))).toBe('red');
    expect(effectiveValue(subject, 'production', new Map([['exp_1', experiment('exp_1')]]))).toBe('default');
  });

  it('is the default value, or null for an archived feature, when no rule decides', () => {
    expect(effectiveValue(feature('f'), 'production', none)).toBe('default');
    expect(effectiveValue(feature('f', [], { archived: true }), 'production', none)).toBeNull();
  });
});
