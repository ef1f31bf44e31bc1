import { ApiError, toApiError } from '../../shared/api/errors';
import { createRampScheduleBody, type CreateRampScheduleBody, type RampStatus } from '../../shared/contracts/ramp-schedules';
import { newRampSchedule } from '../../shared/domain/ramp-definition';
import { applyRuleWrites, type RampableFeature, type RampableRule } from '../../shared/domain/ramp-rules';
import { act, advance, type RampScheduleRecord, type Transition } from '../../shared/domain/ramp-schedule';

/** The clock every test starts from; tests move it explicitly. */
export const T0 = new Date('2030-01-01T00:00:00.000Z');
export const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
export const isoAt = (seconds: number) => at(seconds).toISOString();

export const FEATURE_ID = 'checkout';

export const rolloutRule = (id = 'fr_1', overrides: Partial<RampableRule> & Record<string, unknown> = {}): RampableRule => ({
  id,
  type: 'rollout',
  description: 'new checkout',
  condition: '{"beta":true}',
  enabled: false,
  value: 'true',
  coverage: 0,
  hashAttribute: 'id',
  ...overrides,
}) as RampableRule;

export const forceRule = (id = 'fr_force'): RampableRule =>
  ({ id, type: 'force', description: '', condition: '', enabled: true, value: 'false' }) as RampableRule;

/** A feature with these rules in each named environment. */
export function featureWith(rulesByEnv: Record<string, RampableRule[]>, id = FEATURE_ID): RampableFeature {
  return {
    id,
    environments: Object.fromEntries(Object.entries(rulesByEnv).map(([env, rules]) => [env, { rules: structuredClone(rules) }])),
  };
}

/** The feature most tests ramp: rule fr_1 in production only, plus an unrelated rule fr_2. */
export const baseFeature = () => featureWith({ production: [rolloutRule('fr_1'), rolloutRule('fr_2')] });

/** 10% → (wait for approval at) 50% → 100%, then the beta condition is dropped. */
export const threeSteps = {
  steps: [
    { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.1 } }] },
    { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }] },
    { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 1 } }] },
  ],
  endActions: [{ patch: { condition: null } }],
} as const;

/** A schedule as the store would hold it, from a create body (validated by the contract) at T0. */
export function createSchedule(body: Record<string, unknown>, feature?: RampableFeature): RampScheduleRecord {
  const parsed: CreateRampScheduleBody = createRampScheduleBody.parse({ name: 'Checkout ramp', ...body });
  const created = newRampSchedule(parsed, { id: 'rs_1', targetId: 't_main', organization: 'org_1', feature });
  return { ...created, dateCreated: T0.toISOString(), dateUpdated: T0.toISOString() };
}

/** A ready schedule on fr_1 with `threeSteps`, and its feature. */
export function readySchedule(extra: Record<string, unknown> = {}) {
  const feature = baseFeature();
  return { schedule: createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', ...threeSteps, ...extra }, feature), feature };
}

/** The world after a transition: the schedule and the feature with the writes applied. */
export function applied(transition: Transition, feature: RampableFeature) {
  return { schedule: transition.schedule, feature: applyRuleWrites(feature, transition.writes) };
}

/** The schedule of `threeSteps` brought to `status`, with its feature as the transitions left it. */
export function inStatus(status: RampStatus): { schedule: RampScheduleRecord; feature: RampableFeature } {
  if (status === 'pending') {
    const feature = baseFeature();
    return { schedule: createSchedule({ featureId: FEATURE_ID, steps: [{ trigger: { type: 'interval', seconds: 60 } }] }, feature), feature };
  }
  const ready = readySchedule();
  if (status === 'ready') return ready;
  const running = applied(act(ready.schedule, { type: 'start' }, T0, [ready.feature]), ready.feature);
  switch (status) {
    case 'running':
      return running;
    case 'pending-approval':
      return applied(advance(running.schedule, at(60), [running.feature])!, running.feature);
    case 'paused':
      return applied(act(running.schedule, { type: 'pause' }, at(30), [running.feature]), running.feature);
    case 'completed':
      return applied(act(running.schedule, { type: 'complete' }, at(30), [running.feature]), running.feature);
    case 'rolled-back':
      return applied(act(running.schedule, { type: 'rollback' }, at(30), [running.feature]), running.feature);
  }
}

/** The rule `ruleId` of the feature in `env`. */
export function ruleOf(feature: RampableFeature, ruleId = 'fr_1', env = 'production'): RampableRule {
  const rule = feature.environments[env].rules.find((candidate) => candidate.id === ruleId);
  if (!rule) throw new Error(`no rule ${ruleId} in ${env}`);
  return rule;
}

/** The error an action throws, or undefined when it succeeds. */
export function errorOf(run: () => unknown): ApiError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    const known = toApiError(error);
    if (known) return known;
    throw error;
  }
}
