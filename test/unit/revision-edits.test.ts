import { describeDiff } from '../../shared/domain/revision-diff';
import { activatePendingRamps, createBodyOf, windowRamp } from '../../shared/domain/pending-ramps';
import type { PendingRamp } from '../../shared/contracts/feature-revision-edits';

describe('the minimal diff of two revisions', () => {
  it('lists only the fields that differ: added, removed, or modified with the keys that changed', () => {
    const before = { defaultValue: 'a', metadata: { description: 'x', tags: ['t'] }, prerequisites: [] };
    const after = { defaultValue: 'a', metadata: { description: 'y', tags: ['t'] }, rampActions: [{ ruleId: 'r' }] };

    expect(describeDiff(before, after)).toEqual([
      { field: 'metadata', change: 'modified', before: { description: 'x' }, after: { description: 'y' } },
      { field: 'prerequisites', change: 'removed', value: [] },
      { field: 'rampActions', change: 'added', value: [{ ruleId: 'r' }] },
    ]);
  });

  it('compares id-keyed lists item by item and flags a reorder of the items both sides keep', () => {
    const before = { rules: [{ id: 'a', value: '1' }, { id: 'b', value: '2' }, { id: 'c', value: '3' }] };
    const after = { rules: [{ id: 'b', value: '2' }, { id: 'a', value: '9' }, { id: 'd', value: '4' }] };

    expect(describeDiff(before, after)).toEqual([
      {
        field: 'rules',
        change: 'modified',
        items: {
          added: [{ index: 2, value: { id: 'd', value: '4' } }],
          removed: [{ index: 2, value: { id: 'c', value: '3' } }],
          modified: [{ id: 'a', beforeIndex: 0, afterIndex: 1, before: { value: '1' }, after: { value: '9' } }],
          reordered: true,
          order: ['b', 'a', 'd'],
        },
      },
    ]);
  });

  it('shows both whole lists when their items are not keyed by unique ids', () => {
    expect(describeDiff({ tags: ['a'] }, { tags: ['b'] })).toEqual([{ field: 'tags', change: 'modified', before: ['a'], after: ['b'] }]);
  });
});

describe('pending ramps', () => {
  const feature = {
    id: 'f',
    valueType: 'string' as const,
    environments: { production: { rules: [{ id: 'r', type: 'rollout', value: 'on', coverage: 1, hashAttribute: 'id', enabled: true }] } },
  };
  const ramp = (fields: Partial<PendingRamp> = {}): PendingRamp => ({
    mode: 'create',
    ruleId: 'r',
    steps: [
      { interval: null, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.2 } }] },
      { interval: 60, actions: [{ patch: { coverage: 1 } }] },
    ],
    ...fields,
  });

  it("maps GrowthBook 5 steps to triggers: an interval in seconds, an approval hold; the cutoff stays GrowthBook 5's", () => {
    const body = createBodyOf('f', ramp({ cutoffDate: '2030-01-01T00:00:00.000Z' }));

    expect(body.steps!.map((step) => step.trigger)).toEqual([{ type: 'approval' }, { type: 'interval', seconds: 60 }]);
    expect(body.cutoffDate).toBe('2030-01-01T00:00:00.000Z');
    expect(body.endCondition).toBeUndefined();
    expect(body).toMatchObject({ featureId: 'f', ruleId: 'r', startDate: null });
  });

  it('maps an interval with an approval hold to an interval trigger that waits for approval once over', () => {
    const body = createBodyOf('f', ramp({ steps: [{ interval: 60, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.2 } }] }] }));

    expect(body.steps!.map(({ trigger, holdConditions }) => ({ trigger, holdConditions }))).toEqual([
      { trigger: { type: 'interval', seconds: 60 }, holdConditions: { requiresApproval: true } },
    ]);
  });

  it('starts a ramp without a start date at publish, its first step applied to the published rule', () => {
    const now = new Date('2026-01-01T00:00:00Z');

    const { feature: next, schedules } = activatePendingRamps(feature, [ramp()], now, 'org');

    expect(schedules).toEqual([expect.objectContaining({ status: 'pending-approval', currentStepIndex: 0, startedAt: now.toISOString() })]);
    expect(next.environments.production.rules[0]).toMatchObject({ coverage: 0.2, enabled: true });
  });

  it('leaves a ramp with a later start date, or asking for start approval, ready and the rule as published', () => {
    const now = new Date('2026-01-01T00:00:00Z');

    const { feature: next, schedules } = activatePendingRamps(
      feature,
      [ramp({ startDate: '2027-01-01T00:00:00.000Z' }), { ...ramp({ requiresStartApproval: true }), ruleId: 'r', environment: 'production' }],
      now,
      'org',
    );

    expect(schedules.map((schedule) => schedule.status)).toEqual(['ready', 'ready']);
    expect(next).toBe(feature);
  });

  it('drops a ramp whose rule the published feature no longer has', () => {
    const { schedules } = activatePendingRamps(feature, [windowRamp('gone', { endDate: '2030-01-01T00:00:00.000Z' })], new Date(), 'org');

    expect(schedules).toEqual([]);
  });
});
