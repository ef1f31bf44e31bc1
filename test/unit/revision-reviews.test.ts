import fc from 'fast-check';
import {
  afterEdit,
  deleteLogEntry,
  editLogComment,
  fromRequireReview,
  fromSavedGroupRule,
  needsReview,
  recallReview,
  requestReview,
  resetsApproval,
  ruleFor,
  statusOfVerdicts,
  submitReview,
  undoReview,
  type ChangeScope,
  type ReviewAction,
  type ReviewState,
  type RevisionLogEntry,
  type RevisionReview,
} from '../../shared/domain/revision-reviews';
import { featureChangeScope, type RevisionFields } from '../../shared/domain/revisions';

const at = '2026-11-26T00:00:00.000Z';
const author = { createdBy: 'u_author', contributors: ['u_helper'] };
const review = (state: ReviewState, userId: string, action: ReviewAction) => submitReview(state, author, { id: userId, at }, action);
const pending: ReviewState = { status: 'pending-review', reviews: [] };

describe('the review state machine', () => {
  it('sends a draft to review with no verdicts, and refuses any other status', () => {
    expect(requestReview({ status: 'draft', reviews: [{ userId: 'u_1', status: 'approved-stale', timestamp: at }] })).toEqual(pending);
    expect(() => requestReview(pending)).toThrow('Can only request review on a draft (status is "pending-review")');
    expect(() => requestReview({ status: 'published', reviews: [] })).toThrow('status is "published"');
  });

  it('approves with one approval, and lets a request for changes win over approvals', () => {
    const approved = review(pending, 'u_1', 'approve');
    expect(approved).toEqual({ status: 'approved', reviews: [{ userId: 'u_1', status: 'approved', timestamp: at }] });

    const sentBack = review(approved, 'u_2', 'request-changes');
    expect(sentBack.status).toBe('changes-requested');
    expect(review(sentBack, 'u_3', 'approve').status).toBe('changes-requested');
  });

  it('keeps one verdict per reviewer: a new verdict replaces the old one', () => {
    const changed = review(review(pending, 'u_1', 'request-changes'), 'u_1', 'approve');
    expect(changed.reviews).toEqual([{ userId: 'u_1', status: 'approved', timestamp: at }]);
    expect(changed.status).toBe('approved');
  });

  it('leaves the state alone for a comment, even on a draft and from the author', () => {
    const draft: ReviewState = { status: 'draft', reviews: [] };
    expect(review(draft, 'u_author', 'comment')).toBe(draft);
  });

  it('refuses a verdict from the author of the revision', () => {
    expect(() => review(pending, 'u_author', 'approve')).toThrow('Cannot submit a review on a draft you created');
    expect(() => review(pending, 'u_author', 'request-changes')).toThrow('Cannot submit a review on a draft you created');
  });

  it('refuses an approval from a contributor only when the rule blocks self-approval', () => {
    expect(review(pending, 'u_helper', 'approve').status).toBe('approved');
    expect(() => submitReview(pending, author, { id: 'u_helper', at }, 'approve', { blockSelfApproval: true })).toThrow(
      'You cannot approve a draft you contributed to.',
    );
    expect(submitReview(pending, author, { id: 'u_helper', at }, 'request-changes', { blockSelfApproval: true }).status).toBe('changes-requested');
  });

  it('refuses a verdict on a revision that is not under review', () => {
    for (const status of ['draft', 'published', 'discarded'] as const) {
      expect(() => review({ status, reviews: [] }, 'u_1', 'approve')).toThrow(`Can only submit a review when review has been requested (status is "${status}")`);
    }
  });

  it('recalls a review back to a plain draft, dropping the verdicts', () => {
    const approved = review(pending, 'u_1', 'approve');
    expect(recallReview(approved)).toEqual({ status: 'draft', reviews: [] });
    expect(() => recallReview({ status: 'draft', reviews: [] })).toThrow('Can only recall a review on a pending-review, changes-requested, or approved draft (status is "draft")');
  });

  it("undoes the caller's own verdict, the status following the verdicts that remain", () => {
    const two = review(review(pending, 'u_1', 'approve'), 'u_2', 'request-changes');
    const undone = undoReview(two, 'u_2');
    expect(undone).toEqual({ status: 'approved', reviews: [{ userId: 'u_1', status: 'approved', timestamp: at }] });
    expect(undoReview(undone, 'u_1')).toEqual(pending);
  });

  it('refuses to undo without an active verdict of the caller, or outside approved / changes-requested', () => {
    const approved = review(pending, 'u_1', 'approve');
    expect(() => undoReview(approved, 'u_9')).toThrow('You have no active review verdict to undo');
    expect(() => undoReview(pending, 'u_1')).toThrow('Can only undo a review on an approved or changes-requested draft (status is "pending-review")');
    const staleOnly: ReviewState = { status: 'approved', reviews: [{ userId: 'u_1', status: 'approved-stale', timestamp: at }, { userId: 'u_2', status: 'approved', timestamp: at }] };
    expect(() => undoReview(staleOnly, 'u_1')).toThrow('You have no active review verdict to undo');
  });

  it('marks verdicts stale when an edit sends the draft back to review', () => {
    const approved = review(review(pending, 'u_1', 'approve'), 'u_2', 'approve');
    const edited = afterEdit(approved);
    expect(edited.status).toBe('pending-review');
    expect(edited.reviews.map((r) => r.status)).toEqual(['approved-stale', 'approved-stale']);
    // Stale verdicts count for nothing: a new approval is needed.
    expect(statusOfVerdicts(edited.reviews)).toBe('pending-review');
  });

  it('keeps an approval through an edit its rule does not reset on, but always sends back a request for changes', () => {
    const approved = review(pending, 'u_1', 'approve');
    expect(afterEdit(approved, false)).toBe(approved);
    const sentBack = review(pending, 'u_1', 'request-changes');
    expect(afterEdit(sentBack, false)).toEqual({ status: 'pending-review', reviews: [{ userId: 'u_1', status: 'changes-requested-stale', timestamp: at }] });
    expect(afterEdit({ status: 'draft', reviews: [] })).toEqual({ status: 'draft', reviews: [] });
  });

  it('always derives the status from the active verdicts, whatever the sequence of reviews (property)', () => {
    const step = fc.record({ user: fc.constantFrom('u_1', 'u_2', 'u_3'), action: fc.constantFrom<ReviewAction>('approve', 'request-changes', 'comment') });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        const state = steps.reduce((s, { user, action }) => review(s, user, action), pending);
        const active = (status: RevisionReview['status']) => state.reviews.filter((r) => r.status === status).length;
        expect(new Set(state.reviews.map((r) => r.userId)).size).toBe(state.reviews.length);
        expect(state.status).toBe(active('changes-requested') ? 'changes-requested' : active('approved') ? 'approved' : 'pending-review');
      }),
    );
  });
});

describe('whether a change needs review', () => {
  const scope = (over: Partial<ChangeScope> = {}): ChangeScope => ({ global: 'none', ruleEnvironments: [], toggledEnvironments: [], environmentCount: 3, ...over });
  const rule = (over = {}) => fromRequireReview({ requireReviewOn: true, ...over });

  it('never without a rule, or with a rule that does not require review', () => {
    expect(needsReview(undefined, scope({ global: 'other' }))).toBe(false);
    expect(needsReview(fromRequireReview({ requireReviewOn: false }), scope({ global: 'other' }))).toBe(false);
  });

  it('always for a global change; for metadata alone unless the rule exempts it', () => {
    expect(needsReview(rule({ environments: ['production'] }), scope({ global: 'other' }))).toBe(true);
    expect(needsReview(rule(), scope({ global: 'metadata' }))).toBe(true);
    expect(needsReview(rule({ featureRequireMetadataReview: false }), scope({ global: 'metadata' }))).toBe(false);
    // The exemption covers metadata only: a rule change beside it still counts.
    expect(needsReview(rule({ featureRequireMetadataReview: false }), scope({ global: 'metadata', ruleEnvironments: ['dev'] }))).toBe(true);
  });

  it('for rule changes in a gated environment only, or anywhere when the rule names none', () => {
    expect(needsReview(rule({ environments: ['production'] }), scope({ ruleEnvironments: ['production'] }))).toBe(true);
    expect(needsReview(rule({ environments: ['production'] }), scope({ ruleEnvironments: ['dev'] }))).toBe(false);
    expect(needsReview(rule(), scope({ ruleEnvironments: ['dev'] }))).toBe(true);
    expect(needsReview(rule(), scope())).toBe(false);
  });

  it('for toggles in a gated environment unless the rule exempts toggles', () => {
    expect(needsReview(rule({ environments: ['production'] }), scope({ toggledEnvironments: ['production'] }))).toBe(true);
    expect(needsReview(rule({ environments: ['production'] }), scope({ toggledEnvironments: ['dev'] }))).toBe(false);
    expect(needsReview(rule({ environments: ['production'], featureRequireEnvironmentReview: false }), scope({ toggledEnvironments: ['production'] }))).toBe(false);
  });

  it('always for a change that reaches every environment, as GrowthBook collapses it to a global one', () => {
    const all = scope({ toggledEnvironments: ['dev', 'staging', 'production'] });
    expect(needsReview(rule({ environments: ['elsewhere'], featureRequireEnvironmentReview: false }), all)).toBe(true);
  });

  it('takes the first rule naming one of the projects, or the first naming none', () => {
    const rules = [{ projects: ['prj_a'], requireReviewOn: false }, { projects: [], requireReviewOn: true }, { projects: ['prj_b'], requireReviewOn: false }];
    expect(ruleFor(rules, ['prj_a'])).toBe(rules[0]);
    expect(ruleFor(rules, ['prj_b'])).toBe(rules[1]);
    expect(ruleFor(rules, [])).toBe(rules[1]);
    expect(ruleFor([{ projects: ['prj_a'] }], ['prj_c'])).toBeUndefined();
    expect(ruleFor(rules, ['prj_c', 'prj_a'])).toBe(rules[0]);
  });

  it('reads saved-group rules the same way (no environments)', () => {
    expect(needsReview(fromSavedGroupRule({ required: true }), scope({ global: 'other', environmentCount: 0 }))).toBe(true);
    expect(needsReview(fromSavedGroupRule({ required: true, requireMetadataReview: false }), scope({ global: 'metadata', environmentCount: 0 }))).toBe(false);
    expect(needsReview(fromSavedGroupRule({ required: false }), scope({ global: 'other', environmentCount: 0 }))).toBe(false);
  });

  it('resets an approval on an edit only under a rule that resets, for global edits or gated environments', () => {
    expect(resetsApproval(rule(), scope({ global: 'other' }))).toBe(false);
    expect(resetsApproval(rule({ resetReviewOnChange: true }), scope({ global: 'metadata' }))).toBe(true);
    expect(resetsApproval(rule({ resetReviewOnChange: true, environments: ['production'] }), scope({ ruleEnvironments: ['dev'] }))).toBe(false);
    expect(resetsApproval(rule({ resetReviewOnChange: true, environments: ['production'] }), scope({ toggledEnvironments: ['production'] }))).toBe(true);
  });

  it("sees a feature's change field by field", () => {
    const fields: RevisionFields = {
      defaultValue: 'false',
      rules: { dev: [], production: [] },
      environmentsEnabled: { dev: true, production: false },
      prerequisites: [],
      archived: false,
      metadata: { description: '', owner: '', project: '', tags: [] },
    };
    const envs = ['dev', 'production'];
    expect(featureChangeScope(fields, fields, envs)).toEqual({ global: 'none', ruleEnvironments: [], toggledEnvironments: [], environmentCount: 2 });
    expect(featureChangeScope(fields, { ...fields, environmentsEnabled: { dev: true, production: true } }, envs).toggledEnvironments).toEqual(['production']);
    expect(featureChangeScope(fields, { ...fields, metadata: { ...fields.metadata, tags: ['x'] } }, envs).global).toBe('metadata');
    expect(featureChangeScope(fields, { ...fields, defaultValue: 'true', metadata: { ...fields.metadata, tags: ['x'] } }, envs).global).toBe('other');
  });
});

describe('the revision log', () => {
  const entry = (id: string, action: string, user: RevisionLogEntry['user'], value = '{}'): RevisionLogEntry => ({ id, action, subject: '', value, timestamp: at, user });
  const log = [
    entry('l1', 'Comment', { type: 'dashboard', id: 'u_1' }, JSON.stringify({ comment: 'first' })),
    entry('l2', 'Approved', { type: 'dashboard', id: 'u_1' }, JSON.stringify({ comment: 'ok' })),
    entry('l3', 'Review Requested', { type: 'dashboard', id: 'u_1' }),
    entry('l4', 'Comment', { type: 'api_key', id: 'key_1' }),
  ];

  it("lets the author rewrite a comment's or a verdict's text, keeping the rest of the entry", () => {
    const edited = editLogComment(log, 'l2', 'u_1', 'fine by me');
    expect(edited[1]).toEqual({ ...log[1], value: JSON.stringify({ comment: 'fine by me' }) });
    expect(edited.filter((e, i) => e !== log[i])).toHaveLength(1);
  });

  it('refuses edits by anyone else, of other actions, and by API keys; 404 for an unknown entry', () => {
    expect(() => editLogComment(log, 'l1', 'u_2', 'x')).toThrow('You do not have access to update this resource');
    expect(() => editLogComment(log, 'l3', 'u_1', 'x')).toThrow('You do not have access to update this resource');
    expect(() => editLogComment(log, 'l4', 'key_1', 'x')).toThrow('You do not have access to update this resource');
    expect(() => editLogComment(log, 'l4', undefined, 'x')).toThrow('You do not have access to update this resource');
    expect(() => editLogComment(log, 'nope', 'u_1', 'x')).toThrow('Could not find revision log entry');
  });

  it('lets the author delete a plain comment only; a missing entry is already gone', () => {
    expect(deleteLogEntry(log, 'l1', 'u_1').map((e) => e.id)).toEqual(['l2', 'l3', 'l4']);
    expect(() => deleteLogEntry(log, 'l2', 'u_1')).toThrow('You do not have access to delete this resource');
    expect(() => deleteLogEntry(log, 'l1', 'u_2')).toThrow('You do not have access to delete this resource');
    expect(deleteLogEntry(log, 'nope', 'u_1')).toBe(log);
  });
});
