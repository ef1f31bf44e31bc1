import fc from 'fast-check';
import type { SavedGroup } from '../../shared/contracts/saved-groups';
import { discarded, mergeFlat, reopened } from '../../shared/domain/revisions';
import { fieldsOfGroup, mergeGroup, presentSavedGroupRevision, withGroupFields, type StoredSavedGroupRevision } from '../../shared/domain/saved-group-revisions';

const group: SavedGroup = {
  id: 'grp_1',
  type: 'list',
  dateCreated: '2026-01-01T00:00:00.000Z',
  dateUpdated: '2026-01-01T00:00:00.000Z',
  name: 'Staff',
  owner: 'u_1',
  ownerEmail: 'one@example.com',
  attributeKey: 'id',
  values: ['a'],
  description: '',
  projects: [],
};

describe('mergeFlat (GrowthBook\'s field-by-field merge of flat revisions)', () => {
  const fields = ['name', 'values'] as const;

  it('takes each side\'s change to a field only it changed', () => {
    const base = { name: 'A', values: ['x'] };

    const outcome = mergeFlat(fields, { base, live: { ...base, name: 'B' }, revision: { ...base, values: ['y'] } });

    expect(outcome).toEqual({ success: true, merged: { name: 'B', values: ['y'] }, conflicts: [] });
  });

  it('reports a field both sides changed differently, and settles it by strategy: overwrite, discard, union or custom values', () => {
    const versions = { base: { name: 'A', values: ['x'] }, live: { name: 'A', values: ['x', 'l'] }, revision: { name: 'A', values: ['x', 'r'] } };
    const conflict = { field: 'values', base: ['x'], live: ['x', 'l'], revision: ['x', 'r'] };

    expect(mergeFlat(fields, versions)).toEqual({ success: false, conflicts: [{ ...conflict, resolved: false }] });
    expect(mergeFlat(fields, versions, { strategies: { values: 'overwrite' } })).toMatchObject({ success: true, merged: { values: ['x', 'r'] } });
    expect(mergeFlat(fields, versions, { strategies: { values: 'discard' } })).toMatchObject({ success: true, merged: { values: ['x', 'l'] } });
    expect(mergeFlat(fields, versions, { strategies: { values: 'union' } })).toMatchObject({ success: true, merged: { values: ['x', 'l', 'r'] } });
    expect(mergeFlat(fields, versions, { strategies: { values: 'union' }, customValues: { values: ['z'] } })).toMatchObject({ merged: { values: ['z'] } });
  });

  it('gives the draft as it is when the live version is still its base, and live as it is when the draft changed nothing (property)', () => {
    const record = fc.record({ name: fc.string(), values: fc.array(fc.string(), { maxLength: 3 }) });
    fc.assert(
      fc.property(record, record, (base, other) => {
        expect(mergeFlat(fields, { base, live: base, revision: other })).toEqual({ success: true, merged: other, conflicts: [] });
        expect(mergeFlat(fields, { base, live: other, revision: base })).toEqual({ success: true, merged: other, conflicts: [] });
      }),
    );
  });
});

describe('revision transitions', () => {
  it('discards only an open revision, and reopens only a discarded one as a draft without verdicts', () => {
    const review = { userId: 'u_2', status: 'approved' as const, timestamp: 'now' };

    expect(discarded({ status: 'approved' as const, reviews: [review] })).toEqual({ status: 'discarded', reviews: [review] });
    expect(reopened({ status: 'discarded' as const, reviews: [review] })).toEqual({ status: 'draft', reviews: [] });
    expect(() => discarded({ status: 'published' as const })).toThrow('Cannot discard a revision with status "published"');
    expect(() => reopened({ status: 'draft' as const })).toThrow('Cannot reopen a revision with status "draft"');
  });
});

describe('saved-group revisions', () => {
  const draft = (proposed: Partial<ReturnType<typeof fieldsOfGroup>>): StoredSavedGroupRevision => ({
    id: 'rev_1',
    savedGroupId: group.id,
    version: 2,
    status: 'draft',
    date: 'then',
    base: group,
    proposed: { ...fieldsOfGroup(group), ...proposed },
    activityLog: [],
  });

  it('carries the owner\'s e-mail with the owner that wins the merge', () => {
    const live = { ...group, description: 'live' };

    const outcome = mergeGroup(live, draft({ owner: 'Someone', ownerEmail: undefined }));

    expect(outcome).toMatchObject({ success: true, merged: { owner: 'Someone', description: 'live' } });
    expect(outcome.success && 'ownerEmail' in outcome.merged).toBe(false);
    // A group stored before `archived` existed gets it written out.
    expect(withGroupFields(live, fieldsOfGroup(live))).toEqual({ ...live, archived: false });
  });

  it('shows a revision with its changes as JSON Patch operations, and a published one as merged', () => {
    const shown = presentSavedGroupRevision({ ...draft({ values: ['a', 'b'], archived: true }), status: 'published' });

    expect(shown.status).toBe('merged');
    expect(shown.proposedChanges).toEqual([
      { op: 'replace', path: '/values', value: ['a', 'b'] },
      { op: 'add', path: '/archived', value: true },
    ]);
    expect(shown.proposedSavedGroup).toMatchObject({ values: ['a', 'b'], archived: true });
    expect(shown.baseSavedGroup).toEqual(group);
  });
});
