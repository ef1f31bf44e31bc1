import fc from 'fast-check';
import type { FeatureRule } from '../../shared/contracts/features';
import type { StoredFeature } from '../../shared/domain/features';
import {
  afterEdit,
  assertStatus,
  fieldsOf,
  mergeChanges,
  mergeRevision,
  openStatuses,
  reorderRules,
  sameFields,
  staleReviews,
  withFields,
  withoutRule,
  type RevisionFields,
} from '../../shared/domain/revisions';

const rule = (id: string, value: string): FeatureRule => ({ id, type: 'force', value, description: '', enabled: true, condition: '' });

const base: RevisionFields = {
  defaultValue: 'blue',
  rules: { production: [rule('r1', 'a'), rule('r2', 'b')], dev: [] },
  environmentsEnabled: { production: true, dev: false },
  prerequisites: [],
  archived: false,
  metadata: { description: '', owner: 'u_1', project: '', tags: [] },
};

describe('mergeRevision (GrowthBook three-way merge)', () => {
  it('takes the draft as it is when the live version is still its base', () => {
    const draft = { ...base, defaultValue: 'green', archived: true };

    const outcome = mergeRevision(base, base, draft);

    expect(outcome).toEqual({ success: true, merged: draft, conflicts: [] });
  });

  it('keeps changes published since the base in fields the draft left alone', () => {
    const live = { ...base, environmentsEnabled: { production: false, dev: false } };
    const draft = { ...base, defaultValue: 'green' };

    const outcome = mergeRevision(live, base, draft);

    expect(outcome).toEqual({ success: true, conflicts: [], merged: { ...live, defaultValue: 'green' } });
  });

  it('reports a field both sides changed differently as a conflict, with the three values', () => {
    const outcome = mergeRevision({ ...base, defaultValue: 'green' }, base, { ...base, defaultValue: 'red' });

    expect(outcome).toEqual({
      success: false,
      conflicts: [{ name: 'Default Value', key: 'defaultValue', resolved: false, base: '"blue"', live: '"green"', revision: '"red"' }],
    });
  });

  it('does not conflict when both sides made the same change', () => {
    const outcome = mergeRevision({ ...base, defaultValue: 'green' }, base, { ...base, defaultValue: 'green' });

    expect(outcome).toMatchObject({ success: true, conflicts: [] });
  });

  it('merges rules rule by rule: an edit of one rule on each side is no conflict', () => {
    const live = { ...base, rules: { ...base.rules, production: [rule('r1', 'x'), rule('r2', 'b')] } };
    const draft = { ...base, rules: { ...base.rules, production: [rule('r1', 'a'), rule('r2', 'y'), rule('r3', 'new')] } };

    const outcome = mergeRevision(live, base, draft);

    expect(outcome).toMatchObject({ success: true, conflicts: [] });
    expect(outcome.success && outcome.merged.rules.production).toEqual([rule('r1', 'x'), rule('r2', 'y'), rule('r3', 'new')]);
  });

  it('keys a conflict on one rule by its id, and competing reorders as rules.order', () => {
    const live = { ...base, rules: { ...base.rules, production: [rule('r2', 'b'), rule('r1', 'x')] } };
    const draft = { ...base, rules: { ...base.rules, production: [rule('r1', 'z'), rule('r2', 'b')] } };

    const outcome = mergeRevision(live, base, draft);

    expect(outcome.success).toBe(false);
    expect(outcome.conflicts.map((c) => c.key)).toEqual(['rules.r1']);

    const reordered = mergeRevision(
      { ...base, rules: { ...base.rules, production: [rule('r2', 'b'), rule('r1', 'a'), rule('r3', 'c')] } },
      { ...base, rules: { ...base.rules, production: [rule('r1', 'a'), rule('r2', 'b'), rule('r3', 'c')] } },
      { ...base, rules: { ...base.rules, production: [rule('r1', 'a'), rule('r3', 'c'), rule('r2', 'b')] } },
    );
    expect(reordered.conflicts.map((c) => c.key)).toEqual(['rules.order']);
  });

  it('applies a rule deletion of the draft, and conflicts when live edited the rule the draft deleted', () => {
    const draft = { ...base, rules: { ...base.rules, production: [rule('r2', 'b')] } };
    const liveTouchedOther = { ...base, defaultValue: 'green' };
    const liveEditedIt = { ...base, rules: { ...base.rules, production: [rule('r1', 'x'), rule('r2', 'b'), rule('r3', 'c')] } };

    const clean = mergeRevision(liveTouchedOther, base, draft);
    const clash = mergeRevision(liveEditedIt, base, draft);

    expect(clean.success && clean.merged.rules.production).toEqual([rule('r2', 'b')]);
    expect(clash.conflicts.map((c) => c.key)).toEqual(['rules.r1']);
  });

  it('settles conflicts with strategies: overwrite keeps the draft, discard keeps live, `rules` covers every rule', () => {
    const live = { ...base, defaultValue: 'green', rules: { ...base.rules, production: [rule('r1', 'x'), rule('r2', 'b')] } };
    const draft = { ...base, defaultValue: 'red', rules: { ...base.rules, production: [rule('r1', 'z'), rule('r2', 'b')] } };

    const outcome = mergeRevision(live, base, draft, { defaultValue: 'discard', rules: 'overwrite' });

    expect(outcome.success).toBe(true);
    expect(outcome.conflicts.every((c) => c.resolved)).toBe(true);
    expect(outcome.success && [outcome.merged.defaultValue, outcome.merged.rules.production]).toEqual(['green', [rule('r1', 'z'), rule('r2', 'b')]]);
  });

  it('lists what a merge changes in the live version, field by field', () => {
    const merged = { ...base, defaultValue: 'green', environmentsEnabled: { production: false, dev: false } };

    expect(mergeChanges(base, merged)).toEqual({ defaultValue: 'green', environmentsEnabled: { production: false } });
    expect(mergeChanges(base, base)).toEqual({});
  });
});

describe('revision statuses and verdicts', () => {
  it('allows an action only in the statuses it names, with the statuses in the error', () => {
    expect(() => assertStatus('draft', openStatuses, 'publish')).not.toThrow();
    expect(() => assertStatus('published', openStatuses, 'publish')).toThrow('Cannot publish a revision with status "published"');
  });

  it('marks verdicts stale when the draft changes after them, and sends an approved draft back to review', () => {
    const reviews = [
      { userId: 'u_1', status: 'approved' as const, timestamp: 't' },
      { userId: 'u_2', status: 'changes-requested-stale' as const, timestamp: 't' },
    ];

    expect(staleReviews(reviews).map((r) => r.status)).toEqual(['approved-stale', 'changes-requested-stale']);
    expect(afterEdit({ status: 'approved', reviews }).status).toBe('pending-review');
    expect(afterEdit({ status: 'draft', reviews: [] })).toEqual({ status: 'draft', reviews: [] });
  });
});

// ---- properties ----

const envs = ['production', 'dev'];
const ruleArb = fc.record({ id: fc.constantFrom('r1', 'r2', 'r3', 'r4'), value: fc.constantFrom('a', 'b', 'c') }).map(({ id, value }) => rule(id, value));
const rulesArb = fc.uniqueArray(ruleArb, { selector: (r) => r.id, maxLength: 4 });
const fieldsArb: fc.Arbitrary<RevisionFields> = fc.record({
  defaultValue: fc.constantFrom('blue', 'green', 'red'),
  rules: fc.record({ production: rulesArb, dev: rulesArb }),
  environmentsEnabled: fc.record({ production: fc.boolean(), dev: fc.boolean() }),
  prerequisites: fc.constantFrom([], ['parent']),
  archived: fc.boolean(),
  metadata: fc.record({
    description: fc.constantFrom('', 'd'),
    owner: fc.constantFrom('u_1', 'u_2'),
    project: fc.constantFrom('', 'prj_1'),
    tags: fc.constantFrom([], ['t']),
  }),
});

/** An edit of some fields of a revision: each field kept or replaced. */
const editArb = fc.record(
  {
    defaultValue: fc.constantFrom('blue', 'green', 'red', 'teal'),
    production: rulesArb,
    dev: rulesArb,
    enabled: fc.boolean(),
    archived: fc.boolean(),
    description: fc.constantFrom('', 'x', 'y'),
  },
  { requiredKeys: [] },
);
type Edit = typeof editArb extends fc.Arbitrary<infer E> ? E : never;
function applyEdit(fields: RevisionFields, edit: Edit): RevisionFields {
  return {
    ...fields,
    ...(edit.defaultValue !== undefined ? { defaultValue: edit.defaultValue } : {}),
    rules: { production: edit.production ?? fields.rules.production!, dev: edit.dev ?? fields.rules.dev! },
    environmentsEnabled: { ...fields.environmentsEnabled, ...(edit.enabled !== undefined ? { production: edit.enabled } : {}) },
    ...(edit.archived !== undefined ? { archived: edit.archived } : {}),
    metadata: { ...fields.metadata, ...(edit.description !== undefined ? { description: edit.description } : {}) },
  };
}

describe('merge properties', () => {
  it('a draft merged into its own base is the draft; an untouched draft merged into anything is that thing', () => {
    fc.assert(
      fc.property(fieldsArb, fieldsArb, fieldsArb, (live, baseFields, draft) => {
        expect(mergeRevision(baseFields, baseFields, draft)).toEqual({ success: true, merged: draft, conflicts: [] });
        expect(mergeRevision(live, baseFields, baseFields)).toMatchObject({ success: true, merged: live });
      }),
    );
  });

  it('without conflicts, every change either side made since the base is in the merge', () => {
    fc.assert(
      fc.property(fieldsArb, editArb, editArb, (baseFields, liveEdit, draftEdit) => {
        const live = applyEdit(baseFields, liveEdit);
        const draft = applyEdit(baseFields, draftEdit);
        const outcome = mergeRevision(live, baseFields, draft);
        if (!outcome.success) {
          expect(outcome.conflicts.length).toBeGreaterThan(0);
          return;
        }
        const { merged } = outcome;
        const scalar = (f: RevisionFields) => [f.defaultValue, f.environmentsEnabled.production, f.archived, f.metadata.description];
        scalar(merged).forEach((value, i) => {
          const [b, l, d] = [scalar(baseFields)[i], scalar(live)[i], scalar(draft)[i]];
          expect(value).toEqual(d !== b ? d : l);
        });
        for (const env of envs) {
          const ids = (list: FeatureRule[] = []) => new Map(list.map((r) => [r.id, JSON.stringify(r)]));
          const [b, l, d, m] = [ids(baseFields.rules[env]), ids(live.rules[env]), ids(draft.rules[env]), ids(merged.rules[env])];
          for (const id of new Set([...b.keys(), ...l.keys(), ...d.keys()])) {
            expect(m.get(id)).toEqual(d.get(id) !== b.get(id) ? d.get(id) : l.get(id));
          }
        }
      }),
    );
  });

  it('changes to different fields never conflict', () => {
    fc.assert(
      fc.property(fieldsArb, fc.constantFrom('green', 'teal'), fc.boolean(), (baseFields, value, on) => {
        const live = { ...baseFields, environmentsEnabled: { ...baseFields.environmentsEnabled, production: on } };
        const draft = { ...baseFields, defaultValue: value };
        const outcome = mergeRevision(live, baseFields, draft);
        expect(outcome).toEqual({ success: true, conflicts: [], merged: { ...live, defaultValue: value } });
      }),
    );
  });
});

/** The engine over any sequence of actions, as the use cases drive it, kept in memory. */
type Action =
  | { kind: 'draft' }
  | { kind: 'edit'; draft: number; edit: Edit }
  | { kind: 'publish'; draft: number }
  | { kind: 'direct'; edit: Edit }
  | { kind: 'discard'; draft: number }
  | { kind: 'reopen'; draft: number }
  | { kind: 'rebase'; draft: number; overwrite: boolean }
  | { kind: 'revert'; to: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.constant({ kind: 'draft' as const }),
  fc.record({ kind: fc.constant('edit' as const), draft: fc.nat(5), edit: editArb }),
  fc.record({ kind: fc.constant('publish' as const), draft: fc.nat(5) }),
  fc.record({ kind: fc.constant('direct' as const), edit: editArb }),
  fc.record({ kind: fc.constant('discard' as const), draft: fc.nat(5) }),
  fc.record({ kind: fc.constant('reopen' as const), draft: fc.nat(5) }),
  fc.record({ kind: fc.constant('rebase' as const), draft: fc.nat(5), overwrite: fc.boolean() }),
  fc.record({ kind: fc.constant('revert' as const), to: fc.nat(8) }),
);

const feature = (fields: RevisionFields): StoredFeature =>
  withFields(
    {
      id: 'f',
      dateCreated: '',
      dateUpdated: '',
      archived: false,
      description: '',
      owner: 'u_1',
      project: '',
      valueType: 'string',
      defaultValue: '',
      tags: [],
      environments: {},
      prerequisites: [],
      revision: { version: 1, comment: '', date: '', createdBy: '', publishedBy: '' },
    },
    fields,
  );

describe('the revision engine over any sequence of actions', () => {
  it('leaves the live feature equal to replaying the published revisions in order, and never changes live by a draft edit', () => {
    fc.assert(
      fc.property(fieldsArb, fc.array(actionArb, { maxLength: 30 }), (initial, actions) => {
        let live = feature(initial);
        const published: RevisionFields[] = [initial];
        const drafts: Array<{ fields: RevisionFields; base: number; status: string }> = [];
        const open = (i: number) => drafts[i] && openStatuses.includes(drafts[i]!.status as never);
        const publish = (fields: RevisionFields) => {
          live = withFields(live, fields);
          published.push(fieldsOf(live));
        };
        for (const action of actions) {
          const before = fieldsOf(live);
          switch (action.kind) {
            case 'draft':
              drafts.push({ fields: fieldsOf(live), base: published.length - 1, status: 'draft' });
              break;
            case 'edit':
              if (open(action.draft)) drafts[action.draft]!.fields = applyEdit(drafts[action.draft]!.fields, action.edit);
              expect(fieldsOf(live)).toEqual(before);
              break;
            case 'publish': {
              const draft = drafts[action.draft];
              if (!open(action.draft)) break;
              const outcome = mergeRevision(fieldsOf(live), published[draft!.base]!, draft!.fields);
              if (!outcome.success || sameFields(outcome.merged, fieldsOf(live))) break;
              publish(outcome.merged);
              draft!.status = 'published';
              break;
            }
            case 'direct':
              publish(applyEdit(fieldsOf(live), action.edit));
              break;
            case 'discard':
              if (open(action.draft)) drafts[action.draft]!.status = 'discarded';
              break;
            case 'reopen':
              if (drafts[action.draft]?.status === 'discarded') drafts[action.draft]!.status = 'draft';
              break;
            case 'rebase': {
              const draft = drafts[action.draft];
              if (!open(action.draft)) break;
              const outcome = mergeRevision(fieldsOf(live), published[draft!.base]!, draft!.fields, action.overwrite ? { defaultValue: 'overwrite', rules: 'overwrite' } : {});
              if (outcome.success) Object.assign(draft!, { fields: outcome.merged, base: published.length - 1 });
              break;
            }
            case 'revert':
              if (action.to < published.length - 1) publish(published[action.to]!);
              break;
          }
        }
        const replayed = published.reduce((state, fields) => withFields(state, fields), feature(initial));
        expect(fieldsOf(replayed)).toEqual(fieldsOf(live));
        expect(fieldsOf(live)).toEqual(published[published.length - 1]);
      }),
    );
  });
});

describe('rule edits of a draft', () => {
  const fields = { ...base, rules: { production: [rule('r1', 'a'), rule('r2', 'b')], dev: [rule('r2', 'b')] } };

  it('reorders the rules of every environment by one list naming each rule once', () => {
    const reordered = reorderRules(fields, ['r2', 'r1'], envs);

    expect(reordered.rules.production!.map((r) => r.id)).toEqual(['r2', 'r1']);
    expect(reordered.rules.dev!.map((r) => r.id)).toEqual(['r2']);
    expect(() => reorderRules(fields, ['r2'], envs)).toThrow('r1 is missing');
    expect(() => reorderRules(fields, ['r2', 'r1', 'r1'], envs)).toThrow('names rule r1 twice');
    expect(() => reorderRules(fields, ['r2', 'r1', 'r9'], envs)).toThrow('no rule r9');
  });

  it('deletes a rule from every environment, or says it has none', () => {
    expect(withoutRule(fields, 'r2')?.rules).toEqual({ production: [rule('r1', 'a')], dev: [] });
    expect(withoutRule(fields, 'r9')).toBeUndefined();
  });
});
