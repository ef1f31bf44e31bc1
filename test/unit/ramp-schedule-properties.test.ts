import fc from 'fast-check';
import { toApiError } from '../../shared/api/errors';
import { updateRampScheduleBody, type RampAction } from '../../shared/contracts/ramp-schedules';
import { addTarget, updateDefinition } from '../../shared/domain/ramp-definition';
import { applyRulePatch, captureRuleState, type RampableFeature, type RampableRule } from '../../shared/domain/ramp-rules';
import { act, advance, due, nextDueAt, type RampScheduleRecord, type Transition } from '../../shared/domain/ramp-schedule';
import { applied, at, createSchedule, FEATURE_ID, featureWith, isoAt, rolloutRule, ruleOf, T0 } from './ramp-schedule-fixtures';

// ---- generators ----

const patch = fc.record(
  {
    coverage: fc.oneof(fc.integer({ min: 0, max: 100 }).map((n) => n / 100), fc.constant(null)),
    condition: fc.constantFrom('', '{"beta":true}', '{"country":"NZ"}', null),
    savedGroups: fc.oneof(
      fc.constant(null),
      fc.array(fc.record({ match: fc.constantFrom('all', 'any', 'none'), ids: fc.subarray(['grp_1', 'grp_2']) }), { maxLength: 2 }),
    ),
    prerequisites: fc.oneof(
      fc.constant(null),
      fc.array(fc.record({ id: fc.constantFrom('p1', 'p2'), condition: fc.constantFrom('{}', '{"value":true}') }), { maxLength: 2 }),
    ),
    force: fc.oneof(fc.boolean(), fc.integer({ min: -5, max: 5 }), fc.constantFrom('on', 'off')),
    enabled: fc.constantFrom(true, false, null),
  },
  { requiredKeys: [] },
);

const trigger = fc.oneof(
  fc.integer({ min: 1, max: 600 }).map((seconds) => ({ type: 'interval' as const, seconds })),
  fc.constant({ type: 'approval' as const }),
  fc.integer({ min: -100, max: 3000 }).map((offset) => ({ type: 'scheduled' as const, at: isoAt(offset) })),
);

const action = fc.record({ target: fc.constantFrom(0, 1), patch });

const scenario = fc.record({
  environments: fc.constantFrom(['production'], ['dev', 'production']).map((envs) => [...envs]),
  targetCount: fc.constantFrom(1, 2),
  steps: fc.array(fc.record({ trigger, actions: fc.array(action, { maxLength: 2 }) }), { maxLength: 6 }),
  endActions: fc.array(action, { maxLength: 2 }),
  endAt: fc.option(fc.integer({ min: 0, max: 6000 }), { nil: undefined }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

const command = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 900 }).map((seconds) => ({ op: 'tick' as const, seconds })) },
  { weight: 2, arbitrary: fc.constant({ op: 'approve-step' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'pause' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'resume' as const }) },
  { weight: 1, arbitrary: fc.integer({ min: -1, max: 6 }).map((k) => ({ op: 'jump' as const, k })) },
  { weight: 1, arbitrary: fc.constant({ op: 'complete' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'rollback' as const }) },
);
type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

// ---- the world a scenario runs in ----

const targetIds = ['t_main', 't_2'];
const ruleIds = ['fr_1', 'fr_2'];

/** fr_1 and fr_2 in each environment, with different starting states; fr_3 is never a target. */
function initialFeature(environments: string[]): RampableFeature {
  const rules = [
    rolloutRule('fr_1'),
    rolloutRule('fr_2', { enabled: true, coverage: 0.3, savedGroupTargeting: [{ matchType: 'any', savedGroups: ['grp_9'] }] }),
    rolloutRule('fr_3'),
  ];
  return featureWith(Object.fromEntries(environments.map((env) => [env, rules])));
}

/** A ready schedule over the scenario's targets, steps, end actions and end condition. */
function readyScheduleFor(scn: Scenario, feature: RampableFeature): RampScheduleRecord {
  let schedule = createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1' }, feature);
  if (scn.targetCount === 2) schedule = addTarget(schedule, { featureId: FEATURE_ID, ruleId: 'fr_2' }, { targetId: 't_2', feature }).schedule;
  const actionsOf = (actions: Scenario['endActions']) =>
    actions
      .filter((a) => a.target < scn.targetCount)
      .map((a) => ({ targetId: targetIds[a.target], patch: { ruleId: ruleIds[a.target], ...a.patch } }));
  const body = updateRampScheduleBody.parse({
    steps: scn.steps.map((step) => ({ trigger: step.trigger, actions: actionsOf(step.actions) })),
    endActions: actionsOf(scn.endActions),
    endCondition: scn.endAt === undefined ? null : { trigger: { type: 'scheduled', at: isoAt(scn.endAt) } },
  });
  return updateDefinition(schedule, body, [feature]);
}

interface World {
  schedule: RampScheduleRecord;
  feature: RampableFeature;
  /** Seconds since T0. */
  now: number;
}

function startedWorld(scn: Scenario): World {
  const feature = initialFeature(scn.environments);
  const ready = readyScheduleFor(scn, feature);
  return { ...applied(act(ready, { type: 'start' }, T0, [feature]), feature), now: 0 };
}

/** Runs one command; undefined when the advancer has nothing to do or the action is refused. */
function run(world: World, cmd: Command): { transition: Transition; now: number } | undefined {
  if (cmd.op === 'tick') {
    const now = world.now + cmd.seconds;
    const transition = advance(world.schedule, at(now), [world.feature]);
    return transition && { transition, now };
  }
  const action = cmd.op === 'jump' ? { type: cmd.op, targetStepIndex: cmd.k } : { type: cmd.op };
  try {
    return { transition: act(world.schedule, action, at(world.now), [world.feature]), now: world.now };
  } catch (error) {
    const known = toApiError(error);
    if (!known || ![400, 409].includes(known.status)) throw error;
    return undefined;
  }
}

/**
 * The rule state the model says each target rule must have: the state at start with, in order,
 * `enabled: true` (once entered), the patches of steps 0..currentStepIndex, and the end actions
 * once completed. Rolled back: the state at start.
 */
function expectedRule(schedule: RampScheduleRecord, entered: boolean, targetId: string, start: RampableRule): RampableRule {
  if (schedule.status === 'rolled-back') return start;
  const actions: RampAction[] = [];
  const steps = schedule.steps.slice(0, schedule.currentStepIndex + 1);
  actions.push(...steps.flatMap((step) => step.actions));
  if (schedule.status === 'completed') actions.push(...schedule.endActions);
  const base = entered || schedule.currentStepIndex >= 0 || schedule.status === 'completed' ? { enabled: true } : {};
  return actions.filter((a) => a.targetId === targetId).reduce((rule, a) => applyRulePatch(rule, a.patch), applyRulePatch(start, base));
}

/** The steps a transition left: from the one it was at up to the one it ends at (that one too when it completed). */
function stepsLeft(before: RampScheduleRecord, after: RampScheduleRecord): number[] {
  const last = after.status === 'completed' ? after.currentStepIndex : after.currentStepIndex - 1;
  const left: number[] = [];
  for (let i = Math.max(before.currentStepIndex, 0); i <= last; i++) left.push(i);
  return left;
}

describe('ramp schedule invariants', () => {
  it('keeps every target rule equal to the captured state plus the accumulated patch, after any sequence of actions', () => {
    fc.assert(
      fc.property(scenario, fc.array(command, { maxLength: 25 }), (scn, commands) => {
        let world = startedWorld(scn);
        const start = initialFeature(scn.environments);
        let entered = true;
        for (const cmd of commands) {
          const result = run(world, cmd);
          if (!result) continue;
          world = { ...applied(result.transition, world.feature), now: result.now };
          if (cmd.op === 'resume') entered = true;
          if (cmd.op === 'jump') entered = cmd.k >= 0;
          if (cmd.op === 'rollback') entered = false;
          for (const env of scn.environments) {
            for (const [i, targetId] of targetIds.slice(0, scn.targetCount).entries()) {
              const expected = expectedRule(world.schedule, entered, targetId, ruleOf(start, ruleIds[i], env));
              expect(captureRuleState(ruleOf(world.feature, ruleIds[i], env))).toEqual(captureRuleState(expected));
            }
            expect(ruleOf(world.feature, 'fr_3', env)).toEqual(ruleOf(start, 'fr_3', env));
          }
        }
      }),
    );
  });

  it('never lowers currentStepIndex except by jump or rollback', () => {
    fc.assert(
      fc.property(scenario, fc.array(command, { maxLength: 25 }), (scn, commands) => {
        let world = startedWorld(scn);
        for (const cmd of commands) {
          const result = run(world, cmd);
          if (!result) continue;
          if (cmd.op !== 'jump' && cmd.op !== 'rollback') {
            expect(result.transition.schedule.currentStepIndex).toBeGreaterThanOrEqual(world.schedule.currentStepIndex);
          }
          world = { ...applied(result.transition, world.feature), now: result.now };
        }
      }),
    );
  });

  it('never leaves an approval step without approve-step (or complete, or the end condition)', () => {
    fc.assert(
      fc.property(scenario, fc.array(command, { maxLength: 25 }), (scn, commands) => {
        let world = startedWorld(scn);
        for (const cmd of commands) {
          const result = run(world, cmd);
          if (!result) continue;
          const after = result.transition.schedule;
          const deadlinePassed = scn.endAt !== undefined && scn.endAt <= result.now;
          if (['tick', 'resume', 'approve-step'].includes(cmd.op) && !deadlinePassed) {
            const left = stepsLeft(world.schedule, after).filter((i) => !(cmd.op === 'approve-step' && i === world.schedule.currentStepIndex));
            expect(left.filter((i) => after.steps[i].trigger.type === 'approval')).toEqual([]);
          }
          world = { ...applied(result.transition, world.feature), now: result.now };
        }
      }),
    );
  });

  it('leaves nothing due at the moment of a transition, so the advancer never spins', () => {
    fc.assert(
      fc.property(scenario, fc.array(command, { maxLength: 25 }), (scn, commands) => {
        let world = startedWorld(scn);
        expect(due(world.schedule, at(0))).toBe(false);
        for (const cmd of commands) {
          const result = run(world, cmd);
          if (!result) continue;
          world = { ...applied(result.transition, world.feature), now: result.now };
          expect(due(world.schedule, at(world.now))).toBe(false);
        }
      }),
    );
  });

  it('rollback restores every rule exactly as it was at start', () => {
    const noRollback = command.filter((cmd) => cmd.op !== 'rollback');
    fc.assert(
      fc.property(scenario, fc.array(noRollback, { maxLength: 25 }), (scn, commands) => {
        let world = startedWorld(scn);
        for (const cmd of commands) {
          const result = run(world, cmd);
          if (result) world = { ...applied(result.transition, world.feature), now: result.now };
        }

        const rolledBack = applied(act(world.schedule, { type: 'rollback' }, at(world.now), [world.feature]), world.feature);

        expect(rolledBack.feature).toEqual(initialFeature(scn.environments));
        expect(rolledBack.schedule).toMatchObject({ status: 'rolled-back', currentStepIndex: -1 });
      }),
    );
  });

  it('pause then resume moves nextStepAt and phaseStartedAt later by exactly the pause length', () => {
    fc.assert(
      fc.property(
        scenario,
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.integer({ min: 0, max: 100_000 }),
        (scn, runFor, pausePoint, pauseSeconds) => {
          const started = startedWorld({ ...scn, endAt: undefined });
          const moved = advance(started.schedule, at(runFor), [started.feature]);
          const schedule = moved?.schedule ?? started.schedule;
          fc.pre(schedule.status === 'running' && schedule.nextStepAt !== null);
          const nextStepAt = Date.parse(schedule.nextStepAt!);
          const from = Math.max(runFor, 0) * 1000 + T0.getTime();
          const pauseAt = Math.floor(from + (nextStepAt - from) * pausePoint);
          fc.pre(pauseAt < nextStepAt);

          const paused = act(schedule, { type: 'pause' }, new Date(pauseAt), []).schedule;
          const resumed = act(paused, { type: 'resume' }, new Date(pauseAt + pauseSeconds * 1000), []);

          expect(resumed.writes).toEqual([]);
          expect(Date.parse(resumed.schedule.nextStepAt!)).toBe(nextStepAt + pauseSeconds * 1000);
          expect(Date.parse(resumed.schedule.phaseStartedAt!)).toBe(Date.parse(schedule.phaseStartedAt!) + pauseSeconds * 1000);
          expect(resumed.schedule.status).toBe('running');
        },
      ),
    );
  });

  it('folding overdue steps into one advance ends exactly where advancing at every due time ends', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 0, max: 20_000 }), (scn, seconds) => {
        const world = startedWorld(scn);
        const until = at(seconds);

        const once = advance(world.schedule, until, [world.feature]);
        const folded = once ? applied(once, world.feature) : world;
        let stepped = { schedule: world.schedule, feature: world.feature };
        for (let next = nextDueAt(stepped.schedule); next !== undefined && Date.parse(next) <= until.getTime(); next = nextDueAt(stepped.schedule)) {
          stepped = applied(advance(stepped.schedule, new Date(next), [stepped.feature])!, stepped.feature);
        }

        expect(folded.feature).toEqual(stepped.feature);
        expect({ ...folded.schedule, endedAt: null }).toEqual({ ...stepped.schedule, endedAt: null });
      }),
    );
  });
});
