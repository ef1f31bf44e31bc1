import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import { advanceDueSchedules } from '../../functions/scheduler/advance-ramp-schedules';
import { ensureTable } from '../../infra/local/dynamodb';
import * as contract from '../../shared/contracts/ramp-schedules';
import * as ops from '../../shared/contracts/ramp-schedule-ops';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { expectReferenceRampSchedules } from '../support/reference';

/**
 * GrowthBook 5's ramp operations over HTTP: advance, restart, PUT steps and PUT lockdown, and the
 * lockdown refusing other writes to the feature. The race test runs the advancer, which serves every
 * organization in the table, so this file has a table of its own.
 */
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-ramp-ops';

let api: Api;
let org: TestOrg;
let clientKey: string;

beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  api = await startApi();
  org = await createTestOrg('Ramp operations');
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
});
afterAll(async () => {
  clearCache();
  await api.close();
  process.env.TABLE_NAME = sharedTable;
});

/** Every ramp-schedule answer is checked against GrowthBook 5.0.1's `RampSchedule` as it is answered. */
async function call(method: string, path: string, body?: unknown, key = org.keys.admin) {
  const response = await api.request(method, `/api/v1${path}`, { key, body });
  if (path.startsWith('/ramp-schedules')) expectReferenceRampSchedules(response.body);
  return response;
}
async function ok(method: string, path: string, body?: unknown, key = org.keys.admin) {
  const response = await call(method, path, body, key);
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The answer holds one schedule, GrowthBook 5.0.1's `RampSchedule` exactly as answered. */
const expectReferenceSchedule = (body: unknown) => expect(expectReferenceRampSchedules(body)).toBe(1);

let counter = 0;
/** A boolean feature whose production rule `fr_roll` rolls `true` out to nobody yet (0%, disabled). */
async function feature() {
  const id = `ops-flag-${++counter}`;
  await ok('POST', '/features', {
    id,
    valueType: 'boolean',
    defaultValue: 'false',
    environments: { production: { enabled: true, rules: [{ id: 'fr_roll', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id', enabled: false }] } },
  });
  return id;
}

const hourly = [
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 0.1 } }] },
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 0.5 } }] },
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 1 } }] },
];
const approvalSecond = [
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 0.1 } }] },
  { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }] },
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 1 } }] },
];

/** A schedule on a new feature's `fr_roll`, brought through the lifecycle actions `then`. */
async function schedule(steps: unknown[] = hourly, then: string[] = [], extra: Record<string, unknown> = {}) {
  const featureId = await feature();
  let rampSchedule: contract.RampSchedule = (await ok('POST', '/ramp-schedules', { name: 'Ramp', featureId, ruleId: 'fr_roll', steps, ...extra }))
    .rampSchedule;
  for (const name of then) rampSchedule = (await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/${name}`)).rampSchedule;
  return { featureId, id: rampSchedule.id, schedule: rampSchedule };
}

const action = (id: string, name: string, body?: unknown, key = org.keys.admin) => call('POST', `/ramp-schedules/${id}/actions/${name}`, body, key);
const get = async (id: string): Promise<contract.RampSchedule> => (await ok('GET', `/ramp-schedules/${id}`)).rampSchedule;
const rule = async (featureId: string) => (await ok('GET', `/features/${featureId}`)).feature.environments.production.rules[0];
const revisions = async (featureId: string) =>
  (await ok('GET', `/features/${featureId}?withRevisions=all`)).feature.revisions as Array<{ version: number; comment: string }>;

/** The events written about a schedule, oldest first. */
async function eventsOf(scheduleId: string) {
  const { Items = [] } = await db.query({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.organization(org.orgId).PK, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return Items.filter((item) => item.object?.id === scheduleId);
}

/** The share of 2,000 users the real SDK turns the feature on for, from the payload as served now. */
async function sdkShare(featureId: string) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  const users = Array.from({ length: 2000 }, (_, i) => ({ id: `user-${i}` }));
  return users.filter((attributes) => new GrowthBook({ attributes }).initSync({ payload }).isOn(featureId)).length / users.length;
}

describe('POST /ramp-schedules/{id}/actions/advance', () => {
  it('moves a running schedule to the next step now, in one revision, and the real SDK serves that step', async () => {
    const { featureId, id } = await schedule(hourly, ['start']);
    const before = await sdkShare(featureId);

    const response = await action(id, 'advance', { reason: 'metrics look fine' });

    expect(response.status).toBe(200);
    expectShape(ops.apiAdvanceRampSchedule, response.body);
    expectReferenceSchedule(response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 1 });
    expect(Date.parse(response.body.rampSchedule.nextStepAt) - Date.parse(response.body.rampSchedule.phaseStartedAt)).toBe(3600_000);
    expect(await rule(featureId)).toMatchObject({ coverage: 0.5, enabled: true });
    expect(before).toBeGreaterThan(0.07);
    expect(before).toBeLessThan(0.13);
    const after = await sdkShare(featureId);
    expect(after).toBeGreaterThan(0.45);
    expect(after).toBeLessThan(0.55);
    expect((await revisions(featureId)).map((revision) => revision.comment).filter((comment) => comment === 'Ramp step 2 of 3')).toHaveLength(1);
    const events = await eventsOf(id);
    expect(events.map((event) => event.event)).toEqual(['rampSchedule.actions.step.advanced']);
    expect(events[0]).toMatchObject({
      orgId: org.orgId,
      object: { type: 'rampSchedule', id },
      data: { rampScheduleId: id, rampName: 'Ramp', currentStepIndex: 1, previousStepIndex: 0, status: 'running', reason: 'metrics look fine' },
    });
  });

  it('resumes a paused schedule as it moves on', async () => {
    const { featureId, id } = await schedule(hourly, ['start', 'pause']);

    const response = await action(id, 'advance');

    expect(response.status).toBe(200);
    expect(response.body.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 1, pausedAt: null });
    expect(await rule(featureId)).toMatchObject({ coverage: 0.5 });
  });

  it('completes the schedule when advancing past the last step, applying the end actions', async () => {
    const { featureId, id } = await schedule(hourly, ['start'], { endActions: [{ patch: { condition: '{"country":"NL"}' } }] });
    await ok('POST', `/ramp-schedules/${id}/actions/advance`);

    await ok('POST', `/ramp-schedules/${id}/actions/advance`);
    const response = await action(id, 'advance');

    expect(response.status).toBe(200);
    expectReferenceSchedule(response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'completed', currentStepIndex: 2 });
    expect(await rule(featureId)).toMatchObject({ coverage: 1, condition: '{"country":"NL"}' });
    expect((await eventsOf(id)).map((event) => event.event)).toEqual([
      'rampSchedule.actions.step.advanced',
      'rampSchedule.actions.step.advanced',
      'rampSchedule.actions.completed',
    ]);
  });

  it('answers 409 at a step waiting for approval, without force, and changes nothing', async () => {
    const { featureId, id } = await schedule(approvalSecond, ['start']);
    await ok('POST', `/ramp-schedules/${id}/actions/advance`);
    const waiting = await get(id);

    const response = await action(id, 'advance', {});

    expect(waiting).toMatchObject({ status: 'running', awaitingApproval: true });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'invalid_status', message: expect.stringMatching(/approve-step.*force: true/) });
    expect(await get(id)).toEqual({ ...waiting, elapsedMs: expect.any(Number) });
    expect(await rule(featureId)).toMatchObject({ coverage: 0.5 });
    expect(await eventsOf(id)).toHaveLength(1);
  });

  it('passes the approval with force for a caller who may bypass approvals, and records the bypass', async () => {
    const { featureId, id } = await schedule(approvalSecond, ['start', 'advance']);

    const response = await action(id, 'advance', { force: true, reason: 'hotfix' });

    expect(response.status).toBe(200);
    expect(response.body.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 2 });
    expect(await rule(featureId)).toMatchObject({ coverage: 1 });
    // The forced advance writes its two events in one transaction; their order within it is not kept.
    const events = await eventsOf(id);
    expect(events.map((event) => event.event).sort()).toEqual([
      'rampSchedule.actions.step.advanced',
      'rampSchedule.actions.step.advanced',
      'rampSchedule.approval-bypassed',
    ]);
    expect(events.find((event) => event.event === 'rampSchedule.approval-bypassed')!.data).toMatchObject({ stepIndex: 1, reason: 'hotfix' });
  });

  it('answers 403 to force from a caller who may not bypass approvals, and changes nothing', async () => {
    const { featureId, id } = await schedule(approvalSecond, ['start', 'advance']);

    const response = await action(id, 'advance', { force: true }, org.keys.engineer);

    expect(response.status).toBe(403);
    expect(response.body.message).toMatch(/bypassApprovalChecks/);
    expect(await get(id)).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 1 });
    expect(await rule(featureId)).toMatchObject({ coverage: 0.5 });
  });

  it.each([
    ['ready', []],
    ['completed', ['start', 'complete']],
    ['rolled-back', ['start', 'rollback']],
  ])('answers 409 invalid_status for a %s schedule and changes nothing', async (status, then) => {
    const { featureId, id, schedule: before } = await schedule(hourly, then);
    const ruleBefore = await rule(featureId);

    const response = await action(id, 'advance');

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'invalid_status', message: expect.stringContaining(`it is ${status}`) });
    expect((await get(id)).dateUpdated).toBe(before.dateUpdated);
    expect(await rule(featureId)).toEqual(ruleBefore);
  });

  it.each([
    ['force that is not a boolean', { force: 'yes' }, /\[force\]/],
    ['an unknown field', { steps: 2 }, /steps/],
    ['a reason that is not a string', { reason: 7 }, /\[reason\]/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const { id, schedule: before } = await schedule(hourly, ['start']);

    const response = await action(id, 'advance', body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(id)).currentStepIndex).toBe(before.currentStepIndex);
  });

  it('answers 404 for a schedule that does not exist', async () => {
    const response = await action('rs_missing', 'advance');

    expect(response.status).toBe(404);
  });

  it('lands exactly once when it races the advancer for the same step', async () => {
    // For the advancer (run at the moment step 0 ends) step 0 is over; the manual advance moves the same step now.
    // Step 1, entered by either, lasts an hour from a moment after the start, so the advancer may not leave it.
    const { featureId, id, schedule: started } = await schedule(hourly, ['start']);

    const [manual, advancer] = await Promise.all([action(id, 'advance'), advanceDueSchedules({ now: new Date(started.nextStepAt!) })]);

    const after = await get(id);
    const comments = (await revisions(featureId)).map((revision) => revision.comment);
    const stepTwo = (await revisions(featureId)).filter((revision) => revision.comment === 'Ramp step 2 of 3');
    const events = await eventsOf(id);
    expect(advancer.failed).toBe(0);
    // Every step went live once: step 2 by one of them, step 3 only by a manual advance that came after the advancer's.
    expect(stepTwo).toHaveLength(1);
    expect(comments.filter((comment) => comment === 'Ramp step 3 of 3').length).toBe(after.currentStepIndex - 1);
    expect(await rule(featureId)).toMatchObject({ coverage: hourly[after.currentStepIndex].actions[0].patch.coverage });
    if (manual.status === 200) {
      expect(events.map((event) => event.event)).toEqual(['rampSchedule.actions.step.advanced']);
      expect(events[0].data).toMatchObject({ previousStepIndex: after.currentStepIndex - 1, currentStepIndex: after.currentStepIndex });
    } else {
      // It read step 0, the advancer moved on before it wrote: refused rather than skipping step 1 unseen.
      expect(manual.status).toBe(409);
      expect(manual.body.message).toMatch(/advanced while the request was in flight/);
      expect(after.currentStepIndex).toBe(1);
      expect(events).toEqual([]);
    }
  });

  it('wins over an advancer that read the schedule before it, which then writes nothing', async () => {
    const { featureId, id, schedule: started } = await schedule(hourly, ['start']);
    let manual: { status: number } | undefined;

    // The advancer has read step 0 when the manual advance runs and commits.
    const advancer = await advanceDueSchedules({
      now: new Date(started.nextStepAt!),
      afterRead: async (read) => {
        if (read.id === id && !manual) manual = await action(id, 'advance');
      },
    });

    const stepTwo = (await revisions(featureId)).filter((revision) => revision.comment === 'Ramp step 2 of 3');
    expect(manual?.status).toBe(200);
    expect(advancer.failed).toBe(0);
    expect((await get(id)).currentStepIndex).toBe(1);
    expect(stepTwo).toHaveLength(1);
    expect((stepTwo[0] as { createdBy?: string }).createdBy).not.toBe(id);
    expect(await rule(featureId)).toMatchObject({ coverage: 0.5 });
    expect((await eventsOf(id)).map((event) => event.event)).toEqual(['rampSchedule.actions.step.advanced']);
  });
});

describe('POST /ramp-schedules/{id}/actions/restart', () => {
  it('restarts a rolled-back schedule at step 0 and takes its rule again', async () => {
    const { featureId, id } = await schedule(hourly, ['start', 'advance', 'rollback']);
    const rolledBack = await rule(featureId);

    const response = await action(id, 'restart');
    const rival = await call('POST', '/ramp-schedules', { name: 'Rival', featureId, ruleId: 'fr_roll' });

    expect(rolledBack).toMatchObject({ coverage: 0, enabled: false });
    expect(response.status).toBe(200);
    expectShape(ops.restartRampSchedule, response.body);
    expectReferenceSchedule(response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 0, pausedAt: null, elapsedMs: expect.any(Number) });
    expect(response.body.rampSchedule.elapsedMs).toBeLessThan(60_000);
    expect(await rule(featureId)).toMatchObject({ coverage: 0.1, enabled: true });
    expect(rival.status).toBe(409);
    const events = await eventsOf(id);
    expect(events.map((event) => event.event)).toEqual(['rampSchedule.actions.step.advanced', 'rampSchedule.actions.started']);
    expect(events[1].data).toMatchObject({ restarted: true, previousStatus: 'rolled-back', currentStepIndex: 0, status: 'running' });
  });

  it('rewinds a completed schedule to the state before its first start, then enters step 0', async () => {
    const { featureId, id } = await schedule(hourly, ['start', 'complete'], { endActions: [{ patch: { condition: '{"beta":true}' } }] });
    const completed = await rule(featureId);

    const response = await action(id, 'restart');

    expect(completed).toMatchObject({ coverage: 1, condition: '{"beta":true}' });
    expect(response.status).toBe(200);
    expect(response.body.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 0 });
    expect(await rule(featureId)).toMatchObject({ coverage: 0.1, enabled: true, condition: '' });
    expect(await sdkShare(featureId)).toBeLessThan(0.13);
  });

  it.each([
    ['ready', []],
    ['running', ['start']],
    ['paused', ['start', 'pause']],
  ])('answers 409 invalid_status for a %s schedule and changes nothing', async (_status, then) => {
    const { id, schedule: before } = await schedule(hourly, then);

    const response = await action(id, 'restart');

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
    expect((await get(id)).dateUpdated).toBe(before.dateUpdated);
  });

  it('answers 409 when another schedule took the rule since the rollback, and changes nothing', async () => {
    const { featureId, id } = await schedule(hourly, ['start', 'rollback']);
    await ok('POST', '/ramp-schedules', { name: 'Successor', featureId, ruleId: 'fr_roll' });

    const response = await action(id, 'restart');

    expect(response.status).toBe(409);
    expect(response.body.message).toMatch(/already controlled by ramp schedule rs_/);
    expect((await get(id)).status).toBe('rolled-back');
    expect(await rule(featureId)).toMatchObject({ coverage: 0, enabled: false });
  });
});

describe("GrowthBook 5's interval with an approval hold", () => {
  const holdThenApprove = [
    { interval: 3600, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.1 } }] },
    { interval: 3600, actions: [{ patch: { coverage: 0.5 } }] },
  ];

  it('holds the step for its interval, then waits for approve-step, then moves on', async () => {
    const { featureId, id, schedule: started } = await schedule(holdThenApprove, ['start']);

    const early = await action(id, 'approve-step');
    const unforced = await action(id, 'advance', {});
    await advanceDueSchedules({ now: new Date(started.nextStepAt!) });
    const waiting = await get(id);
    await advanceDueSchedules({ now: new Date(Date.parse(started.nextStepAt!) + 10 * 3600_000) });
    const stillWaiting = await get(id);
    const approved = await action(id, 'approve-step');

    expect(started.steps[0]).toMatchObject({ interval: 3600, holdConditions: { requiresApproval: true } });
    expect(started).toMatchObject({ status: 'running', awaitingApproval: false, currentStepIndex: 0 });
    expect(Date.parse(started.nextStepAt!) - Date.parse(started.phaseStartedAt!)).toBe(3600_000);
    // Before its interval is over, the step cannot be approved, nor advanced past without force.
    expect(early.status).toBe(409);
    expect(unforced.status).toBe(409);
    expect(unforced.body.message).toMatch(/approve-step/);
    // Its interval over, it waits for the approval however long it takes; the time hold's end stays in nextStepAt.
    expect(waiting).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 0, nextStepAt: started.nextStepAt });
    expect(stillWaiting).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 0, nextProcessAt: null });
    expect(approved.status).toBe(200);
    expect(approved.body.rampSchedule).toMatchObject({ status: 'running', awaitingApproval: false, currentStepIndex: 1 });
    expect(await rule(featureId)).toMatchObject({ coverage: 0.5, enabled: true });
  });

  it('is taken in the seed-era shape too: a trigger with holdConditions', async () => {
    const older = holdThenApprove.map(({ interval, ...step }) => ({ trigger: { type: 'interval', seconds: interval }, ...step }));

    const { schedule: created } = await schedule(older);

    expect(created.steps.map(({ interval, holdConditions }) => ({ interval, holdConditions }))).toEqual([
      { interval: 3600, holdConditions: { requiresApproval: true } },
      { interval: 3600, holdConditions: undefined },
    ]);
  });

  it('PUT /steps sets one', async () => {
    const { id } = await schedule(hourly);

    const response = await call('PUT', `/ramp-schedules/${id}/steps`, { steps: [{ interval: 60, holdConditions: { requiresApproval: true } }, { interval: 60 }] });

    expect(response.status).toBe(200);
    expect(response.body.rampSchedule.steps.map(({ interval, holdConditions }: contract.ApiRampStep) => ({ interval, holdConditions }))).toEqual([
      { interval: 60, holdConditions: { requiresApproval: true } },
      { interval: 60, holdConditions: undefined },
    ]);
  });
});

describe("GrowthBook 5's cutoffDate", () => {
  it('runs the steps, waits past the last one, then completes and switches the rule off at the cutoff; the SDK then serves the default', async () => {
    const cutoffDate = new Date(Date.now() + 3 * 3600_000).toISOString();
    const { featureId, id, schedule: started } = await schedule([{ interval: 60, actions: [{ patch: { coverage: 0.1 } }] }], ['start'], { cutoffDate });

    await advanceDueSchedules({ now: new Date(Date.parse(started.nextStepAt!) + 1000) });
    const waiting = await get(id);
    const before = await sdkShare(featureId);
    await advanceDueSchedules({ now: new Date(Date.parse(cutoffDate) + 1000) });
    const cut = await get(id);

    expect(started).toMatchObject({ status: 'running', currentStepIndex: 0, cutoffDate });
    expect(waiting).toMatchObject({ status: 'running', awaitingApproval: false, currentStepIndex: 1, nextStepAt: null, nextProcessAt: cutoffDate });
    expect(before).toBeGreaterThan(0.07);
    expect(cut).toMatchObject({ status: 'completed', currentStepIndex: 0, nextProcessAt: null });
    expect(await rule(featureId)).toMatchObject({ coverage: 0.1, enabled: false });
    expect(await sdkShare(featureId)).toBe(0);
  });
});

describe('PUT /ramp-schedules/{id}/steps', () => {
  const put = (id: string, body: unknown, key = org.keys.admin) => call('PUT', `/ramp-schedules/${id}/steps`, body, key);

  it("replaces each step's timing and gates, keeping each position's actions", async () => {
    const { id } = await schedule(hourly);

    const response = await put(id, {
      steps: [
        { interval: 120 },
        { interval: null, holdConditions: { requiresApproval: true }, approvalNotes: 'Check errors' },
        { interval: 30 },
        { interval: 45 },
      ],
    });

    expect(response.status).toBe(200);
    expectShape(ops.updateRampScheduleSteps, response.body);
    expectReferenceSchedule(response.body);
    const steps = (await get(id)).steps;
    expect(steps.map(({ interval, holdConditions }) => ({ interval, holdConditions }))).toEqual([
      { interval: 120, holdConditions: undefined },
      { interval: null, holdConditions: { requiresApproval: true } },
      { interval: 30, holdConditions: undefined },
      { interval: 45, holdConditions: undefined },
    ]);
    expect(steps.map((step) => step.actions.map((a) => a.patch.coverage))).toEqual([[0.1], [0.5], [1], []]);
    expect(steps[1].approvalNotes).toBe('Check errors');
    const events = await eventsOf(id);
    expect(events.map((event) => event.event)).toEqual(['rampSchedule.update']);
    expect(events[0].data.changes.steps.after).toHaveLength(4);
  });

  it('moves the time a paused schedule leaves its current step', async () => {
    const { id } = await schedule(hourly, ['start', 'pause']);
    const paused = await get(id);

    const response = await put(id, { steps: [{ interval: 600 }, { interval: 3600 }, { interval: 3600 }] });

    expect(response.status).toBe(200);
    expect(Date.parse(response.body.rampSchedule.nextStepAt)).toBe(Date.parse(paused.phaseStartedAt!) + 600_000);
  });

  it.each([
    ['running', ['start']],
    ['completed', ['start', 'complete']],
  ])('answers 409 invalid_status for a %s schedule and changes nothing', async (_status, then) => {
    const { id, schedule: before } = await schedule(hourly, then);

    const response = await put(id, { steps: [{ interval: 60 }] });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
    expect((await get(id)).steps).toEqual(before.steps);
  });

  it.each([
    ['an interval of 0', { steps: [{ interval: 0 }] }, /\[steps\.0\.interval\]/],
    ['neither an interval nor an approval', { steps: [{ interval: null }] }, /\[steps\.0\.interval\]/],
    ['a monitored step', { steps: [{ interval: 60, monitored: true }] }, /\[steps\.0\.monitored\]/],
    ['a sample-size gate', { steps: [{ interval: 60, holdConditions: { minSampleSize: 100 } }] }, /\[steps\.0\.holdConditions\.minSampleSize\]/],
    ['step actions', { steps: [{ interval: 60, actions: [] }] }, /actions/],
    ['no steps field', {}, /\[steps\]/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const { id, schedule: before } = await schedule(hourly);

    const response = await put(id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await get(id)).toEqual(before);
    expect(await eventsOf(id)).toEqual([]);
  });

  it('answers 400 when a started schedule would lose its current step', async () => {
    const { id, schedule: before } = await schedule(hourly, ['start', 'advance', 'pause']);

    const response = await put(id, { steps: [{ interval: 60 }] });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[steps\] the schedule is at step 2; keep at least 2 steps/);
    expect((await get(id)).steps).toEqual(before.steps);
  });
});

describe('PUT /ramp-schedules/{id}/lockdown', () => {
  const lockdown = (id: string, body: unknown, key = org.keys.admin) => call('PUT', `/ramp-schedules/${id}/lockdown`, body, key);

  it('sets and clears the lockdown, answering the schedule itself', async () => {
    const { id } = await schedule(hourly, ['start']);

    const locked = await lockdown(id, { mode: 'locked' });
    const read = await get(id);
    const cleared = await lockdown(id, { mode: 'none' });

    expect(locked.status).toBe(200);
    expectShape(ops.updateRampScheduleLockdown, locked.body);
    expectReferenceSchedule(locked.body);
    expect(locked.body).toMatchObject({ id, lockdownConfig: { mode: 'locked' } });
    expect(read.lockdownConfig).toEqual({ mode: 'locked' });
    expect(cleared.body.lockdownConfig).toEqual({ mode: 'none' });
    const events = await eventsOf(id);
    expect(events.map((event) => event.event)).toEqual(['rampSchedule.update', 'rampSchedule.update']);
    expect(events.map((event) => event.data.changes.lockdownConfig)).toEqual([
      { before: { mode: 'none' }, after: { mode: 'locked' } },
      { before: { mode: 'locked' }, after: { mode: 'none' } },
    ]);
  });

  it('is taken from the create body', async () => {
    const { schedule: created } = await schedule(hourly, [], { lockdownConfig: { mode: 'locked' } });

    expect(created.lockdownConfig).toEqual({ mode: 'locked' });
  });

  it.each([
    ['an unknown mode', { mode: 'sealed' }, /\[mode\]/],
    ['no mode', {}, /\[mode\]/],
    ['an unknown field', { mode: 'locked', until: 'tomorrow' }, /until/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const { id, schedule: before } = await schedule(hourly, ['start']);

    const response = await lockdown(id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(id)).dateUpdated).toBe(before.dateUpdated);
  });

  it('answers 403 to a caller without write access, and 404 for a schedule that does not exist', async () => {
    const { id } = await schedule(hourly);

    const forbidden = await lockdown(id, { mode: 'locked' }, org.keys.readonly);
    const missing = await lockdown('rs_missing', { mode: 'locked' });

    expect(forbidden.status).toBe(403);
    expect(missing.status).toBe(404);
    expect((await get(id)).lockdownConfig).toBeUndefined();
  });
});

describe('lockdown while the ramp runs', () => {
  const refused = (response: { status: number; body: any }) => {
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'invalid_status', message: expect.stringMatching(/is locked by an active ramp schedule \("Ramp", rs_.*Pause the schedule/) });
  };
  /** A running schedule with lockdown on a new feature. */
  const lockedRamp = (then = ['start']) => schedule(hourly, then, { lockdownConfig: { mode: 'locked' } });

  it('refuses a v1 update of the feature, and stores nothing', async () => {
    const { featureId } = await lockedRamp();
    const before = await ok('GET', `/features/${featureId}`);

    const response = await call('POST', `/features/${featureId}`, { description: 'changed' }, org.keys.engineer);

    refused(response);
    expect(await ok('GET', `/features/${featureId}`)).toEqual(before);
  });

  it('refuses a toggle and a revert', async () => {
    const { featureId } = await lockedRamp();

    const toggle = await call('POST', `/features/${featureId}/toggle`, { environments: { production: false } }, org.keys.engineer);
    const revert = await call('POST', `/features/${featureId}/revert`, { revision: 1 }, org.keys.engineer);

    refused(toggle);
    refused(revert);
    expect((await ok('GET', `/features/${featureId}`)).feature.environments.production.enabled).toBe(true);
  });

  it('refuses to publish a draft, which stays a draft', async () => {
    const { featureId } = await lockedRamp();
    const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.engineer, body });
    const created = await v2('POST', `/features/${featureId}/revisions`, { comment: 'green' });
    await v2('PUT', `/features/${featureId}/revisions/${created.body.revision.version}/default-value`, { defaultValue: 'true' });

    const response = await v2('POST', `/features/${featureId}/revisions/${created.body.revision.version}/publish`, { comment: 'ship' });

    refused(response);
    expect((await v2('GET', `/features/${featureId}/revisions/${created.body.revision.version}`)).body.revision.status).toBe('draft');
    expect((await ok('GET', `/features/${featureId}`)).feature.defaultValue).toBe('false');
  });

  /** A draft experiment referenced by an experiment-ref rule of the feature (beside the ramped rule). */
  async function linkedExperiment(featureId: string) {
    const experiment = (
      await ok('POST', '/experiments', {
        trackingKey: `locked-${counter}`,
        name: 'Locked',
        variations: [
          { key: '0', name: 'Control' },
          { key: '1', name: 'Treatment' },
        ],
      })
    ).experiment;
    const [v0, v1] = experiment.variations.map((v: { variationId: string }) => v.variationId);
    // The admin's key may bypass approvals, so the lockdown lets it add the rule.
    await ok('POST', `/features/${featureId}`, {
      environments: {
        production: {
          enabled: true,
          rules: [
            { id: 'fr_roll', type: 'rollout', value: 'true', coverage: 0.1, hashAttribute: 'id', enabled: true },
            { type: 'experiment-ref', experimentId: experiment.id, variations: [{ variationId: v0, value: 'false' }, { variationId: v1, value: 'true' }] },
          ],
        },
      },
    });
    return experiment;
  }

  it('refuses to start an experiment a rule of the feature references, even to a caller who may bypass approvals', async () => {
    const { featureId } = await lockedRamp();
    const experiment = await linkedExperiment(featureId);

    const byEngineer = await call('POST', `/experiments/${experiment.id}/start`, { skipChecklist: true }, org.keys.engineer);
    const byAdmin = await call('POST', `/experiments/${experiment.id}/start`, { skipChecklist: true }, org.keys.admin);

    refused(byEngineer);
    refused(byAdmin);
    expect((await ok('GET', `/experiments/${experiment.id}`)).experiment.status).toBe('draft');
  });

  it('refuses an update that takes such an experiment from draft to running', async () => {
    const { featureId } = await lockedRamp();
    const experiment = await linkedExperiment(featureId);

    const response = await call('POST', `/experiments/${experiment.id}`, { status: 'running' }, org.keys.admin);

    refused(response);
    expect((await ok('GET', `/experiments/${experiment.id}`)).experiment.status).toBe('draft');
  });

  it('starts the experiment once the ramp is paused', async () => {
    const { featureId, id } = await lockedRamp();
    const experiment = await linkedExperiment(featureId);
    await ok('POST', `/ramp-schedules/${id}/actions/pause`);

    const response = await call('POST', `/experiments/${experiment.id}/start`, { skipChecklist: true }, org.keys.engineer);

    expect(response.status).toBe(200);
    expect(response.body.experiment.status).toBe('running');
  });

  it('lets a caller who may bypass approvals change the feature, as GrowthBook does', async () => {
    const { featureId } = await lockedRamp();

    const response = await call('POST', `/features/${featureId}`, { description: 'admin change' }, org.keys.admin);

    expect(response.status).toBe(200);
    expect(response.body.feature.description).toBe('admin change');
  });

  it.each([
    ['paused', ['start', 'pause']],
    ['ready', []],
    ['rolled back', ['start', 'rollback']],
  ])('does not lock the feature while the ramp is %s', async (_status, then) => {
    const { featureId } = await lockedRamp(then);

    const response = await call('POST', `/features/${featureId}`, { description: 'allowed' }, org.keys.engineer);

    expect(response.status).toBe(200);
  });

  it('does not lock the feature once the lockdown is cleared', async () => {
    const { featureId, id } = await lockedRamp();
    await ok('PUT', `/ramp-schedules/${id}/lockdown`, { mode: 'none' });

    const response = await call('POST', `/features/${featureId}`, { description: 'allowed' }, org.keys.engineer);

    expect(response.status).toBe(200);
  });

  it("leaves the ramp's own steps alone: it still advances", async () => {
    const { featureId, id } = await lockedRamp();

    const response = await action(id, 'advance', undefined, org.keys.engineer);

    expect(response.status).toBe(200);
    expect(await rule(featureId)).toMatchObject({ coverage: 0.5 });
  });
});
