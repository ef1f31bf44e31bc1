import { act, awaitsApproval, locksFeature, type RampScheduleRecord } from '../../shared/domain/ramp-schedule';
import { timingOf } from '../../shared/domain/ramp-definition';
import { replaceStepTimings, withTemplate } from '../../shared/domain/ramp-steps';
import type { RampScheduleTemplate } from '../../shared/contracts/ramp-schedule-templates';
import { captureRuleState } from '../../shared/domain/ramp-rules';
import { FEATURE_ID, T0, applied, at, errorOf, inStatus, isoAt, readySchedule, rolloutRule, ruleOf } from './ramp-schedule-fixtures';

/** The fixture's schedule: 10% for 60 s, then 50% waiting for approval, then 100% for 60 s. */
describe('advance', () => {
  it('enters the next step now, whatever is left of the current one', () => {
    const { schedule, feature } = inStatus('running');

    const { schedule: next, writes, comment } = act(schedule, { type: 'advance' }, at(10), [feature]);

    expect(next).toMatchObject({ status: 'pending-approval', currentStepIndex: 1, phaseStartedAt: isoAt(10), nextStepAt: null });
    expect(writes.map((write) => write.patch)).toEqual([{ coverage: 0.5 }]);
    expect(comment).toBe('Ramp step 2 of 3');
  });

  it('resumes a paused schedule, counting the pause as paused time', () => {
    const { schedule, feature } = inStatus('paused');

    const { schedule: next } = act(schedule, { type: 'advance' }, at(50), [feature]);

    expect(next).toMatchObject({ status: 'pending-approval', currentStepIndex: 1, pausedAt: null, pausedMs: 20_000 });
  });

  it('refuses to pass an approval without force (409), and passes it with force', () => {
    const { schedule, feature } = inStatus('pending-approval');

    const refused = errorOf(() => act(schedule, { type: 'advance' }, at(70), [feature]));
    const { schedule: next } = act(schedule, { type: 'advance', force: true }, at(70), [feature]);

    expect(refused).toMatchObject({ status: 409, code: 'invalid_status' });
    expect(next).toMatchObject({ status: 'running', currentStepIndex: 2, nextStepAt: isoAt(130) });
  });

  it('completes past the last step, with the end actions', () => {
    const { schedule, feature } = inStatus('pending-approval');
    const atLast = applied(act(schedule, { type: 'advance', force: true }, at(70), [feature]), feature);

    const { schedule: next, writes } = act(atLast.schedule, { type: 'advance' }, at(80), [atLast.feature]);

    expect(next).toMatchObject({ status: 'completed', currentStepIndex: 2, nextStepAt: null, endedAt: isoAt(80) });
    expect(writes.map((write) => write.patch)).toEqual([{ condition: null }]);
  });

  it('knows when the schedule waits on an approval, paused there or not', () => {
    const waiting = inStatus('pending-approval');
    const pausedThere = act(waiting.schedule, { type: 'pause' }, at(70), [waiting.feature]).schedule;

    expect([awaitsApproval(waiting.schedule), awaitsApproval(pausedThere), awaitsApproval(inStatus('running').schedule)]).toEqual([true, true, false]);
  });
});

describe('restart', () => {
  it('rewinds a completed schedule to the captured state and enters step 0', () => {
    const { schedule, feature } = inStatus('completed');

    const { schedule: next, writes } = act(schedule, { type: 'restart' }, at(100), [feature]);

    expect(next).toMatchObject({ status: 'running', currentStepIndex: 0, startedAt: isoAt(100), endedAt: null, pausedMs: 0, nextStepAt: isoAt(160) });
    expect(writes).toHaveLength(1);
    expect(writes[0].restore).toEqual(captureRuleState(rolloutRule('fr_1')));
    expect(writes[0].patch).toEqual({ enabled: true, coverage: 0.1 });
  });

  it('captures a rolled-back schedule\'s rules as they are now, edits since the rollback included', () => {
    const { schedule, feature } = inStatus('rolled-back');
    const edited = structuredClone(feature);
    ruleOf(edited).condition = '{"country":"NL"}';

    const { schedule: next, writes } = act(schedule, { type: 'restart' }, at(100), [edited]);

    expect(next.captured.t_main.production.condition).toBe('{"country":"NL"}');
    expect(writes[0].restore).toBeUndefined();
    expect(writes[0].patch).toEqual({ enabled: true, coverage: 0.1 });
  });
});

describe('lockdown', () => {
  it('locks the feature only while running or waiting for approval, and only when locked', () => {
    const locked = (schedule: RampScheduleRecord): RampScheduleRecord => ({ ...schedule, lockdownConfig: { mode: 'locked' } });

    const byStatus = (['ready', 'running', 'pending-approval', 'paused', 'completed', 'rolled-back'] as const).map((status) =>
      locksFeature(locked(inStatus(status).schedule)),
    );

    expect(byStatus).toEqual([false, true, true, false, false, false]);
    expect(locksFeature({ ...inStatus('running').schedule, lockdownConfig: { mode: 'none' } })).toBe(false);
    expect(locksFeature(inStatus('running').schedule)).toBe(false);
  });
});

describe("GrowthBook 5's steps", () => {
  it.each([
    [{ interval: 60 }, { trigger: { type: 'interval', seconds: 60 } }],
    [{ interval: null, holdConditions: { requiresApproval: true } }, { trigger: { type: 'approval' } }],
    [{ interval: 60, holdConditions: { requiresApproval: false } }, { trigger: { type: 'interval', seconds: 60 } }],
    // An interval, then an approval once it is over.
    [{ interval: 60, holdConditions: { requiresApproval: true } }, { trigger: { type: 'interval', seconds: 60 }, holdConditions: { requiresApproval: true } }],
    // A monitored step keeps its time hold; its monitoring is checked with the schedule's config (ramp-definition).
    [{ interval: 60, monitored: true }, { trigger: { type: 'interval', seconds: 60 } }],
  ])('turns %j into the timing %j', (step, timing) => {
    expect(timingOf(step, 'Request body: [steps.0')).toEqual(timing);
  });

  it.each([
    [{ interval: null }, 'Request body: [steps.0.interval]'],
    [{ interval: 60, holdConditions: { minSampleSize: 10 } }, 'Request body: [steps.0.holdConditions.minSampleSize]'],
  ])('refuses %j with 400 naming the field', (step, prefix) => {
    const error = errorOf(() => timingOf(step, 'Request body: [steps.0'));

    expect(error?.status).toBe(400);
    expect(error?.message.startsWith(prefix)).toBe(true);
  });

  it('replaces the timing of each position and keeps its actions', () => {
    const { schedule, feature } = readySchedule();

    const next = replaceStepTimings(schedule, [{ interval: null, holdConditions: { requiresApproval: true } }, { interval: 5 }], [feature]);

    expect(next.steps.map((step) => step.trigger)).toEqual([{ type: 'approval' }, { type: 'interval', seconds: 5 }]);
    expect(next.steps.map((step) => step.actions)).toEqual(schedule.steps.slice(0, 2).map((step) => step.actions));
  });
});

describe('a template', () => {
  const template: RampScheduleTemplate = {
    id: 'rst_1',
    dateCreated: T0.toISOString(),
    dateUpdated: T0.toISOString(),
    name: 'Template',
    order: 0,
    steps: [{ interval: 60, actions: [{ targetType: 'feature-rule', targetId: 'x', patch: { ruleId: 'placeholder', coverage: 0.2, enabled: null } }] }],
    endPatch: { coverage: 1 },
    lockdownConfig: { mode: 'locked' },
  };

  it('gives a ramp on a rule its steps, end state and lockdown, bound to that rule', () => {
    const body = withTemplate({ name: 'R', featureId: FEATURE_ID, ruleId: 'fr_1', templateId: 'rst_1' }, template);

    expect(body).toEqual({
      name: 'R',
      featureId: FEATURE_ID,
      ruleId: 'fr_1',
      steps: [{ trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.2, enabled: null } }] }],
      endActions: [{ patch: { coverage: 1 } }],
      lockdownConfig: { mode: 'locked' },
    });
  });

  it('gives a ramp without a rule only its lockdown', () => {
    expect(withTemplate({ name: 'R', templateId: 'rst_1' }, template)).toEqual({ name: 'R', lockdownConfig: { mode: 'locked' } });
  });
});
