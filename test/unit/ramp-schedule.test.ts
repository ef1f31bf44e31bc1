import * as z from '../../shared/contracts/zod';
import { rampSchedule, rampStatuses, type RampStatus } from '../../shared/contracts/ramp-schedules';
import { addTarget, assertDeletable, ejectTarget, updateDefinition } from '../../shared/domain/ramp-definition';
import { captureRuleState } from '../../shared/domain/ramp-rules';
import {
  act,
  advance,
  due,
  elapsedMs,
  nextDueAt,
  recordAdvanceFailure,
  toApiRampSchedule,
  type LifecycleAction,
} from '../../shared/domain/ramp-schedule';
import {
  applied,
  at,
  baseFeature,
  createSchedule,
  FEATURE_ID,
  featureWith,
  inStatus,
  isoAt,
  readySchedule,
  rolloutRule,
  ruleOf,
  T0,
  errorOf,
} from './ramp-schedule-fixtures';

type Operation =
  | LifecycleAction['type']
  | 'update'
  | 'add-target'
  | 'eject-target'
  | 'delete';

/** What each operation does in each status; a status left out means 409 invalid_status. */
const outcomes: Record<Operation, Partial<Record<RampStatus, RampStatus | 'deleted' | 400>>> = {
  start: { ready: 'running' },
  pause: { running: 'paused', 'pending-approval': 'paused' },
  resume: { paused: 'running' },
  jump: { running: 'paused', 'pending-approval': 'paused', paused: 'paused' },
  complete: { running: 'completed', 'pending-approval': 'completed', paused: 'completed' },
  rollback: { running: 'rolled-back', 'pending-approval': 'rolled-back', paused: 'rolled-back', completed: 'rolled-back' },
  'approve-step': { 'pending-approval': 'running' },
  // The fixture's step 1 waits for approval: advancing into it waits there; advancing out of it needs `force`.
  advance: { running: 'pending-approval', paused: 'pending-approval' },
  restart: { completed: 'running', 'rolled-back': 'running' },
  update: { pending: 'pending', ready: 'ready', paused: 'paused' },
  'add-target': { pending: 'ready', ready: 'ready', paused: 'paused' },
  // A pending schedule has no target to eject; ejecting the only target deletes the schedule.
  'eject-target': { pending: 400, ready: 'deleted', paused: 'deleted', completed: 'deleted', 'rolled-back': 'deleted' },
  delete: { pending: 'pending', ready: 'ready', paused: 'paused', completed: 'completed', 'rolled-back': 'rolled-back' },
};

type World = ReturnType<typeof inStatus>;

function perform(operation: Operation, { schedule, feature }: World): RampStatus | 'deleted' {
  const now = at(90);
  switch (operation) {
    case 'update':
      return updateDefinition(schedule, { name: 'Renamed' }, [feature]).status;
    case 'add-target':
      return addTarget(schedule, { featureId: FEATURE_ID, ruleId: 'fr_2' }, { targetId: 't_2', feature }).schedule.status;
    case 'eject-target': {
      const result = ejectTarget(schedule, { ruleId: 'fr_1' });
      return 'deleted' in result ? 'deleted' : result.schedule.status;
    }
    case 'delete':
      assertDeletable(schedule);
      return schedule.status;
    case 'jump':
      return act(schedule, { type: 'jump', targetStepIndex: 0 }, now, [feature]).schedule.status;
    default:
      return act(schedule, { type: operation }, now, [feature]).schedule.status;
  }
}

describe('every operation in every status', () => {
  const cases = (Object.keys(outcomes) as Operation[]).flatMap((operation) =>
    rampStatuses.map((status) => [operation, status, outcomes[operation][status] ?? 409] as const),
  );

  it.each(cases)('%s from %s gives %s', (operation, status, expected) => {
    const world = inStatus(status);
    const before = structuredClone(world);

    let result: RampStatus | 'deleted' | number | undefined;
    const error = errorOf(() => (result = perform(operation, world)));

    expect(error ? error.status : result).toBe(expected);
    if (expected === 409) expect(error?.code).toBe('invalid_status');
    expect(world).toEqual(before);
  });
});

describe('start', () => {
  it('enters step 0 now: enables the rule and applies the step', () => {
    const { schedule, feature } = readySchedule();

    const { schedule: next, writes, comment } = act(schedule, { type: 'start' }, T0, [feature]);

    expect(next).toMatchObject({ status: 'running', currentStepIndex: 0, startedAt: isoAt(0), phaseStartedAt: isoAt(0) });
    expect(next.nextStepAt).toBe(isoAt(60));
    expect(writes).toEqual([
      { targetId: 't_main', featureId: FEATURE_ID, ruleId: 'fr_1', environment: 'production', patch: { enabled: true, coverage: 0.1 } },
    ]);
    expect(comment).toBe('Ramp step 1 of 3');
  });

  it('captures the rule as it was, for rollback', () => {
    const { schedule, feature } = readySchedule();

    const { schedule: next } = act(schedule, { type: 'start' }, T0, [feature]);

    expect(next.captured).toEqual({ t_main: { production: captureRuleState(rolloutRule('fr_1')) } });
  });

  it('patches the rule in every environment that has it when the target names none', () => {
    const feature = featureWith({ dev: [rolloutRule()], production: [rolloutRule()], staging: [] });
    const schedule = createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', steps: [{ trigger: { type: 'approval' } }] }, feature);

    const { writes } = act(schedule, { type: 'start' }, T0, [feature]);

    expect(writes.map((write) => write.environment)).toEqual(['dev', 'production']);
  });

  it('patches only the named environment when the target names one', () => {
    const feature = featureWith({ dev: [rolloutRule()], production: [rolloutRule()] });
    const schedule = createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', environment: 'dev' }, feature);

    const { writes } = act(schedule, { type: 'start' }, T0, [feature]);

    expect(writes.map((write) => write.environment)).toEqual(['dev']);
  });

  it('refuses with 409 when the target rule no longer exists', () => {
    const { schedule } = readySchedule();

    const error = errorOf(() => act(schedule, { type: 'start' }, T0, [featureWith({ production: [] })]));

    expect(error?.status).toBe(409);
    expect(error?.message).toMatch(/fr_1.*no longer exists/);
  });

  it('refuses with 409 when the rule became a type the patches do not fit', () => {
    const { schedule } = readySchedule();

    const error = errorOf(() => act(schedule, { type: 'start' }, T0, [featureWith({ production: [{ ...rolloutRule(), type: 'force' }] })]));

    expect(error?.status).toBe(409);
    expect(error?.message).toMatch(/steps\.0\.actions\.0\.patch\.coverage/);
  });

  it('completes at once a schedule without steps or end condition, applying its end actions', () => {
    const feature = baseFeature();
    const schedule = createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', endActions: [{ patch: { coverage: 1 } }] }, feature);

    const { schedule: next, writes } = act(schedule, { type: 'start' }, T0, [feature]);

    expect(next).toMatchObject({ status: 'completed', currentStepIndex: -1, endedAt: isoAt(0) });
    expect(writes[0].patch).toEqual({ enabled: true, coverage: 1 });
  });

  it('runs a schedule without steps until its end condition', () => {
    const feature = baseFeature();
    const schedule = createSchedule(
      { featureId: FEATURE_ID, ruleId: 'fr_1', endCondition: { trigger: { type: 'scheduled', at: isoAt(600) } } },
      feature,
    );

    const started = applied(act(schedule, { type: 'start' }, T0, [feature]), feature);
    const ended = advance(started.schedule, at(600), [started.feature]);

    expect(started.schedule).toMatchObject({ status: 'running', currentStepIndex: -1, nextStepAt: null });
    expect(ruleOf(started.feature).enabled).toBe(true);
    expect(nextDueAt(started.schedule)).toBe(isoAt(600));
    expect(ended?.schedule.status).toBe('completed');
  });
});

describe('triggers', () => {
  it('leaves an interval step once its seconds have passed since it was entered', () => {
    const { schedule, feature } = inStatus('running');

    const early = advance(schedule, at(59), [feature]);
    const onTime = advance(schedule, at(60), [feature]);

    expect(early).toBeUndefined();
    expect(onTime?.schedule).toMatchObject({ currentStepIndex: 1, phaseStartedAt: isoAt(60) });
    expect(onTime?.writes.map((write) => write.patch)).toEqual([{ coverage: 0.5 }]);
  });

  it('waits on an approval step without a due time until approve-step', () => {
    const { schedule, feature } = inStatus('pending-approval');

    const muchLater = advance(schedule, at(1_000_000), [feature]);
    const approved = act(schedule, { type: 'approve-step' }, at(500), [feature]);

    expect(schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 1, nextStepAt: null });
    expect(nextDueAt(schedule)).toBeUndefined();
    expect(muchLater).toBeUndefined();
    expect(approved.schedule).toMatchObject({ status: 'running', currentStepIndex: 2, nextStepAt: isoAt(560) });
    expect(approved.writes.map((write) => write.patch)).toEqual([{ coverage: 1 }]);
    expect(approved.comment).toBe('Ramp step 3 of 3');
  });

  it('completes when the last step is approved', () => {
    const feature = baseFeature();
    const schedule = createSchedule(
      { featureId: FEATURE_ID, ruleId: 'fr_1', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }] }], endActions: [{ patch: { coverage: 1 } }] },
      feature,
    );
    const waiting = applied(act(schedule, { type: 'start' }, T0, [feature]), feature);

    const approved = act(waiting.schedule, { type: 'approve-step' }, at(30), [waiting.feature]);

    expect(waiting.schedule.status).toBe('pending-approval');
    expect(approved.schedule).toMatchObject({ status: 'completed', currentStepIndex: 0, endedAt: isoAt(30) });
    expect(approved.writes.map((write) => write.patch)).toEqual([{ coverage: 1 }]);
  });

  it('leaves a scheduled step at its date', () => {
    const feature = baseFeature();
    const schedule = createSchedule(
      {
        featureId: FEATURE_ID,
        ruleId: 'fr_1',
        steps: [
          { trigger: { type: 'scheduled', at: isoAt(3600) }, actions: [{ patch: { coverage: 0.2 } }] },
          { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.4 } }] },
        ],
      },
      feature,
    );

    const started = applied(act(schedule, { type: 'start' }, T0, [feature]), feature);
    const left = advance(started.schedule, at(3600), [started.feature]);

    expect(started.schedule.nextStepAt).toBe(isoAt(3600));
    expect(left?.schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 1 });
  });

  it('leaves at once a scheduled step whose date has passed', () => {
    const feature = baseFeature();
    const schedule = createSchedule(
      {
        featureId: FEATURE_ID,
        ruleId: 'fr_1',
        steps: [
          { trigger: { type: 'scheduled', at: isoAt(-60) }, actions: [{ patch: { coverage: 0.2 } }] },
          { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.4 } }] },
        ],
      },
      feature,
    );

    const { schedule: next, writes } = act(schedule, { type: 'start' }, T0, [feature]);

    expect(next).toMatchObject({ status: 'pending-approval', currentStepIndex: 1 });
    expect(writes[0].patch).toEqual({ enabled: true, coverage: 0.4 });
  });

  it('leaves the last step by applying the end actions and completing', () => {
    const { schedule, feature } = inStatus('pending-approval');
    const approved = applied(act(schedule, { type: 'approve-step' }, at(100), [feature]), feature);

    const done = advance(approved.schedule, at(160), [approved.feature]);

    expect(done?.schedule).toMatchObject({ status: 'completed', currentStepIndex: 2, nextStepAt: null, endedAt: isoAt(160) });
    expect(done?.writes.map((write) => write.patch)).toEqual([{ condition: null }]);
    expect(done?.comment).toBe('Ramp completed');
  });
});

describe('folding overdue steps', () => {
  const fourSteps = (third: 'interval' | 'approval') => ({
    featureId: FEATURE_ID,
    ruleId: 'fr_1',
    steps: [
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.1 } }] },
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.2, condition: '{"country":"NZ"}' } }] },
      { trigger: third === 'approval' ? { type: 'approval' } : { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.3 } }] },
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.4 } }] },
    ],
  });

  it('folds several overdue interval steps into one transition with one merged patch', () => {
    const feature = baseFeature();
    const started = applied(act(createSchedule(fourSteps('interval'), feature), { type: 'start' }, T0, [feature]), feature);

    const late = advance(started.schedule, at(190), [started.feature]);

    expect(late?.schedule).toMatchObject({ status: 'running', currentStepIndex: 3, phaseStartedAt: isoAt(180), nextStepAt: isoAt(240) });
    expect(late?.writes.map((write) => write.patch)).toEqual([{ coverage: 0.4, condition: '{"country":"NZ"}' }]);
    expect(late?.comment).toBe('Ramp step 4 of 4');
  });

  it('never passes an approval step, however late it runs', () => {
    const feature = baseFeature();
    const started = applied(act(createSchedule(fourSteps('approval'), feature), { type: 'start' }, T0, [feature]), feature);

    const late = advance(started.schedule, at(100_000), [started.feature]);

    expect(late?.schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 2, nextStepAt: null });
    expect(late?.writes.map((write) => write.patch)).toEqual([{ coverage: 0.3, condition: '{"country":"NZ"}' }]);
  });
});

describe('an interval with an approval hold (GrowthBook 5)', () => {
  const held = {
    featureId: FEATURE_ID,
    ruleId: 'fr_1',
    steps: [
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.1 } }] },
      { interval: 60, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.2 } }] },
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.3 } }] },
    ],
  };
  const start = () => {
    const feature = baseFeature();
    return applied(act(createSchedule(held, feature), { type: 'start' }, T0, [feature]), feature);
  };

  it('folds into the step and stops there, waiting for approval once its interval is over', () => {
    const started = start();

    const late = advance(started.schedule, at(100_000), [started.feature]);

    expect(late?.schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 1, phaseStartedAt: isoAt(60), nextStepAt: isoAt(120) });
    expect(late?.writes.map((write) => write.patch)).toEqual([{ coverage: 0.2 }]);
    expect(nextDueAt(late!.schedule)).toBeUndefined();
  });

  it('runs through its interval first: the advancer then only marks it waiting, with no rule write', () => {
    const started = start();
    const atStep = applied(advance(started.schedule, at(60), [started.feature])!, started.feature);

    const over = advance(atStep.schedule, at(120), [atStep.feature]);

    expect(atStep.schedule).toMatchObject({ status: 'running', currentStepIndex: 1, nextStepAt: isoAt(120) });
    expect(errorOf(() => act(atStep.schedule, { type: 'approve-step' }, at(90), [atStep.feature]))?.status).toBe(409);
    expect(errorOf(() => act(atStep.schedule, { type: 'advance' }, at(90), [atStep.feature]))?.status).toBe(409);
    expect(over?.schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 1, nextStepAt: isoAt(120) });
    expect(over?.writes).toEqual([]);
    const approved = act(over!.schedule, { type: 'approve-step' }, at(500), [atStep.feature]);
    expect(approved.schedule).toMatchObject({ status: 'running', currentStepIndex: 2, phaseStartedAt: isoAt(500), nextStepAt: isoAt(560) });
  });

  it('resumes to running with its interval moved by the pause, or to waiting when the interval was over before the pause', () => {
    const started = start();
    const atStep = advance(started.schedule, at(60), [started.feature])!.schedule;

    const resumed = act(act(atStep, { type: 'pause' }, at(70), [started.feature]).schedule, { type: 'resume' }, at(200), [started.feature]).schedule;
    // Paused at 130, after its interval ended at 120 but before the advancer saw it.
    const overdue = act(act(atStep, { type: 'pause' }, at(130), [started.feature]).schedule, { type: 'resume' }, at(140), [started.feature]).schedule;

    expect(resumed).toMatchObject({ status: 'running', currentStepIndex: 1, nextStepAt: isoAt(250) });
    expect(overdue).toMatchObject({ status: 'pending-approval', currentStepIndex: 1 });
  });
});

describe('end condition and start date', () => {
  const deadline = { endCondition: { trigger: { type: 'scheduled', at: isoAt(90) } } };

  it.each(['running', 'pending-approval'] as const)('completes a %s schedule at once when its end condition passes', (status) => {
    const { schedule: ready, feature } = readySchedule(deadline);
    let world = applied(act(ready, { type: 'start' }, T0, [feature]), feature);
    if (status === 'pending-approval') world = applied(advance(world.schedule, at(60), [world.feature])!, world.feature);

    const ended = advance(world.schedule, at(90), [world.feature]);

    expect(world.schedule.status).toBe(status);
    expect(ended?.schedule).toMatchObject({ status: 'completed', currentStepIndex: 2 });
    expect(applied(ended!, world.feature).feature).toEqual(
      applied(act(world.schedule, { type: 'complete' }, at(90), [world.feature]), world.feature).feature,
    );
  });

  it('does not complete a paused schedule at its end condition, but right after resume', () => {
    const { schedule: ready, feature } = readySchedule(deadline);
    const running = applied(act(ready, { type: 'start' }, T0, [feature]), feature);
    const paused = act(running.schedule, { type: 'pause' }, at(30), [running.feature]).schedule;

    const whilePaused = advance(paused, at(120), [running.feature]);
    const resumed = act(paused, { type: 'resume' }, at(150), [running.feature]);

    expect(whilePaused).toBeUndefined();
    expect(resumed.schedule.status).toBe('completed');
  });

  it('starts a ready schedule by itself once its start date passes', () => {
    const { schedule, feature } = readySchedule({ startDate: isoAt(300) });

    const early = advance(schedule, at(299), [feature]);
    const started = advance(schedule, at(300), [feature]);

    expect(nextDueAt(schedule)).toBe(isoAt(300));
    expect(early).toBeUndefined();
    expect(started?.schedule).toMatchObject({ status: 'running', startedAt: isoAt(300), currentStepIndex: 0, nextStepAt: isoAt(360) });
    expect(started?.writes[0].patch).toEqual({ enabled: true, coverage: 0.1 });
  });

  it('never starts a pending schedule by itself', () => {
    const schedule = createSchedule({ startDate: isoAt(0) });

    expect(nextDueAt(schedule)).toBeUndefined();
    expect(advance(schedule, at(10), [])).toBeUndefined();
  });
});

describe("GrowthBook 5's cutoffDate", () => {
  const plan = (cutoff: number, last: 'interval' | 'approval' = 'interval') => ({
    featureId: FEATURE_ID,
    ruleId: 'fr_1',
    steps: [
      { interval: 60, actions: [{ patch: { coverage: 0.1 } }] },
      last === 'approval'
        ? { interval: null, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.5 } }] }
        : { interval: 60, actions: [{ patch: { coverage: 0.5 } }] },
    ],
    endActions: [{ patch: { condition: null } }],
    cutoffDate: isoAt(cutoff),
  });
  const started = (cutoff: number, last: 'interval' | 'approval' = 'interval') => {
    const feature = baseFeature();
    return applied(act(createSchedule(plan(cutoff, last), feature), { type: 'start' }, T0, [feature]), feature);
  };

  it('applies the end actions when the steps are done, runs on past the last step, then completes and switches the rules off at the cutoff', () => {
    const world = started(1000);

    const done = applied(advance(world.schedule, at(120), [world.feature])!, world.feature);
    const cut = applied(advance(done.schedule, at(1000), [done.feature])!, done.feature);

    expect(done.schedule).toMatchObject({ status: 'running', currentStepIndex: 2, nextStepAt: null });
    expect(nextDueAt(done.schedule)).toBe(isoAt(1000));
    expect(ruleOf(done.feature)).toMatchObject({ coverage: 0.5, condition: '', enabled: true });
    expect(toApiRampSchedule(done.schedule, at(500))).toMatchObject({ status: 'running', awaitingApproval: false, cutoffDate: isoAt(1000) });
    expect(cut.schedule).toMatchObject({ status: 'completed', currentStepIndex: 1, endedAt: isoAt(1000) });
    expect(ruleOf(cut.feature)).toMatchObject({ coverage: 0.5, condition: '', enabled: false });
  });

  it('cuts a ramp off mid-way: the remaining steps and end actions apply, and the rules are switched off', () => {
    const world = started(90);

    const cut = applied(advance(world.schedule, at(100), [world.feature])!, world.feature);

    expect(cut.schedule).toMatchObject({ status: 'completed', currentStepIndex: 1 });
    expect(ruleOf(cut.feature)).toMatchObject({ coverage: 0.5, condition: '', enabled: false });
  });

  it('cuts off a paused ramp too, which the seed-era end condition leaves paused', () => {
    const world = started(90);
    const paused = act(world.schedule, { type: 'pause' }, at(30), [world.feature]).schedule;
    const seedEra = { ...paused, cutoffDisables: undefined };

    const cut = advance(paused, at(100), [world.feature]);

    expect(nextDueAt(paused)).toBe(isoAt(90));
    expect(cut?.schedule).toMatchObject({ status: 'completed', pausedAt: null });
    expect(nextDueAt(seedEra)).toBeUndefined();
  });

  it('resumes a ramp waiting for its cutoff to waiting, never to its last step’s approval', () => {
    const world = started(1000, 'approval');
    const waiting = advance(world.schedule, at(60), [world.feature])!.schedule;
    const done = act(waiting, { type: 'approve-step' }, at(70), [world.feature]).schedule;

    const resumed = act(act(done, { type: 'pause' }, at(80), [world.feature]).schedule, { type: 'resume' }, at(90), [world.feature]).schedule;

    expect(done).toMatchObject({ status: 'running', currentStepIndex: 2, nextStepAt: null });
    expect(resumed).toMatchObject({ status: 'running', currentStepIndex: 2, nextStepAt: null });
    expect(nextDueAt(resumed)).toBe(isoAt(1000));
  });

  it('is cleared with null, and replaced by a seed-era endCondition without the switch-off', () => {
    const feature = baseFeature();
    const schedule = createSchedule(plan(1000), feature);

    const cleared = updateDefinition(schedule, { cutoffDate: null }, [feature]);
    const older = updateDefinition(schedule, { endCondition: { trigger: { type: 'scheduled', at: isoAt(2000) } } }, [feature]);

    expect(schedule.cutoffDisables).toBe(true);
    expect(cleared).toMatchObject({ endCondition: null });
    expect(cleared).not.toHaveProperty('cutoffDisables');
    expect(older).toMatchObject({ endCondition: { trigger: { type: 'scheduled', at: isoAt(2000) } } });
    expect(older).not.toHaveProperty('cutoffDisables');
  });
});

describe('pause and resume', () => {
  it('pauses without touching the rules', () => {
    const { schedule, feature } = inStatus('running');

    const paused = act(schedule, { type: 'pause' }, at(30), [feature]);

    expect(paused.schedule).toMatchObject({ status: 'paused', pausedAt: isoAt(30), nextStepAt: isoAt(60) });
    expect(paused.writes).toEqual([]);
    expect(due(paused.schedule, at(1000))).toBe(false);
  });

  it('moves every pending time later by the pause length on resume', () => {
    const { schedule, feature } = inStatus('paused');

    const resumed = act(schedule, { type: 'resume' }, at(130), [feature]);

    expect(resumed.schedule).toMatchObject({
      status: 'running',
      pausedAt: null,
      nextStepAt: isoAt(160),
      phaseStartedAt: isoAt(100),
      pausedMs: 100_000,
    });
    expect(resumed.writes).toEqual([]);
  });

  it('goes back to waiting for approval when paused while waiting', () => {
    const { schedule, feature } = inStatus('pending-approval');
    const paused = act(schedule, { type: 'pause' }, at(70), [feature]).schedule;

    const resumed = act(paused, { type: 'resume' }, at(80), [feature]);

    expect(resumed.schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 1, nextStepAt: null });
  });

  it('does the overdue work at once when the step was already overdue at the pause', () => {
    const { schedule, feature } = inStatus('running');
    const paused = act(schedule, { type: 'pause' }, at(70), [feature]).schedule;

    const resumed = act(paused, { type: 'resume' }, at(100), [feature]);

    expect(resumed.schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 1 });
    expect(resumed.writes.map((write) => write.patch)).toEqual([{ coverage: 0.5 }]);
  });

  it.each(['jump', 'complete', 'rollback'] as const)('refuses %s on a schedule the advancer paused before it ever started', (type) => {
    const { schedule, feature } = readySchedule({ startDate: isoAt(0) });
    const gaveUp = recordAdvanceFailure(schedule, at(10), 'boom', { maxFailures: 1, retryDelayMs: 1000 });

    const error = errorOf(() => act(gaveUp, type === 'jump' ? { type, targetStepIndex: 0 } : { type }, at(20), [feature]));

    expect(error?.status).toBe(409);
    expect(error?.message).toMatch(/never started; resume starts it/);
  });

  it('starts a schedule the advancer paused before it ever started', () => {
    const { schedule, feature } = readySchedule({ startDate: isoAt(0) });
    const gaveUp = recordAdvanceFailure(schedule, at(10), 'boom', { maxFailures: 1, retryDelayMs: 1000 });

    const resumed = act(gaveUp, { type: 'resume' }, at(20), [feature]);

    expect(gaveUp.status).toBe('paused');
    expect(resumed.schedule).toMatchObject({ status: 'running', startedAt: isoAt(20), currentStepIndex: 0, pauseReason: null });
    expect(resumed.schedule.captured.t_main).toBeDefined();
  });
});

describe('jump', () => {
  const fourSteps = {
    featureId: FEATURE_ID,
    ruleId: 'fr_1',
    steps: [
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.1 } }] },
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.2 } }] },
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { savedGroups: [{ match: 'all', ids: ['grp_1'] }] } }] },
      { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.9 } }] },
    ],
  };
  const startedAtStep = (index: number) => {
    const feature = baseFeature();
    let world = applied(act(createSchedule(fourSteps, feature), { type: 'start' }, T0, [feature]), feature);
    if (index > 0) world = applied(advance(world.schedule, at(60 * index), [world.feature])!, world.feature);
    return world;
  };

  it('brings the rule forward to the accumulated state of the target step and pauses', () => {
    const world = startedAtStep(0);

    const jumped = applied(act(world.schedule, { type: 'jump', targetStepIndex: 2 }, at(10), [world.feature]), world.feature);

    expect(jumped.schedule).toMatchObject({ status: 'paused', currentStepIndex: 2, pausedAt: isoAt(10), nextStepAt: isoAt(70) });
    expect(ruleOf(jumped.feature)).toMatchObject({ coverage: 0.2, enabled: true, savedGroupTargeting: [{ matchType: 'all', savedGroups: ['grp_1'] }] });
  });

  it('takes back what later steps changed when jumping backwards', () => {
    const world = startedAtStep(3);

    const jumped = applied(act(world.schedule, { type: 'jump', targetStepIndex: 1 }, at(200), [world.feature]), world.feature);

    expect(ruleOf(world.feature).savedGroupTargeting).toBeDefined();
    expect(ruleOf(jumped.feature)).toEqual({ ...rolloutRule(), enabled: true, coverage: 0.2 });
  });

  it('goes back to the state at start with -1, and a resume starts over', () => {
    const world = startedAtStep(2);

    const jumped = applied(act(world.schedule, { type: 'jump', targetStepIndex: -1 }, at(130), [world.feature]), world.feature);
    const resumed = act(jumped.schedule, { type: 'resume' }, at(200), [jumped.feature]);

    expect(ruleOf(jumped.feature)).toEqual(rolloutRule());
    expect(jumped.schedule).toMatchObject({ currentStepIndex: -1, nextStepAt: null });
    expect(resumed.schedule).toMatchObject({ status: 'running', currentStepIndex: 0, nextStepAt: isoAt(260) });
    expect(resumed.writes[0].patch).toEqual({ enabled: true, coverage: 0.1 });
  });

  it('resumes a jump onto an approval step by waiting for approval', () => {
    const world = startedAtStep(0);
    const jumped = act(world.schedule, { type: 'jump', targetStepIndex: 3 }, at(10), [world.feature]).schedule;

    const resumed = act(jumped, { type: 'resume' }, at(20), [world.feature]);

    expect(resumed.schedule).toMatchObject({ status: 'pending-approval', currentStepIndex: 3 });
  });

  it.each([-2, 4])('refuses step index %s with 400', (targetStepIndex) => {
    const world = startedAtStep(0);

    const error = errorOf(() => act(world.schedule, { type: 'jump', targetStepIndex }, at(10), [world.feature]));

    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Request body: [targetStepIndex] must be between -1 and 3');
  });
});

describe('complete and rollback', () => {
  it('complete applies every remaining step and the end actions at once', () => {
    const { schedule, feature } = inStatus('running');

    const done = applied(act(schedule, { type: 'complete' }, at(10), [feature]), feature);

    expect(done.schedule).toMatchObject({ status: 'completed', currentStepIndex: 2, nextStepAt: null });
    expect(ruleOf(done.feature)).toEqual({ ...rolloutRule(), enabled: true, coverage: 1, condition: '' });
  });

  it('rollback restores the rule exactly as it was at start, in every environment', () => {
    const feature = featureWith({ dev: [rolloutRule('fr_1', { coverage: 0.3 })], production: [rolloutRule()] });
    const schedule = createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', ...readyBody() }, feature);
    const running = applied(act(schedule, { type: 'start' }, T0, [feature]), feature);
    const completed = applied(act(running.schedule, { type: 'complete' }, at(5), [running.feature]), running.feature);

    const rolledBack = applied(act(completed.schedule, { type: 'rollback' }, at(10), [completed.feature]), completed.feature);

    expect(completed.feature).not.toEqual(feature);
    expect(rolledBack.feature).toEqual(feature);
    expect(rolledBack.schedule).toMatchObject({ status: 'rolled-back', currentStepIndex: -1, nextStepAt: null });
  });

  it('rollback takes away a saved-group targeting the rule did not have', () => {
    const feature = baseFeature();
    const schedule = createSchedule(
      { featureId: FEATURE_ID, ruleId: 'fr_1', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { savedGroups: [{ match: 'any', ids: ['grp_1'] }] } }] }] },
      feature,
    );
    const running = applied(act(schedule, { type: 'start' }, T0, [feature]), feature);

    const rolledBack = applied(act(running.schedule, { type: 'rollback' }, at(10), [running.feature]), running.feature);

    expect(ruleOf(running.feature).savedGroupTargeting).toHaveLength(1);
    expect('savedGroupTargeting' in ruleOf(rolledBack.feature)).toBe(false);
  });
});

function readyBody() {
  return {
    steps: [
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.5, condition: '{"country":"FR"}' } }] },
      { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 1, force: 'on' } }] },
    ],
    endActions: [{ patch: { prerequisites: [{ id: 'parent', condition: '{"value":true}' }] } }],
  };
}

describe('due times', () => {
  it.each([
    ['pending', undefined],
    ['ready', undefined],
    ['running', isoAt(60)],
    ['pending-approval', undefined],
    ['paused', undefined],
    ['completed', undefined],
    ['rolled-back', undefined],
  ] as const)('a %s schedule is next due at %s', (status, expected) => {
    const { schedule } = inStatus(status);

    expect(nextDueAt(schedule)).toBe(expected);
  });

  it('is due at the earlier of the next step and the end condition', () => {
    const { schedule, feature } = readySchedule({ endCondition: { trigger: { type: 'scheduled', at: isoAt(30) } } });

    const running = act(schedule, { type: 'start' }, T0, [feature]).schedule;

    expect(nextDueAt(running)).toBe(isoAt(30));
  });

  it('is never due right after a transition made at the same time', () => {
    const { schedule, feature } = inStatus('running');

    const next = advance(schedule, at(60), [feature])!;

    expect(due(next.schedule, at(60))).toBe(false);
    expect(advance(next.schedule, at(60), [feature])).toBeUndefined();
  });
});

describe('failed advances', () => {
  const policy = { maxFailures: 3, retryDelayMs: 10_000 };

  it('waits longer after each failure before the next attempt', () => {
    const { schedule } = inStatus('running');

    const once = recordAdvanceFailure(schedule, at(60), 'throttled', policy);
    const twice = recordAdvanceFailure(once, at(70), 'throttled', policy);

    expect(nextDueAt(once)).toBe(isoAt(70));
    expect(nextDueAt(twice)).toBe(isoAt(90));
    expect(twice.failures).toBe(2);
  });

  it('pauses the schedule with the reason after too many failures in a row', () => {
    const { schedule } = inStatus('running');
    let failing = schedule;

    for (let i = 0; i < 3; i++) failing = recordAdvanceFailure(failing, at(60 + i * 10), 'rule fr_1 is gone', policy);

    expect(failing).toMatchObject({ status: 'paused', pausedAt: isoAt(80), pauseReason: 'rule fr_1 is gone', failures: 0 });
    expect(nextDueAt(failing)).toBeUndefined();
  });

  it('forgets earlier failures after a successful advance', () => {
    const { schedule, feature } = inStatus('running');
    const failed = recordAdvanceFailure(schedule, at(60), 'throttled', policy);

    const next = advance(failed, at(70), [feature])!;

    expect(next.schedule).toMatchObject({ failures: 0, retryAt: null, currentStepIndex: 1 });
  });
});

describe('elapsedMs and the API view', () => {
  it('is null before the start', () => {
    expect(elapsedMs(inStatus('ready').schedule, at(100))).toBeNull();
  });

  it('counts running time up to now', () => {
    expect(elapsedMs(inStatus('running').schedule, at(42))).toBe(42_000);
  });

  it('leaves out the time spent paused', () => {
    const { schedule, feature } = inStatus('paused');
    const resumed = act(schedule, { type: 'resume' }, at(130), [feature]).schedule;

    expect(elapsedMs(schedule, at(100))).toBe(30_000);
    expect(elapsedMs(resumed, at(140))).toBe(40_000);
  });

  it('stops when the schedule ends', () => {
    expect(elapsedMs(inStatus('completed').schedule, at(1000))).toBe(30_000);
  });

  it('shows the reference fields only, with elapsedMs computed at response time', () => {
    const { schedule } = inStatus('running');

    const view = toApiRampSchedule(schedule, at(5));

    expect(z.strictObject(rampSchedule.shape).parse(view)).toEqual(view);
    expect(view).toMatchObject({ id: 'rs_1', status: 'running', awaitingApproval: false, elapsedMs: 5000, nextProcessAt: isoAt(60) });
    // GrowthBook 5.0.1's RampSchedule allows no other property: the tenant stays in the store.
    expect(schedule.organization).toBe('org_1');
    expect(view).not.toHaveProperty('organization');
    expect(view).not.toHaveProperty('captured');
  });

  it("answers a wait for approval as GrowthBook 5's running with awaitingApproval; a pause is not one", () => {
    const waiting = inStatus('pending-approval').schedule;
    const paused = act(waiting, { type: 'pause' }, at(70), [inStatus('pending-approval').feature]).schedule;

    expect(toApiRampSchedule(waiting, at(65))).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 1, nextStepAt: null });
    expect(toApiRampSchedule(paused, at(75))).toMatchObject({ status: 'paused', awaitingApproval: false, currentStepIndex: 1 });
    expect(toApiRampSchedule(inStatus('running').schedule, at(5)).awaitingApproval).toBe(false);
  });

  it('answers each stored trigger as an interval and hold conditions, and the end condition as cutoffDate', () => {
    const { schedule } = readySchedule({ endCondition: { trigger: { type: 'scheduled', at: isoAt(9000) } } });

    const view = toApiRampSchedule(schedule, at(0));

    expect(view.steps.map(({ interval, holdConditions, monitored }) => ({ interval, holdConditions, monitored }))).toEqual([
      { interval: 60, holdConditions: undefined, monitored: false },
      { interval: null, holdConditions: { requiresApproval: true }, monitored: false },
      { interval: 60, holdConditions: undefined, monitored: false },
    ]);
    expect(view.cutoffDate).toBe(isoAt(9000));
    expect(view).not.toHaveProperty('endCondition');
  });

  it("answers a dated step as the seconds from the step's entry to its date: from the start, then from the current step's entry", () => {
    const feature = baseFeature();
    const dated = {
      featureId: FEATURE_ID,
      ruleId: 'fr_1',
      steps: [
        { trigger: { type: 'interval', seconds: 60 } },
        { trigger: { type: 'scheduled', at: isoAt(600) } },
        { trigger: { type: 'approval' } },
        { trigger: { type: 'scheduled', at: isoAt(1000) } },
      ],
    };
    const ready = createSchedule({ ...dated, startDate: isoAt(100) }, feature);
    const started = act(createSchedule(dated, feature), { type: 'start' }, at(20), [feature]).schedule;
    const atDated = advance(started, at(90), [feature])!.schedule;

    // Before the start: from the start date (100 s), 60 s for step 0, so step 1 waits 440 s; the approval adds nothing.
    expect(toApiRampSchedule(ready, at(0)).steps.map((step) => step.interval)).toEqual([60, 440, null, 400]);
    // Started at 20 s: step 1 is entered at 80 s.
    expect(toApiRampSchedule(started, at(30)).steps.map((step) => step.interval)).toEqual([60, 520, null, 400]);
    // At step 1 since 80 s: its interval ends at its date, as nextStepAt says.
    const view = toApiRampSchedule(atDated, at(90));
    expect(view.currentStepIndex).toBe(1);
    expect(Date.parse(view.phaseStartedAt!) + view.steps[1].interval! * 1000).toBe(Date.parse(view.nextStepAt!));
    // A date already passed is answered as the least interval GrowthBook allows.
    const late = createSchedule({ ...dated, startDate: isoAt(2000) }, feature);
    expect(toApiRampSchedule(late, at(0)).steps.map((step) => step.interval)).toEqual([60, 1, null, 1]);
  });
});

describe('targets on a started schedule', () => {
  it('captures and enables a rule added while paused, so rollback restores it too', () => {
    const { schedule, feature } = inStatus('paused');

    const added = applied(addTarget(schedule, { featureId: FEATURE_ID, ruleId: 'fr_2' }, { targetId: 't_2', feature }), feature);
    const rolledBack = applied(act(added.schedule, { type: 'rollback' }, at(60), [added.feature]), added.feature);

    expect(ruleOf(added.feature, 'fr_2').enabled).toBe(true);
    expect(added.schedule.captured.t_2).toEqual({ production: captureRuleState(rolloutRule('fr_2')) });
    expect(ruleOf(rolledBack.feature, 'fr_2')).toEqual(rolloutRule('fr_2'));
  });

  it('ejecting a target leaves its rule as it is and drops its actions', () => {
    const { schedule, feature } = inStatus('paused');
    const added = addTarget(schedule, { featureId: FEATURE_ID, ruleId: 'fr_2' }, { targetId: 't_2', feature }).schedule;

    const result = ejectTarget(added, { targetId: 't_main' });

    expect('schedule' in result && result.schedule.targets.map((target) => target.id)).toEqual(['t_2']);
    expect('schedule' in result && result.schedule.steps.flatMap((step) => step.actions)).toEqual([]);
    expect('schedule' in result && result.schedule.captured).toEqual({ t_2: expect.any(Object) });
  });
});

