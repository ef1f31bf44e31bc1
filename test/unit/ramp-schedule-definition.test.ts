import {
  createRampScheduleBody,
  ejectTargetBody,
  jumpBody,
  rampScheduleEndpointSpecs,
  updateRampScheduleBody,
} from '../../shared/contracts/ramp-schedules';
import { addTarget, ejectTarget, resolveActions, updateDefinition } from '../../shared/domain/ramp-definition';
import {
  applyRulePatch,
  applyRuleWrites,
  captureRuleState,
  forceToValue,
  locateRule,
  restoreRuleState,
} from '../../shared/domain/ramp-rules';
import { act } from '../../shared/domain/ramp-schedule';
import {
  at,
  baseFeature,
  createSchedule,
  FEATURE_ID,
  featureWith,
  forceRule,
  inStatus,
  isoAt,
  readySchedule,
  rolloutRule,
  errorOf,
} from './ramp-schedule-fixtures';

describe('creating a schedule', () => {
  it('is pending without a target', () => {
    const schedule = createSchedule({ steps: [{ trigger: { type: 'interval', seconds: 30 } }] });

    expect(schedule).toMatchObject({ status: 'pending', entityType: 'feature', entityId: '', targets: [], currentStepIndex: -1, nextStepAt: null });
  });

  it('is ready with featureId and ruleId, and fills in targetId and ruleId of every action', () => {
    const { schedule } = readySchedule();

    expect(schedule.status).toBe('ready');
    expect(schedule.targets).toEqual([
      { id: 't_main', entityType: 'feature', entityId: FEATURE_ID, ruleId: 'fr_1', environment: null, status: 'active' },
    ]);
    expect(schedule.steps[0].actions).toEqual([{ targetType: 'feature-rule', targetId: 't_main', patch: { ruleId: 'fr_1', coverage: 0.1 } }]);
    expect(schedule.endActions).toEqual([{ targetType: 'feature-rule', targetId: 't_main', patch: { ruleId: 'fr_1', condition: null } }]);
  });

  it('stores dates in UTC', () => {
    const schedule = createSchedule({
      startDate: '2030-01-01T02:00:00+02:00',
      steps: [{ trigger: { type: 'scheduled', at: '2030-01-01T03:00:00+02:00' } }],
      endCondition: { trigger: { type: 'scheduled', at: '2030-01-01T04:00:00+02:00' } },
    });

    expect(schedule.startDate).toBe(isoAt(0));
    expect(schedule.steps[0].trigger).toEqual({ type: 'scheduled', at: isoAt(3600) });
    expect(schedule.endCondition).toEqual({ trigger: { type: 'scheduled', at: isoAt(7200) } });
  });

  it.each([
    [{ ruleId: 'fr_1' }, 'Request body: [featureId] is required with ruleId'],
    [{ featureId: FEATURE_ID, environment: 'production' }, 'Request body: [environment] is only used together with ruleId'],
    [{ featureId: 'nope', ruleId: 'fr_1' }, 'Request body: [featureId] feature nope not found'],
    [{ featureId: FEATURE_ID, ruleId: 'fr_9' }, 'Request body: [ruleId] feature checkout has no rule fr_9'],
    [{ featureId: FEATURE_ID, ruleId: 'fr_1', environment: 'dev' }, 'Request body: [ruleId] feature checkout has no rule fr_1 in environment dev'],
    [{ templateId: 'tpl_1' }, 'Request body: [templateId] ramp template tpl_1 not found'],
  ])('refuses %j with 400', (body, message) => {
    const feature = (body as { featureId?: string }).featureId === FEATURE_ID ? baseFeature() : undefined;

    const error = errorOf(() => createSchedule(body, feature));

    expect(error?.status).toBe(400);
    expect(error?.message).toBe(message);
  });

  it('refuses a patch that does not fit the rule type', () => {
    const feature = featureWith({ production: [forceRule('fr_1')] });

    const error = errorOf(() =>
      createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }] }] }, feature),
    );

    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Request body: [steps.0.actions.0.patch.coverage] rule fr_1 is a force rule, which has no coverage');
  });

  it('lets a force rule be ramped through its value', () => {
    const feature = featureWith({ production: [forceRule('fr_1')] });

    const schedule = createSchedule(
      { featureId: FEATURE_ID, ruleId: 'fr_1', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { force: true } }] }] },
      feature,
    );

    expect(schedule.steps[0].actions[0].patch).toEqual({ ruleId: 'fr_1', force: true });
  });
});

describe('the t1 targetId shorthand', () => {
  const target = (id: string, status: 'active' | 'pending-join' = 'active') =>
    ({ id, entityType: 'feature', entityId: FEATURE_ID, ruleId: `rule_${id}`, environment: null, status }) as const;

  it.each([undefined, 't1'])('resolves targetId %s to the only active target', (targetId) => {
    const actions = resolveActions([{ targetId, patch: { coverage: 0.2 } }], [target('a'), target('b', 'pending-join')], 'steps.0.actions');

    expect(actions).toEqual([{ targetType: 'feature-rule', targetId: 'a', patch: { ruleId: 'rule_a', coverage: 0.2 } }]);
  });

  it.each([
    ['no active target', []],
    ['several active targets', [target('a'), target('b')]],
  ])('gives 400 with %s', (_case, targets) => {
    const error = errorOf(() => resolveActions([{ patch: { coverage: 0.2 } }], targets, 'steps.1.actions'));

    expect(error?.status).toBe(400);
    expect(error?.message).toMatch(/^Request body: \[steps\.1\.actions\.0\.targetId\] name the target/);
  });

  it('takes an explicit target id among several', () => {
    const actions = resolveActions([{ targetId: 'b', patch: { enabled: false } }], [target('a'), target('b')], 'endActions');

    expect(actions[0]).toMatchObject({ targetId: 'b', patch: { ruleId: 'rule_b' } });
  });

  it('gives 400 for an unknown explicit id', () => {
    const error = errorOf(() => resolveActions([{ targetId: 'zzz', patch: {} }], [target('a')], 'endActions'));

    expect(error?.message).toBe('Request body: [endActions.0.targetId] the schedule has no target zzz');
  });

  it("gives 400 when patch.ruleId is not the target's rule", () => {
    const error = errorOf(() => resolveActions([{ patch: { ruleId: 'other' } }], [target('a')], 'endActions'));

    expect(error?.message).toBe('Request body: [endActions.0.patch.ruleId] target a controls rule rule_a, not other');
  });
});

describe('PUT', () => {
  it('changes only the fields given; null clears startDate and endCondition', () => {
    const { schedule, feature } = readySchedule({ startDate: isoAt(100), endCondition: { trigger: { type: 'scheduled', at: isoAt(900) } } });

    const next = updateDefinition(schedule, { name: 'Slower', startDate: null, endCondition: null }, [feature]);

    expect(next).toEqual({ ...schedule, name: 'Slower', startDate: null, endCondition: null });
  });

  it('replaces steps, resolving the shorthand against the targets', () => {
    const { schedule, feature } = readySchedule();

    const next = updateDefinition(
      schedule,
      updateRampScheduleBody.parse({ steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { ruleId: 'fr_1', coverage: 0.3 } }] }] }),
      [feature],
    );

    expect(next.steps).toEqual([{ trigger: { type: 'approval' }, actions: [{ targetType: 'feature-rule', targetId: 't_main', patch: { ruleId: 'fr_1', coverage: 0.3 } }] }]);
  });

  it("moves a paused schedule's next step time along with a new trigger of its current step", () => {
    const { schedule, feature } = inStatus('paused');
    const steps = [
      { trigger: { type: 'interval' as const, seconds: 600 }, actions: [] },
      { trigger: { type: 'approval' as const }, actions: [] },
    ];

    const next = updateDefinition(schedule, { steps }, [feature]);
    const resumed = act(next, { type: 'resume' }, at(40), [feature]);

    expect(next.nextStepAt).toBe(isoAt(600));
    expect(resumed.schedule.nextStepAt).toBe(isoAt(610));
  });

  it('keeps at least the steps a started schedule has reached', () => {
    const { schedule, feature } = inStatus('paused');
    const jumped = act(schedule, { type: 'jump', targetStepIndex: 2 }, at(40), [feature]).schedule;

    const error = errorOf(() => updateDefinition(jumped, { steps: [{ trigger: { type: 'approval' }, actions: [] }] }, [feature]));

    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Request body: [steps] the schedule is at step 3; keep at least 3 steps');
  });
});

describe('add-target and eject-target', () => {
  it('makes a pending schedule ready and sets its feature', () => {
    const feature = baseFeature();
    const pending = createSchedule({});

    const { schedule, writes } = addTarget(pending, { featureId: FEATURE_ID, ruleId: 'fr_2' }, { targetId: 't_2', feature });

    expect(schedule).toMatchObject({ status: 'ready', entityId: FEATURE_ID, targets: [{ id: 't_2', ruleId: 'fr_2', status: 'active' }] });
    expect(writes).toEqual([]);
  });

  it('refuses a rule of another feature with 400', () => {
    const { schedule } = readySchedule();

    const error = errorOf(() =>
      addTarget(schedule, { featureId: 'other', ruleId: 'fr_1' }, { targetId: 't_2', feature: featureWith({ production: [rolloutRule()] }, 'other') }),
    );

    expect(error?.message).toBe('Request body: [featureId] this schedule controls rules of feature checkout only');
  });

  it('refuses a rule the schedule already controls with 409', () => {
    const { schedule, feature } = readySchedule();

    const error = errorOf(() => addTarget(schedule, { featureId: FEATURE_ID, ruleId: 'fr_1', environment: 'production' }, { targetId: 't_2', feature }));

    expect(error?.status).toBe(409);
    expect(error?.code).toBe('already_exists');
  });

  it('refuses an unknown feature or rule with 400', () => {
    const { schedule, feature } = readySchedule();

    const noFeature = errorOf(() => addTarget(schedule, { featureId: 'gone', ruleId: 'fr_1' }, { targetId: 't_2' }));
    const noRule = errorOf(() => addTarget(schedule, { featureId: FEATURE_ID, ruleId: 'fr_9' }, { targetId: 't_2', feature }));

    expect(noFeature?.message).toBe('Request body: [featureId] feature gone not found');
    expect(noRule?.message).toBe('Request body: [ruleId] feature checkout has no rule fr_9');
  });

  it('ejects by rule id, and gives 400 when nothing matches', () => {
    const { schedule, feature } = readySchedule();
    const twoTargets = addTarget(schedule, { featureId: FEATURE_ID, ruleId: 'fr_2' }, { targetId: 't_2', feature }).schedule;

    const result = ejectTarget(twoTargets, { ruleId: 'fr_2' });
    const missing = errorOf(() => ejectTarget(twoTargets, { ruleId: 'fr_9' }));
    const neither = errorOf(() => ejectTarget(twoTargets, {}));

    expect(result).toEqual({ schedule });
    expect(missing?.message).toBe('Request body: [ruleId] no target of the schedule controls rule fr_9');
    expect(neither?.message).toBe('Request body: [targetId] give targetId, or ruleId');
  });
});

describe('applying a patch to a rule', () => {
  const rule = rolloutRule('fr_1', { savedGroupTargeting: [{ matchType: 'any', savedGroups: ['grp_0'] }], prerequisites: [{ id: 'p', condition: '{}' }] });

  it('leaves the rule alone for an empty patch', () => {
    expect(applyRulePatch(rule, {})).toEqual(rule);
  });

  it('sets each field a patch names and nothing else', () => {
    const next = applyRulePatch(rule, {
      coverage: 0.25,
      condition: '{"country":"NZ"}',
      savedGroups: [{ match: 'none', ids: ['grp_1', 'grp_2'] }],
      prerequisites: [{ id: 'parent', condition: '{"value":true}' }],
      force: { color: 'blue' },
      enabled: true,
    });

    expect(next).toEqual({
      ...rule,
      coverage: 0.25,
      condition: '{"country":"NZ"}',
      savedGroupTargeting: [{ matchType: 'none', savedGroups: ['grp_1', 'grp_2'] }],
      prerequisites: [{ id: 'parent', condition: '{"value":true}' }],
      value: '{"color":"blue"}',
      enabled: true,
    });
  });

  it('resets a field to its default for null', () => {
    const next = applyRulePatch({ ...rule, enabled: false }, { coverage: null, condition: null, savedGroups: null, prerequisites: null, enabled: null });

    expect(next).toMatchObject({ coverage: 1, condition: '', savedGroupTargeting: [], prerequisites: [], enabled: true });
  });

  it.each([
    [true, 'true'],
    [42, '42'],
    ['blue', 'blue'],
    [null, 'null'],
    [[1, 2], '[1,2]'],
  ])('stores force %j as the value %s', (force, value) => {
    expect(forceToValue(force)).toBe(value);
  });

  it('restores exactly the captured fields, removing ones the rule did not have', () => {
    const captured = captureRuleState(rolloutRule());
    const changed = applyRulePatch(rolloutRule(), { savedGroups: [{ match: 'all', ids: ['g'] }], coverage: 0.9, enabled: true });

    expect(restoreRuleState(changed, captured)).toEqual(rolloutRule());
  });

  it('finds a rule in each environment, or the named one', () => {
    const feature = featureWith({ dev: [rolloutRule()], production: [rolloutRule(), rolloutRule('fr_2')], test: [] });

    expect(Object.keys(locateRule(feature, 'fr_1'))).toEqual(['dev', 'production']);
    expect(Object.keys(locateRule(feature, 'fr_1', 'production'))).toEqual(['production']);
    expect(locateRule(feature, 'fr_3')).toEqual({});
  });

  it('writes only the named rule in the named environment of the named feature', () => {
    const feature = featureWith({ dev: [rolloutRule()], production: [rolloutRule(), rolloutRule('fr_2')] });

    const next = applyRuleWrites(feature, [
      { targetId: 't', featureId: FEATURE_ID, ruleId: 'fr_1', environment: 'production', patch: { coverage: 0.5 } },
      { targetId: 't', featureId: 'another', ruleId: 'fr_1', environment: 'dev', patch: { coverage: 0.7 } },
    ]);

    expect(next.environments.dev).toEqual(feature.environments.dev);
    expect(next.environments.production.rules).toEqual([{ ...rolloutRule(), coverage: 0.5 }, rolloutRule('fr_2')]);
  });
});

describe('request bodies', () => {
  const step = (trigger: unknown) => ({ name: 'r', steps: [{ trigger }] });

  it.each([
    [step({ type: 'interval', seconds: 0 }), 'steps.0.trigger.seconds'],
    [step({ type: 'interval', seconds: -5 }), 'steps.0.trigger.seconds'],
    [step({ type: 'interval' }), 'steps.0.trigger.seconds'],
    [step({ type: 'scheduled', at: 'tomorrow' }), 'steps.0.trigger.at'],
    [step({ type: 'approval', seconds: 3 }), 'steps.0.trigger'],
    [step({ type: 'weekly' }), 'steps.0.trigger.type'],
    [{ name: 'r', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 1.5 } }] }] }, 'steps.0.actions.0.patch.coverage'],
    [{ name: 'r', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { condition: 'not json' } }] }] }, 'steps.0.actions.0.patch.condition'],
    [{ name: 'r', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { colour: 'red' } }] }] }, 'steps.0.actions.0.patch'],
    [{ name: 'r', endActions: [{ targetType: 'experiment', patch: {} }] }, 'endActions.0.targetType'],
    [{ name: 'r', startDate: 'soon' }, 'startDate'],
    [{ name: '' }, 'name'],
    [{}, 'name'],
    [{ name: 'r', extra: true }, ''],
  ])('refuses create body %j at %s', (body, path) => {
    const result = createRampScheduleBody.safeParse(body);

    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(path);
  });

  it('accepts a full create body', () => {
    const body = {
      name: 'r',
      featureId: 'f',
      ruleId: 'fr_1',
      steps: [
        { trigger: { type: 'interval', seconds: 0.5 }, actions: [{ targetType: 'feature-rule', targetId: 't1', patch: { coverage: 0.1, force: { a: 1 } } }] },
        { trigger: { type: 'approval' }, approvalNotes: 'check the error rate', actions: [] },
        { trigger: { type: 'scheduled', at: '2030-01-01T00:00:00.000Z' } },
      ],
      endActions: [{ patch: { enabled: null, savedGroups: null, prerequisites: [{ id: 'p', condition: '{}' }] } }],
      startDate: null,
      endCondition: { trigger: { type: 'scheduled', at: '2030-02-01T00:00:00.000Z' } },
    };

    expect(createRampScheduleBody.parse(body)).toEqual(body);
  });

  it('requires patch.ruleId in PUT actions, as the reference does', () => {
    const result = updateRampScheduleBody.safeParse({ steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.1 } }] }] });

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['steps.0.actions.0.patch.ruleId']);
  });

  it('takes jump -1 but not -2', () => {
    expect(jumpBody.safeParse({ targetStepIndex: -1 }).success).toBe(true);
    expect(jumpBody.safeParse({ targetStepIndex: -2 }).success).toBe(false);
    expect(jumpBody.safeParse({ targetStepIndex: 1.5 }).success).toBe(false);
  });

  it('refuses unknown eject-target fields', () => {
    expect(ejectTargetBody.safeParse({ id: 't' }).success).toBe(false);
  });
});

describe('endpoint specs', () => {
  it('declares every ramp-schedule path of the reference once, under its operationId', () => {
    const routes = rampScheduleEndpointSpecs.map((spec) => `${spec.operationId} ${spec.method} ${spec.path}`);

    expect(routes).toEqual([
      'listRampSchedules GET /ramp-schedules',
      'createRampSchedule POST /ramp-schedules',
      'getRampSchedule GET /ramp-schedules/{id}',
      'updateRampSchedule PUT /ramp-schedules/{id}',
      'deleteRampSchedule DELETE /ramp-schedules/{id}',
      'startRampSchedule POST /ramp-schedules/{id}/actions/start',
      'pauseRampSchedule POST /ramp-schedules/{id}/actions/pause',
      'resumeRampSchedule POST /ramp-schedules/{id}/actions/resume',
      'jumpRampSchedule POST /ramp-schedules/{id}/actions/jump',
      'completeRampSchedule POST /ramp-schedules/{id}/actions/complete',
      'rollbackRampSchedule POST /ramp-schedules/{id}/actions/rollback',
      'approveStepRampSchedule POST /ramp-schedules/{id}/actions/approve-step',
      'addTargetRampSchedule POST /ramp-schedules/{id}/actions/add-target',
      'ejectTargetRampSchedule POST /ramp-schedules/{id}/actions/eject-target',
    ]);
  });

  it('asks review for approve-step, write for the other changes and read for reads', () => {
    const permissions = Object.fromEntries(rampScheduleEndpointSpecs.map((spec) => [spec.operationId, spec.permission]));

    expect(permissions.approveStepRampSchedule).toBe('review');
    expect(permissions.listRampSchedules).toBe('read');
    expect(permissions.getRampSchedule).toBe('read');
    expect(Object.values(permissions).filter((permission) => permission === 'write')).toHaveLength(11);
  });
});

