import * as fc from 'fast-check';
import type { RuleInput } from '../../shared/contracts/features';
import {
  applyFeatureUpdate,
  applyToggle,
  decodeValue,
  featureListTags,
  findCycle,
  mergeEnvironments,
  newFeature,
  normaliseRules,
  publishedEnvironments,
  sameContent,
  toApiFeature,
  type StoredFeature,
} from '../../shared/domain/features';

const stored = (extra: Partial<StoredFeature> = {}): StoredFeature => ({
  id: 'flag',
  dateCreated: '2024-01-01T00:00:00.000Z',
  dateUpdated: '2024-01-01T00:00:00.000Z',
  archived: false,
  description: '',
  owner: 'u_1',
  project: '',
  valueType: 'boolean',
  defaultValue: 'false',
  tags: ['a'],
  prerequisites: [],
  environments: { production: { enabled: true, rules: [] }, dev: { enabled: false, rules: [] } },
  revision: { version: 1, comment: '', date: '2024-01-01T00:00:00.000Z', createdBy: 'u_1', publishedBy: 'u_1' },
  ...extra,
});

describe('decodeValue', () => {
  it.each([
    ['boolean', 'true', { value: true }],
    ['boolean', ' false ', { value: false }],
    ['boolean', 'yes', undefined],
    ['boolean', '1', undefined],
    ['number', '42', { value: 42 }],
    ['number', '"42"', undefined],
    ['number', 'NaN', undefined],
    ['string', 'anything at all', { value: 'anything at all' }],
    ['string', '"json string"', { value: 'json string' }],
    ['json', '[1,{"a":null}]', { value: [1, { a: null }] }],
    ['json', '{"a":', undefined],
  ] as const)('reads a %s value %j as %j', (valueType, text, expected) => {
    expect(decodeValue(valueType, text)).toEqual(expected);
  });
});

describe('normaliseRules', () => {
  it('assigns fr_ ids where missing and fills in defaults', () => {
    const rules = normaliseRules([{ type: 'force', value: 'true' }, { type: 'force', value: 'false', id: 'mine', enabled: false }], 'rules', 'flag');

    expect(rules).toEqual([
      { id: expect.stringMatching(/^fr_[A-Za-z0-9_-]{16}$/), type: 'force', value: 'true', description: '', condition: '', enabled: true },
      { id: 'mine', type: 'force', value: 'false', description: '', condition: '', enabled: false },
    ]);
  });

  it('defaults an experiment to the feature id as tracking key, id as hash attribute and full coverage', () => {
    const [rule] = normaliseRules([{ type: 'experiment', values: [{ value: 'true', weight: 1 }] }], 'rules', 'flag');

    expect(rule).toMatchObject({ type: 'experiment', trackingKey: 'flag', hashAttribute: 'id', coverage: 1, value: [{ value: 'true', weight: 1 }] });
  });

  it('accepts the older `value` name for experiment variations, but not both names', () => {
    const values = [{ value: 'true', weight: 1 }];

    expect(normaliseRules([{ type: 'experiment', value: values }], 'rules', 'flag')[0]).toMatchObject({ value: values });
    expect(() => normaliseRules([{ type: 'experiment', value: values, values }], 'rules', 'flag')).toThrow(/\[rules\.0\.values\]/);
  });

  it('refuses two rules with the same id', () => {
    const inputs: RuleInput[] = [{ type: 'force', value: 'true', id: 'x' }, { type: 'force', value: 'true', id: 'x' }];

    expect(() => normaliseRules(inputs, 'environments.production.rules', 'flag')).toThrow(/\[environments\.production\.rules\.1\.id\]/);
  });
});

describe('mergeEnvironments', () => {
  const current = {
    production: { enabled: true, rules: normaliseRules([{ type: 'force', value: 'true', id: 'p' }], 'r', 'flag') },
    dev: { enabled: true, rules: normaliseRules([{ type: 'force', value: 'true', id: 'd' }], 'r', 'flag') },
  };

  it('leaves absent environments alone, keeps rules when none are given and replaces them when they are', () => {
    const next = mergeEnvironments(current, { production: { enabled: false }, dev: { rules: [] } }, ['production', 'dev'], 'flag');

    expect(next).toEqual({ production: { enabled: false, rules: current.production.rules }, dev: { enabled: true, rules: [] } });
  });

  it('starts an environment never configured before as off', () => {
    const next = mergeEnvironments({}, { staging: { rules: [] } }, ['staging'], 'flag');

    expect(next.staging).toEqual({ enabled: false, rules: [] });
  });

  it('refuses an environment the organization does not have', () => {
    expect(() => mergeEnvironments(current, { qa: { enabled: true } }, ['production', 'dev'], 'flag')).toThrow(/\[environments\.qa\]/);
  });
});

describe('newFeature', () => {
  it('has every environment of the organization, off unless given', async () => {
    const feature = await newFeature(
      { id: 'f', valueType: 'boolean', defaultValue: 'true', environments: { dev: { enabled: true } } },
      { environments: ['production', 'dev'], owner: { owner: 'u_1' } },
    );

    expect(feature.environments).toEqual({ production: { enabled: false, rules: [] }, dev: { enabled: true, rules: [] } });
    expect(feature).toMatchObject({ archived: false, description: '', project: '', tags: [], prerequisites: [], owner: 'u_1' });
  });

  it('refuses a value of the wrong type wherever it is', async () => {
    const make = (rules: RuleInput[]) =>
      newFeature({ id: 'f', valueType: 'number', defaultValue: '1', environments: { dev: { rules } } }, { environments: ['dev'], owner: { owner: '' } });

    await expect(make([{ type: 'force', value: 'x' }])).rejects.toThrow(/\[environments\.dev\.rules\.0\.value\] Must be a valid number/);
    await expect(make([{ type: 'experiment', values: [{ value: '1', weight: 0.5 }, { value: 'y', weight: 0.5 }] }])).rejects.toThrow(
      /\[environments\.dev\.rules\.0\.values\.1\.value\]/,
    );
    await expect(make([{ type: 'experiment-ref', experimentId: 'e', variations: [{ variationId: 'v', value: 'z' }] }])).rejects.toThrow(
      /\[environments\.dev\.rules\.0\.variations\.0\.value\]/,
    );
  });
});

describe('applyFeatureUpdate', () => {
  const context = { environments: ['production', 'dev'] };

  it('changes only what is given, replacing tags', async () => {
    const next = await applyFeatureUpdate(stored({ description: 'kept' }), { tags: ['b', 'c'] }, context);

    expect(next).toEqual(stored({ description: 'kept', tags: ['b', 'c'] }));
  });

  it('removes the holdout with null and keeps it when absent', async () => {
    const withHoldout = stored({ holdout: { id: 'h', value: 'true' } });

    expect((await applyFeatureUpdate(withHoldout, { description: 'x' }, context)).holdout).toEqual({ id: 'h', value: 'true' });
    expect(await applyFeatureUpdate(withHoldout, { holdout: null }, context)).not.toHaveProperty('holdout');
  });

  it('refuses a holdout value of the wrong type', async () => {
    await expect(applyFeatureUpdate(stored({ valueType: 'number', defaultValue: '1' }), { holdout: { id: 'h', value: 'maybe' } }, context)).rejects.toThrow(
      /\[holdout\.value\]/,
    );
  });

  it('sets the resolved owner with its e-mail', async () => {
    const next = await applyFeatureUpdate(stored(), { owner: 'a@x.io' }, { ...context, owner: { owner: 'u_2', ownerEmail: 'a@x.io' } });

    expect(next).toMatchObject({ owner: 'u_2', ownerEmail: 'a@x.io' });
  });

  it('clears jsonSchema with an empty string', async () => {
    const json = stored({ valueType: 'json', defaultValue: '{}', jsonSchema: '{"type":"object"}' });

    expect(await applyFeatureUpdate(json, { jsonSchema: '' }, context)).not.toHaveProperty('jsonSchema');
  });
});

describe('applyToggle', () => {
  it('sets enabled per environment and leaves rules alone', () => {
    const rules = normaliseRules([{ type: 'force', value: 'true' }], 'r', 'flag');
    const feature = stored({ environments: { production: { enabled: true, rules }, dev: { enabled: false, rules: [] } } });

    const next = applyToggle(feature, { production: false, dev: true }, ['production', 'dev']);

    expect(next.environments).toEqual({ production: { enabled: false, rules }, dev: { enabled: true, rules: [] } });
  });
});

describe('findCycle', () => {
  const graph = (edges: Record<string, string[]>) => (id: string) => edges[id] ?? [];

  it('finds the path back to the start', () => {
    expect(findCycle('a', graph({ a: ['b'], b: ['c', 'd'], d: ['a'] }))).toEqual(['a', 'b', 'd', 'a']);
  });

  it('finds none in a graph with a cycle that avoids the start', () => {
    expect(findCycle('a', graph({ a: ['b'], b: ['c'], c: ['b'] }))).toBeUndefined();
  });

  it('finds a cycle exactly when the start is reachable from its dependencies', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e'];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...nodes), fc.constantFrom(...nodes))), (pairs) => {
        const edges: Record<string, string[]> = {};
        for (const [from, to] of pairs) (edges[from] ??= []).push(to);
        const reachable = new Set<string>();
        const stack = [...(edges.a ?? [])];
        while (stack.length) {
          const next = stack.pop()!;
          if (reachable.has(next)) continue;
          reachable.add(next);
          stack.push(...(edges[next] ?? []));
        }
        const cycle = findCycle('a', graph(edges));
        expect(cycle !== undefined).toBe(reachable.has('a'));
        if (cycle) cycle.slice(1).forEach((to, i) => expect(edges[cycle[i]]).toContain(to));
      }),
    );
  });
});

describe('featureListTags', () => {
  it('tags the project and each environment the feature is served in', () => {
    expect(featureListTags(stored({ project: 'prj_a' }))).toEqual(['project:prj_a', 'env:production']);
    expect(featureListTags(stored({ archived: true }))).toEqual(['project:']);
  });
});

describe('sameContent', () => {
  it('ignores revision, dates and key order', () => {
    const a = stored();
    const b = { ...stored({ revision: { ...a.revision, version: 9 }, dateUpdated: 'later' }) };
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as StoredFeature;

    expect(sameContent(a, b)).toBe(true);
    expect(sameContent(a, reordered)).toBe(true);
    expect(sameContent(a, stored({ tags: ['b'] }))).toBe(false);
  });
});

describe('toApiFeature', () => {
  it('shows every environment of the organization, defaults where never configured, and no request-only fields', () => {
    const feature = stored({ valueType: 'json', defaultValue: '{}', jsonSchema: '{}' });

    const api = toApiFeature(feature, ['production', 'staging'], (env) => (env === 'production' ? '{"defaultValue":{}}' : undefined));

    expect(api.environments).toEqual({
      production: { enabled: true, defaultValue: '{}', rules: [], definition: '{"defaultValue":{}}' },
      staging: { enabled: false, defaultValue: '{}', rules: [] },
    });
    expect(api).not.toHaveProperty('jsonSchema');
  });
});

describe('publishedEnvironments', () => {
  const envs = ['production', 'dev', 'staging'];
  const rule = { id: 'fr_1', type: 'force', value: 'true', condition: '', enabled: true, description: '' } as never;

  it('is the environments whose rules or state change, when nothing else changes', () => {
    const before = stored();
    const after = stored({ environments: { ...before.environments, dev: { enabled: true, rules: [rule] } } });

    expect(publishedEnvironments(before, after, envs)).toEqual(['dev']);
  });

  it('is every environment the feature is on in, before or after, when the default value changes', () => {
    const before = stored();
    const after = stored({ defaultValue: 'true', environments: { ...before.environments, staging: { enabled: true, rules: [] } } });

    expect(publishedEnvironments(before, after, envs)).toEqual(['production', 'staging']);
  });

  it('is every environment the feature is on in for a create or a delete, and none when nothing changes', () => {
    expect(publishedEnvironments(undefined, stored(), envs)).toEqual(['production']);
    expect(publishedEnvironments(stored(), undefined, envs)).toEqual(['production']);
    expect(publishedEnvironments(stored(), stored({ dateUpdated: '2025-01-01T00:00:00.000Z' }), envs)).toEqual([]);
  });
});
