import * as contract from '../../shared/contracts/ramp-schedules';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { insertRampSchedule } from '../../shared/store/ramp-schedules';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { expectReferenceRampSchedules } from '../support/reference';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  await projects.create(org.orgId, { id: 'prj_web', name: 'Web' });
  await projects.create(org.orgId, { id: 'prj_app', name: 'App' });
});
afterAll(() => api.close());

let counter = 0;
const uniqueId = () => `ramp-flag-${++counter}-${Date.now()}`;

/** Every ramp-schedule answer is checked against GrowthBook 5.0.1's `RampSchedule` as it is answered. */
async function call(method: string, path: string, options: { key?: string; body?: unknown } = {}) {
  const response = await api.request(method, `/api/v1${path}`, { key: options.key ?? org.keys.admin, body: options.body });
  if (path.startsWith('/ramp-schedules')) expectReferenceRampSchedules(response.body);
  return response;
}

async function ok(method: string, path: string, body?: unknown, key = org.keys.admin) {
  const response = await call(method, path, { key, body });
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A boolean feature with a rollout rule `fr_roll` (0%, disabled) and a force rule `fr_force` in production. */
async function feature(options: { project?: string; owner?: TestOrg } = {}) {
  const id = uniqueId();
  await ok(
    'POST',
    '/features',
    {
      id,
      valueType: 'boolean',
      defaultValue: 'false',
      ...(options.project ? { project: options.project } : {}),
      environments: {
        production: {
          enabled: true,
          rules: [
            { id: 'fr_roll', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id', enabled: false },
            { id: 'fr_force', type: 'force', value: 'true', condition: '{"beta":true}' },
          ],
        },
        dev: { enabled: true, rules: [{ id: 'fr_roll', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' }] },
      },
    },
    (options.owner ?? org).keys.admin,
  );
  return id;
}

const steps = [
  { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.1 } }] },
  { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }] },
  { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 1 } }] },
];
/** Waits for approval right after start, then goes to 100%. */
const approvalFirst = [
  { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.2 } }] },
  { trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 1 } }] },
];

const create = (body: unknown, key = org.keys.admin) => call('POST', '/ramp-schedules', { key, body });

/** A ready schedule on `fr_roll` of a new feature (or the one given). */
async function readySchedule(extra: Record<string, unknown> = {}, featureId?: string) {
  const id = featureId ?? (await feature());
  const body = await ok('POST', '/ramp-schedules', { name: 'Ramp', featureId: id, ruleId: 'fr_roll', environment: 'production', steps, ...extra });
  return { featureId: id, schedule: body.rampSchedule as contract.RampSchedule };
}

const action = (id: string, name: string, body?: unknown, key = org.keys.admin) =>
  call('POST', `/ramp-schedules/${id}/actions/${name}`, { key, body });

/** A schedule brought to `status` through the API. */
async function scheduleIn(status: 'pending' | 'ready' | 'running' | 'pending-approval' | 'paused' | 'completed' | 'rolled-back') {
  if (status === 'pending') {
    const featureId = await feature();
    return { featureId, schedule: (await ok('POST', '/ramp-schedules', { name: 'Pending', featureId })).rampSchedule as contract.RampSchedule };
  }
  const ready = await readySchedule(status === 'pending-approval' ? { steps: approvalFirst } : {});
  const then = { ready: [], running: ['start'], 'pending-approval': ['start'], paused: ['start', 'pause'], completed: ['start', 'complete'], 'rolled-back': ['start', 'rollback'] }[status];
  let schedule = ready.schedule;
  for (const name of then) schedule = (await ok('POST', `/ramp-schedules/${schedule.id}/actions/${name}`)).rampSchedule;
  // Waiting for an approval is `running` with `awaitingApproval` in GrowthBook 5.
  expect({ status: schedule.status, awaitingApproval: schedule.awaitingApproval }).toEqual(
    status === 'pending-approval' ? { status: 'running', awaitingApproval: true } : { status, awaitingApproval: false },
  );
  return { featureId: ready.featureId, schedule };
}

/** The rule `ruleId` of the feature in `environment`, as GET /features shows it. */
async function ruleOf(featureId: string, ruleId = 'fr_roll', environment = 'production') {
  const { feature: body } = await ok('GET', `/features/${featureId}`);
  return body.environments[environment].rules.find((rule: { id: string }) => rule.id === ruleId);
}

/** Newest first, as GrowthBook lists them. */
const revisionsOf = async (featureId: string) =>
  (await ok('GET', `/features/${featureId}?withRevisions=all`)).feature.revisions as Array<{ version: number; comment: string }>;

async function memberToken(role: 'readonly' | 'engineer' | 'experimenter', projectRoles: Array<{ project: string; role: string }>) {
  const member = await addMember(org.orgId, {
    name: 'Project member',
    email: `member-${uniqueId()}@example.com`,
    role,
    projectRoles: projectRoles.map((entry) => ({ ...entry, role: entry.role as 'engineer', limitAccessByEnvironment: false, environments: [] })),
  });
  return (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'project member' })).secret;
}

describe('POST /ramp-schedules', () => {
  it('creates a pending schedule without a target', async () => {
    const response = await create({ name: 'Later' });

    expect(response.status).toBe(200);
    expectShape(contract.createRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({
      id: expect.stringMatching(/^rs_/),
      name: 'Later',
      status: 'pending',
      targets: [],
      steps: [],
      currentStepIndex: -1,
      nextStepAt: null,
      elapsedMs: null,
      entityType: 'feature',
      entityId: '',
    });
  });

  it('creates a ready schedule on a feature rule, binding every action to its target', async () => {
    const featureId = await feature();

    const response = await create({ name: 'Ramp', featureId, ruleId: 'fr_roll', steps, endActions: [{ targetId: 't1', patch: { condition: null } }] });

    expect(response.status).toBe(200);
    expectShape(contract.createRampSchedule, response.body);
    const schedule = response.body.rampSchedule;
    expect(schedule).toMatchObject({ status: 'ready', entityId: featureId, currentStepIndex: -1 });
    expect(schedule.targets).toEqual([
      { id: expect.stringMatching(/^rt_/), entityType: 'feature', entityId: featureId, ruleId: 'fr_roll', environment: null, status: 'active' },
    ]);
    const targetId = schedule.targets[0].id;
    expect(schedule.steps[0].actions).toEqual([{ targetType: 'feature-rule', targetId, patch: { ruleId: 'fr_roll', coverage: 0.1 } }]);
    expect(schedule.endActions).toEqual([{ targetType: 'feature-rule', targetId, patch: { ruleId: 'fr_roll', condition: null } }]);
  });

  it('keeps the environment a target names', async () => {
    const featureId = await feature();

    const response = await create({ name: 'Dev only', featureId, ruleId: 'fr_roll', environment: 'dev' });

    expect(response.status).toBe(200);
    expect(response.body.rampSchedule.targets[0].environment).toBe('dev');
  });

  it.each([
    ['a missing name', { steps: [] }, /\[name\]/],
    ['an unknown field', { name: 'x', colour: 'red' }, /colour/],
    ['ruleId without featureId', { name: 'x', ruleId: 'fr_roll' }, /\[featureId\]/],
    ['an interval of 0 seconds', { name: 'x', FEATURE: true, ruleId: 'fr_roll', steps: [{ trigger: { type: 'interval', seconds: 0 } }] }, /\[steps\.0\.trigger\.seconds\]/],
    ['an unknown trigger type', { name: 'x', steps: [{ trigger: { type: 'weekly' } }] }, /\[steps\.0\.trigger/],
    ['a coverage over 1', { name: 'x', FEATURE: true, ruleId: 'fr_roll', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 2 } }] }] }, /coverage/],
    ['an unknown feature', { name: 'x', featureId: 'no-such-flag', ruleId: 'fr_roll' }, /\[featureId\]/],
    ["another organization's feature", { name: 'x', featureId: 'OTHER', ruleId: 'fr_roll' }, /\[featureId\]/],
    ['an unknown rule', { name: 'x', FEATURE: true, ruleId: 'fr_missing' }, /\[ruleId\]/],
    ['a rule missing from the named environment', { name: 'x', FEATURE: true, ruleId: 'fr_force', environment: 'dev' }, /\[ruleId\]/],
    ['environment without ruleId', { name: 'x', FEATURE: true, environment: 'dev' }, /\[environment\]/],
    ['a coverage patch on a force rule', { name: 'x', FEATURE: true, ruleId: 'fr_force', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }] }] }, /\[steps\.0\.actions\.0\.patch\.coverage\]/],
    ['a forced value the feature type cannot hold', { name: 'x', FEATURE: true, ruleId: 'fr_force', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { force: 'banana' } }] }] }, /\[steps\.0\.actions\.0\.patch\.force\] is not a valid boolean/],
    ['an action without a target to bind to', { name: 'x', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }] }] }, /\[steps\.0\.actions\.0\.targetId\]/],
    ['an unknown explicit targetId', { name: 'x', FEATURE: true, ruleId: 'fr_roll', endActions: [{ targetId: 'rt_nope', patch: { coverage: 1 } }] }, /\[endActions\.0\.targetId\]/],
    ['a patch naming another rule', { name: 'x', FEATURE: true, ruleId: 'fr_roll', endActions: [{ patch: { ruleId: 'fr_force', coverage: 1 } }] }, /\[endActions\.0\.patch\.ruleId\]/],
    ['a template', { name: 'x', templateId: 'rst_1' }, /\[templateId\]/],
    ['a start date that is not a date', { name: 'x', startDate: 'tomorrow' }, /\[startDate\]/],
    ['a cutoff date that is not a date', { name: 'x', cutoffDate: 'next week' }, /\[cutoffDate\]/],
    ['both cutoffDate and endCondition', { name: 'x', cutoffDate: '2041-01-01T00:00:00Z', endCondition: { trigger: { type: 'scheduled', at: '2041-01-01T00:00:00Z' } } }, /\[endCondition\] give cutoffDate/],
    ['an interval of 0 seconds (GrowthBook 5)', { name: 'x', FEATURE: true, ruleId: 'fr_roll', steps: [{ interval: 0 }] }, /\[steps\.0\.interval\]/],
    ['a step with both interval and trigger', { name: 'x', steps: [{ interval: 60, trigger: { type: 'interval', seconds: 60 } }] }, /\[steps\.0\.interval\] give GrowthBook 5's interval, or the older trigger, not both/],
    ['a sample-size gate beside a trigger', { name: 'x', steps: [{ trigger: { type: 'interval', seconds: 60 }, holdConditions: { minSampleSize: 10 } }] }, /\[steps\.0\.holdConditions\.minSampleSize\]/],
    ['a step with neither interval nor trigger', { name: 'x', steps: [{ actions: [] }] }, /\[steps\.0\.interval\] is required/],
    ['a step without a time hold or an approval', { name: 'x', steps: [{ interval: null }] }, /\[steps\.0\.interval\] a step without an interval must require approval/],
    ['a sample-size gate', { name: 'x', steps: [{ interval: 60, holdConditions: { minSampleSize: 1000 } }] }, /\[steps\.0\.holdConditions\.minSampleSize\]/],
    ['an unknown hold condition', { name: 'x', steps: [{ interval: 60, holdConditions: { minDurationMs: 1000 } }] }, /\[steps\.0\.holdConditions\].*minDurationMs/],
  ])('answers 400 for %s and stores nothing', async (_case, input, message) => {
    const { FEATURE, ...rest } = input as Record<string, unknown>;
    const featureId = FEATURE ? await feature() : rest.featureId === 'OTHER' ? await feature({ owner: other }) : rest.featureId;
    const before = (await ok('GET', '/ramp-schedules?limit=1')).total;

    const response = await create({ ...rest, ...(featureId ? { featureId } : {}) });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    expect((await ok('GET', '/ramp-schedules?limit=1')).total).toBe(before);
  });

  it('answers 409 when another unfinished schedule controls the rule', async () => {
    const { featureId, schedule } = await readySchedule();

    const response = await create({ name: 'Second', featureId, ruleId: 'fr_roll' });

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'already_exists', message: expect.stringContaining(schedule.id) });
  });

  it('lets only one of several simultaneous creates take the same rule', async () => {
    const featureId = await feature();

    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ name: `Racer ${i}`, featureId, ruleId: 'fr_roll' })));

    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const listed = await ok('GET', `/ramp-schedules?featureId=${featureId}`);
    expect(listed.total).toBe(1);
  });

  it('lets a new schedule take a rule once the previous one has finished', async () => {
    const { featureId, schedule } = await scheduleIn('completed');

    const response = await create({ name: 'Next', featureId, ruleId: 'fr_roll' });

    expect(schedule.status).toBe('completed');
    expect(response.status).toBe(200);
  });

  it('lets another schedule take a different rule of the same feature', async () => {
    const { featureId } = await readySchedule();

    const response = await create({ name: 'Force', featureId, ruleId: 'fr_force' });

    expect(response.status).toBe(200);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create({ name: 'x' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it("answers 403 for a member who may write in another project only, and 200 in the feature's project", async () => {
    const token = await memberToken('readonly', [{ project: 'prj_app', role: 'engineer' }]);
    const webFeature = await feature({ project: 'prj_web' });
    const appFeature = await feature({ project: 'prj_app' });

    const denied = await create({ name: 'x', featureId: webFeature, ruleId: 'fr_roll' }, token);
    const allowed = await create({ name: 'x', featureId: appFeature, ruleId: 'fr_roll' }, token);

    expect(denied.status).toBe(403);
    expect(allowed.status).toBe(200);
  });
});

describe('step shapes: GrowthBook 5 and seed-era', () => {
  const put = (id: string, body: unknown) => call('PUT', `/ramp-schedules/${id}`, { body });
  const gb5 = [
    { interval: 60, actions: [{ patch: { coverage: 0.1 } }] },
    { interval: null, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.5 } }], approvalNotes: 'Check errors' },
    { interval: 120, actions: [{ patch: { coverage: 1 } }] },
  ];
  const seedEra = [
    { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.1 } }] },
    { trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.5 } }], approvalNotes: 'Check errors' },
    { trigger: { type: 'interval', seconds: 120 }, actions: [{ patch: { coverage: 1 } }] },
  ];
  const timings = (schedule: contract.RampSchedule) =>
    schedule.steps.map(({ interval, holdConditions, approvalNotes, monitored, actions }) => ({
      interval,
      holdConditions,
      approvalNotes,
      monitored,
      coverage: actions.map((a) => a.patch.coverage),
    }));

  it("takes GrowthBook 5's interval, holdConditions and cutoffDate, and answers them as given", async () => {
    const { schedule } = await readySchedule({ steps: gb5, cutoffDate: '2041-01-01T01:00:00+01:00' });

    expect(timings(schedule)).toEqual([
      { interval: 60, holdConditions: undefined, approvalNotes: undefined, monitored: false, coverage: [0.1] },
      { interval: null, holdConditions: { requiresApproval: true }, approvalNotes: 'Check errors', monitored: false, coverage: [0.5] },
      { interval: 120, holdConditions: undefined, approvalNotes: undefined, monitored: false, coverage: [1] },
    ]);
    expect(schedule).toMatchObject({ cutoffDate: '2041-01-01T00:00:00.000Z', awaitingApproval: false });
    expect(schedule).not.toHaveProperty('endCondition');
    expect(schedule).not.toHaveProperty('organization');
  });

  it('answers the seed-era trigger and endCondition in the shape of GrowthBook 5 steps and cutoffDate', async () => {
    const modern = await readySchedule({ steps: gb5, cutoffDate: '2041-01-01T00:00:00Z' });
    const older = await readySchedule({ steps: seedEra, endCondition: { trigger: { type: 'scheduled', at: '2041-01-01T00:00:00Z' } } });

    expect(timings(older.schedule)).toEqual(timings(modern.schedule));
    expect(older.schedule.cutoffDate).toBe(modern.schedule.cutoffDate);
  });

  it('holds an interval step for its seconds and waits at an approval step, given either shape', async () => {
    for (const plan of [gb5, seedEra]) {
      const { featureId, schedule } = await readySchedule({ steps: plan });

      const started = await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
      const waiting = await ok('POST', `/ramp-schedules/${schedule.id}/actions/advance`);

      expect(started.rampSchedule).toMatchObject({ status: 'running', awaitingApproval: false, currentStepIndex: 0 });
      expect(Date.parse(started.rampSchedule.nextStepAt) - Date.parse(started.rampSchedule.phaseStartedAt)).toBe(60_000);
      expect(waiting.rampSchedule).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 1, nextStepAt: null });
      expect(await ruleOf(featureId)).toMatchObject({ coverage: 0.5, enabled: true });
    }
  });

  it("answers a seed-era dated step as the seconds from the step's entry to its date", async () => {
    const { schedule } = await readySchedule({
      startDate: '2040-01-01T00:00:00Z',
      steps: [
        { trigger: { type: 'scheduled', at: '2040-01-01T01:00:00Z' }, actions: [{ patch: { coverage: 0.1 } }] },
        { trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage: 0.5 } }] },
        { trigger: { type: 'scheduled', at: '2040-01-01T03:00:00Z' }, actions: [{ patch: { coverage: 1 } }] },
      ],
    });

    expect(schedule.steps.map((step) => step.interval)).toEqual([3600, 60, 7140]);
    expect(schedule.steps.every((step) => step.holdConditions === undefined)).toBe(true);
  });

  it('PUT takes the GrowthBook 5 shape too', async () => {
    const { schedule } = await readySchedule({ steps: seedEra });

    const response = await put(schedule.id, { steps: [{ interval: 30, actions: [{ patch: { ruleId: 'fr_roll', coverage: 0.3 } }] }], cutoffDate: '2042-01-01T00:00:00Z' });

    expect(response.status).toBe(200);
    expect(timings(response.body.rampSchedule)).toEqual([{ interval: 30, holdConditions: undefined, approvalNotes: undefined, monitored: false, coverage: [0.3] }]);
    expect(response.body.rampSchedule.cutoffDate).toBe('2042-01-01T00:00:00.000Z');
  });

  it('reads a schedule stored in the seed-era shape in GrowthBook 5.0.1\'s shape, and lists it under status=running', async () => {
    const featureId = await feature();
    // As the seed era stored one: triggers only, waiting for approval, an end condition, none of the later fields.
    const stored = {
      id: `rs_seed_${uniqueId()}`,
      organization: org.orgId,
      name: 'Seed era',
      entityType: 'feature' as const,
      entityId: featureId,
      targets: [{ id: 'rt_seed', entityType: 'feature' as const, entityId: featureId, ruleId: 'fr_roll', environment: 'production', status: 'active' as const }],
      steps: [
        { trigger: { type: 'interval' as const, seconds: 60 }, actions: [{ targetType: 'feature-rule' as const, targetId: 'rt_seed', patch: { ruleId: 'fr_roll', coverage: 0.1 } }] },
        { trigger: { type: 'approval' as const }, actions: [{ targetType: 'feature-rule' as const, targetId: 'rt_seed', patch: { ruleId: 'fr_roll', coverage: 0.5 } }] },
        { trigger: { type: 'scheduled' as const, at: '2041-01-01T01:00:00.000Z' }, actions: [] },
      ],
      endActions: [],
      startDate: null,
      endCondition: { trigger: { type: 'scheduled' as const, at: '2041-06-01T00:00:00.000Z' } },
      status: 'pending-approval' as const,
      currentStepIndex: 1,
      startedAt: '2041-01-01T00:00:00.000Z',
      phaseStartedAt: '2041-01-01T00:01:00.000Z',
      pausedAt: null,
      nextStepAt: null,
      captured: { rt_seed: { production: { coverage: 0, enabled: false } } },
      pausedMs: 0,
      endedAt: null,
      failures: 0,
      retryAt: null,
      pauseReason: null,
    };
    await insertRampSchedule(org.orgId, stored);

    const read = await ok('GET', `/ramp-schedules/${stored.id}`);
    const running = await ok('GET', `/ramp-schedules?status=running&featureId=${featureId}`);

    expect(read.rampSchedule).toMatchObject({
      status: 'running',
      awaitingApproval: true,
      currentStepIndex: 1,
      cutoffDate: '2041-06-01T00:00:00.000Z',
      // The dated step counts from the approval step's entry (an approval adds no time): 59 minutes.
      steps: [{ interval: 60 }, { interval: null, holdConditions: { requiresApproval: true } }, { interval: 3540 }],
    });
    expect(running.rampSchedules.map((schedule: contract.RampSchedule) => schedule.id)).toEqual([stored.id]);
  });

  it('lists a schedule waiting for approval under status=running, as GrowthBook 5 does', async () => {
    const fresh = await createTestOrg('Ramp statuses');
    const featureId = (await api.request('POST', '/api/v1/features', {
      key: fresh.keys.admin,
      body: { id: uniqueId(), valueType: 'boolean', defaultValue: 'false', environments: { production: { enabled: true, rules: [{ id: 'fr_roll', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' }] } } },
    })).body.feature.id;
    const created = await ok('POST', '/ramp-schedules', { name: 'Waits', featureId, ruleId: 'fr_roll', steps: approvalFirst }, fresh.keys.admin);
    await ok('POST', `/ramp-schedules/${created.rampSchedule.id}/actions/start`, undefined, fresh.keys.admin);

    const running = await ok('GET', '/ramp-schedules?status=running', undefined, fresh.keys.admin);
    const older = await ok('GET', '/ramp-schedules?status=pending-approval', undefined, fresh.keys.admin);

    expect(running.rampSchedules.map((schedule: contract.RampSchedule) => [schedule.name, schedule.status, schedule.awaitingApproval])).toEqual([['Waits', 'running', true]]);
    expect(older.rampSchedules.map((schedule: contract.RampSchedule) => schedule.name)).toEqual(['Waits']);
  });
});

describe('GET /ramp-schedules', () => {
  let fresh: TestOrg;
  let firstFeature: string;

  beforeAll(async () => {
    fresh = await createTestOrg('Listing org');
    firstFeature = await feature({ owner: fresh });
    const secondFeature = await feature({ owner: fresh });
    const make = (body: unknown) => ok('POST', '/ramp-schedules', body, fresh.keys.admin);
    await make({ name: 'A', featureId: firstFeature, ruleId: 'fr_roll' });
    await make({ name: 'B', featureId: firstFeature, ruleId: 'fr_force' });
    await make({ name: 'C', featureId: secondFeature });
  });

  it('pages through the schedules in creation order', async () => {
    const response = await call('GET', '/ramp-schedules?limit=2', { key: fresh.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.listRampSchedules, response.body);
    expect(response.body).toMatchObject({ limit: 2, offset: 0, count: 2, total: 3, hasMore: true, nextOffset: 2 });
    expect(response.body.rampSchedules.map((schedule: { name: string }) => schedule.name)).toEqual(['A', 'B']);
    const last = await ok('GET', '/ramp-schedules?limit=2&offset=2', undefined, fresh.keys.readonly);
    expect(last).toMatchObject({ count: 1, hasMore: false, nextOffset: null });
    expect(last.rampSchedules[0].name).toBe('C');
  });

  it('filters by feature and by status', async () => {
    const byFeature = await ok('GET', `/ramp-schedules?featureId=${firstFeature}`, undefined, fresh.keys.admin);
    const pending = await ok('GET', '/ramp-schedules?status=pending', undefined, fresh.keys.admin);

    expect(byFeature.rampSchedules.map((schedule: { name: string }) => schedule.name)).toEqual(['A', 'B']);
    expect(pending.rampSchedules.map((schedule: { name: string }) => schedule.name)).toEqual(['C']);
  });

  it("never shows another organization's schedules", async () => {
    const response = await ok('GET', '/ramp-schedules?limit=100', undefined, other.keys.admin);

    expect(response.rampSchedules.map((schedule: { name: string }) => schedule.name)).not.toContain('A');
  });

  it.each([['limit=0'], ['limit=101'], ['offset=-1'], ['status=sleeping']])('answers 400 for %s', async (query) => {
    const response = await call('GET', `/ramp-schedules?${query}`);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Querystring: /);
  });

  it('answers 403 for a noaccess key', async () => {
    const response = await call('GET', '/ramp-schedules', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});

describe('GET /ramp-schedules/{id}', () => {
  it('returns the schedule, with elapsedMs computed now', async () => {
    const { schedule } = await scheduleIn('running');

    const response = await call('GET', `/ramp-schedules/${schedule.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.getRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({ id: schedule.id, status: 'running', startedAt: schedule.startedAt });
    expect(response.body.rampSchedule.elapsedMs).toBeGreaterThanOrEqual(schedule.elapsedMs!);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await call('GET', '/ramp-schedules/rs_missing');

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('rs_missing') });
  });

  it('answers 404 when the schedule belongs to another organization', async () => {
    const { schedule } = await readySchedule();

    const response = await call('GET', `/ramp-schedules/${schedule.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
  });
});

describe('PUT /ramp-schedules/{id}', () => {
  const put = (id: string, body: unknown, key = org.keys.admin) => call('PUT', `/ramp-schedules/${id}`, { key, body });

  it('changes the fields given and keeps the others', async () => {
    const { schedule } = await readySchedule();
    const targetId = schedule.targets[0].id;

    const response = await put(schedule.id, {
      name: 'Renamed',
      steps: [{ trigger: { type: 'interval', seconds: 30 }, actions: [{ targetId, patch: { ruleId: 'fr_roll', coverage: 0.3 } }] }],
      startDate: '2040-01-01T00:00:00+02:00',
    });

    expect(response.status).toBe(200);
    expectShape(contract.updateRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({
      name: 'Renamed',
      status: 'ready',
      startDate: '2039-12-31T22:00:00.000Z',
      nextProcessAt: '2039-12-31T22:00:00.000Z',
      endActions: schedule.endActions,
    });
    expect(response.body.rampSchedule.steps).toHaveLength(1);
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule.name).toBe('Renamed');
  });

  it('clears startDate and endCondition with null', async () => {
    const { schedule } = await readySchedule({ startDate: '2040-01-01T00:00:00Z', endCondition: { trigger: { type: 'scheduled', at: '2041-01-01T00:00:00Z' } } });

    const response = await put(schedule.id, { startDate: null, endCondition: null });

    expect(schedule.cutoffDate).toBe('2041-01-01T00:00:00.000Z');
    expect(response.status).toBe(200);
    expect(response.body.rampSchedule).toMatchObject({ startDate: null, cutoffDate: null, nextProcessAt: null });
  });

  it('sets and clears cutoffDate, GrowthBook 5 spelling of the end condition', async () => {
    const { schedule } = await readySchedule({ startDate: '2040-01-01T00:00:00Z' });

    const set = await put(schedule.id, { cutoffDate: '2041-01-01T02:00:00+02:00' });
    const cleared = await put(schedule.id, { cutoffDate: null });

    expect(schedule.cutoffDate).toBeNull();
    expect(set.status).toBe(200);
    expect(set.body.rampSchedule).toMatchObject({ cutoffDate: '2041-01-01T00:00:00.000Z', nextProcessAt: '2040-01-01T00:00:00.000Z' });
    expect(cleared.body.rampSchedule.cutoffDate).toBeNull();
  });

  it('edits a paused schedule', async () => {
    const { schedule } = await scheduleIn('paused');

    const response = await put(schedule.id, { name: 'Paused and renamed' });

    expect(response.status).toBe(200);
    expect(response.body.rampSchedule.status).toBe('paused');
  });

  it.each(['running', 'pending-approval', 'completed', 'rolled-back'] as const)('answers 409 invalid_status when %s and changes nothing', async (status) => {
    const { schedule } = await scheduleIn(status);

    const response = await put(schedule.id, { name: 'Nope' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule.name).toBe(schedule.name);
  });

  it.each([
    ['an action without patch.ruleId', { steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.3 } }] }] }, /\[steps\.0\.actions\.0\.patch\.ruleId\]/],
    ['an empty name', { name: '' }, /\[name\]/],
    ['an unknown field', { status: 'running' }, /status/],
    ['a forced value the feature type cannot hold', { endActions: [{ patch: { ruleId: 'fr_roll', force: 12 } }] }, /\[endActions\.0\.patch\.force\]/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const { schedule } = await readySchedule();

    const response = await put(schedule.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('answers 404 for an unknown id and for another organization', async () => {
    const { schedule } = await readySchedule();

    expect((await put('rs_missing', { name: 'x' })).status).toBe(404);
    expect((await put(schedule.id, { name: 'x' }, other.keys.admin)).status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { schedule } = await readySchedule();

    expect((await put(schedule.id, { name: 'x' }, org.keys.readonly)).status).toBe(403);
  });
});

describe('DELETE /ramp-schedules/{id}', () => {
  it.each(['pending', 'ready', 'paused', 'completed', 'rolled-back'] as const)('deletes a %s schedule and frees its rule', async (status) => {
    const { featureId, schedule } = await scheduleIn(status);

    const response = await call('DELETE', `/ramp-schedules/${schedule.id}`);

    expect(response.status).toBe(200);
    expectShape(contract.deleteRampSchedule, response.body);
    expect(response.body).toEqual({ deletedId: schedule.id });
    expect((await call('GET', `/ramp-schedules/${schedule.id}`)).status).toBe(404);
    expect((await create({ name: 'Next', featureId, ruleId: 'fr_roll' })).status).toBe(200);
  });

  it('leaves the rule as the schedule left it', async () => {
    const { featureId, schedule } = await scheduleIn('paused');

    await ok('DELETE', `/ramp-schedules/${schedule.id}`);

    expect(await ruleOf(featureId)).toMatchObject({ coverage: 0.1, enabled: true });
  });

  it.each(['running', 'pending-approval'] as const)('answers 409 invalid_status while %s', async (status) => {
    const { schedule } = await scheduleIn(status);

    const response = await call('DELETE', `/ramp-schedules/${schedule.id}`);

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
    expect((await call('GET', `/ramp-schedules/${schedule.id}`)).status).toBe(200);
  });

  it('answers 404 for an unknown id and for another organization, and 403 for a readonly key', async () => {
    const { schedule } = await readySchedule();

    expect((await call('DELETE', '/ramp-schedules/rs_missing')).status).toBe(404);
    expect((await call('DELETE', `/ramp-schedules/${schedule.id}`, { key: other.keys.admin })).status).toBe(404);
    expect((await call('DELETE', `/ramp-schedules/${schedule.id}`, { key: org.keys.readonly })).status).toBe(403);
    expect((await call('GET', `/ramp-schedules/${schedule.id}`)).status).toBe(200);
  });
});

describe('POST /ramp-schedules/{id}/actions/start', () => {
  it('enters step 0: enables the rule, applies the step and records a feature revision', async () => {
    const { featureId, schedule } = await readySchedule();
    const revisionsBefore = (await revisionsOf(featureId)).length;

    const response = await action(schedule.id, 'start');

    expect(response.status).toBe(200);
    expectShape(contract.startRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'running', currentStepIndex: 0, startedAt: expect.any(String), elapsedMs: expect.any(Number) });
    expect(Date.parse(response.body.rampSchedule.nextStepAt) - Date.parse(response.body.rampSchedule.phaseStartedAt)).toBe(60_000);
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 0.1, enabled: true });
    expect(await ruleOf(featureId, 'fr_roll', 'dev')).toMatchObject({ coverage: 0 });
    const revisions = await revisionsOf(featureId);
    expect(revisions).toHaveLength(revisionsBefore + 1);
    expect(revisions[0]!.comment).toBe('Ramp step 1 of 3');
  });

  it('patches the rule in every environment when the target names none', async () => {
    const featureId = await feature();
    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Everywhere', featureId, ruleId: 'fr_roll', steps });

    await ok('POST', `/ramp-schedules/${rampSchedule.id}/actions/start`);

    expect(await ruleOf(featureId, 'fr_roll', 'production')).toMatchObject({ coverage: 0.1 });
    expect(await ruleOf(featureId, 'fr_roll', 'dev')).toMatchObject({ coverage: 0.1 });
  });

  it('puts the new coverage into the SDK payload', async () => {
    const { featureId, schedule } = await readySchedule();
    const { sdkConnection } = await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' });

    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);

    const payload = (await api.request('GET', `/api/features/${sdkConnection.key}`)).body;
    expect(payload.features[featureId].rules[0]).toMatchObject({ coverage: 0.1, force: true });
  });

  it.each(['pending', 'running', 'paused', 'completed'] as const)('answers 409 invalid_status when %s', async (status) => {
    const { schedule } = await scheduleIn(status);

    const response = await action(schedule.id, 'start');

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });

  it('answers 409 when the rule was deleted from the feature, and changes nothing', async () => {
    const { featureId, schedule } = await readySchedule();
    await ok('POST', `/features/${featureId}`, { environments: { production: { rules: [] }, dev: { rules: [] } } });

    const response = await action(schedule.id, 'start');

    expect(response.status).toBe(409);
    expect(response.body.message).toMatch(/no longer exists/);
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule.status).toBe('ready');
  });
});

describe('pause and resume', () => {
  it('pauses without touching the rule, and resumes', async () => {
    const { featureId, schedule } = await scheduleIn('running');
    const revisionsBefore = (await revisionsOf(featureId)).length;

    const paused = await action(schedule.id, 'pause');
    const resumed = await action(schedule.id, 'resume');

    expect(paused.status).toBe(200);
    expectShape(contract.pauseRampSchedule, paused.body);
    expect(paused.body.rampSchedule).toMatchObject({ status: 'paused', pausedAt: expect.any(String), nextProcessAt: null });
    expect(resumed.status).toBe(200);
    expectShape(contract.resumeRampSchedule, resumed.body);
    expect(resumed.body.rampSchedule).toMatchObject({ status: 'running', pausedAt: null, currentStepIndex: 0 });
    expect(Date.parse(resumed.body.rampSchedule.nextStepAt)).toBeGreaterThanOrEqual(Date.parse(schedule.nextStepAt!));
    expect(await revisionsOf(featureId)).toHaveLength(revisionsBefore);
  });

  it('goes back to waiting for approval when resumed', async () => {
    const { schedule } = await scheduleIn('pending-approval');
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/pause`);

    const paused = await ok('GET', `/ramp-schedules/${schedule.id}`);
    const resumed = await ok('POST', `/ramp-schedules/${schedule.id}/actions/resume`);

    // A paused schedule waits on its pause, not on the approval (GrowthBook 5).
    expect(paused.rampSchedule).toMatchObject({ status: 'paused', awaitingApproval: false });
    expect(resumed.rampSchedule).toMatchObject({ status: 'running', awaitingApproval: true });
  });

  it.each([
    ['pause', 'ready'],
    ['pause', 'paused'],
    ['pause', 'completed'],
    ['resume', 'running'],
    ['resume', 'ready'],
    ['resume', 'rolled-back'],
  ] as const)('answers 409 invalid_status to %s when %s', async (name, status) => {
    const { schedule } = await scheduleIn(status);

    const response = await action(schedule.id, name);

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });
});

describe('POST /ramp-schedules/{id}/actions/jump', () => {
  it('brings the rule to the state of the target step and pauses', async () => {
    const { featureId, schedule } = await scheduleIn('running');

    const response = await action(schedule.id, 'jump', { targetStepIndex: 2 });

    expect(response.status).toBe(200);
    expectShape(contract.jumpRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'paused', currentStepIndex: 2 });
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 1, enabled: true });
  });

  it('goes back to the state at start with -1', async () => {
    const { featureId, schedule } = await scheduleIn('running');

    await ok('POST', `/ramp-schedules/${schedule.id}/actions/jump`, { targetStepIndex: -1 });

    expect(await ruleOf(featureId)).toMatchObject({ coverage: 0, enabled: false });
  });

  it.each([
    ['a step past the last', { targetStepIndex: 3 }, /\[targetStepIndex\]/],
    ['-2', { targetStepIndex: -2 }, /\[targetStepIndex\]/],
    ['a missing targetStepIndex', {}, /\[targetStepIndex\]/],
    ['a fraction', { targetStepIndex: 1.5 }, /\[targetStepIndex\]/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const { schedule } = await scheduleIn('running');

    const response = await action(schedule.id, 'jump', body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it.each(['ready', 'completed'] as const)('answers 409 invalid_status when %s', async (status) => {
    const { schedule } = await scheduleIn(status);

    const response = await action(schedule.id, 'jump', { targetStepIndex: 0 });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });
});

describe('complete and rollback', () => {
  it('complete applies every remaining step and the end actions, and frees the rule', async () => {
    const { featureId, schedule } = await readySchedule({ endActions: [{ patch: { condition: '{"country":"NL"}' } }] });
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);

    const response = await action(schedule.id, 'complete');

    expect(response.status).toBe(200);
    expectShape(contract.completeRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'completed', currentStepIndex: 2, nextStepAt: null, nextProcessAt: null });
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 1, condition: '{"country":"NL"}', enabled: true });
    expect((await revisionsOf(featureId))[0]!.comment).toBe('Ramp completed');
    expect((await create({ name: 'Next', featureId, ruleId: 'fr_roll' })).status).toBe(200);
  });

  it('rollback restores the rule as it was at start', async () => {
    const { featureId, schedule } = await scheduleIn('running');
    const before = { coverage: 0, enabled: false };

    const response = await action(schedule.id, 'rollback');

    expect(response.status).toBe(200);
    expectShape(contract.rollbackRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'rolled-back', currentStepIndex: -1 });
    expect(await ruleOf(featureId)).toMatchObject(before);
  });

  it('rolls back a completed schedule while no other schedule controls the rule', async () => {
    const { featureId, schedule } = await scheduleIn('completed');

    const response = await action(schedule.id, 'rollback');

    expect(response.status).toBe(200);
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 0, enabled: false });
  });

  it('refuses to roll back a completed schedule once another schedule controls the rule', async () => {
    const { featureId, schedule } = await scheduleIn('completed');
    await ok('POST', '/ramp-schedules', { name: 'Successor', featureId, ruleId: 'fr_roll' });

    const response = await action(schedule.id, 'rollback');

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'invalid_status', message: expect.stringMatching(/another ramp schedule controls it/) });
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 1 });
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule.status).toBe('completed');
  });

  it.each([
    ['complete', 'ready'],
    ['complete', 'completed'],
    ['rollback', 'ready'],
    ['rollback', 'rolled-back'],
  ] as const)('answers 409 invalid_status to %s when %s', async (name, status) => {
    const { schedule } = await scheduleIn(status);

    const response = await action(schedule.id, name);

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });
});

describe('POST /ramp-schedules/{id}/actions/approve-step', () => {
  it('approves the step waited on and enters the next one', async () => {
    const { featureId, schedule } = await scheduleIn('pending-approval');

    const response = await action(schedule.id, 'approve-step', undefined, org.keys.experimenter);

    expect(response.status).toBe(200);
    expectShape(contract.approveStepRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'running', awaitingApproval: false, currentStepIndex: 1 });
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 1 });
  });

  it('answers 403 to a key without the review permission, and changes nothing', async () => {
    const { featureId, schedule } = await scheduleIn('pending-approval');

    const response = await action(schedule.id, 'approve-step', undefined, org.keys.engineer);

    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 0 });
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 0.2 });
  });

  it("answers 403 to a member who may review in another project only, and 200 in the feature's project", async () => {
    const token = await memberToken('engineer', [{ project: 'prj_app', role: 'experimenter' }]);
    const make = async (project: string) => {
      const { schedule } = await readySchedule({ steps: approvalFirst }, await feature({ project }));
      await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
      return schedule.id;
    };
    const [web, app] = [await make('prj_web'), await make('prj_app')];

    const denied = await action(web, 'approve-step', undefined, token);
    const allowed = await action(app, 'approve-step', undefined, token);

    expect(denied.status).toBe(403);
    expect((await ok('GET', `/ramp-schedules/${web}`)).rampSchedule).toMatchObject({ status: 'running', awaitingApproval: true });
    expect(allowed.status).toBe(200);
  });

  it.each(['ready', 'running', 'paused'] as const)('answers 409 invalid_status when %s', async (status) => {
    const { schedule } = await scheduleIn(status);

    const response = await action(schedule.id, 'approve-step');

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });
});

describe('POST /ramp-schedules/{id}/actions/add-target', () => {
  it('makes a pending schedule ready', async () => {
    const { schedule } = await ok('POST', '/ramp-schedules', { name: 'Empty' }).then((body) => ({ schedule: body.rampSchedule }));
    const featureId = await feature();

    const response = await action(schedule.id, 'add-target', { featureId, ruleId: 'fr_roll', environment: 'production' });

    expect(response.status).toBe(200);
    expectShape(contract.addTargetRampSchedule, response.body);
    expect(response.body.rampSchedule).toMatchObject({ status: 'ready', entityId: featureId });
    expect(response.body.rampSchedule.targets).toEqual([
      { id: expect.stringMatching(/^rt_/), entityType: 'feature', entityId: featureId, ruleId: 'fr_roll', environment: 'production', status: 'active' },
    ]);
  });

  it('controls a second rule of the feature, which no other schedule may then take', async () => {
    const { featureId, schedule } = await readySchedule();

    const response = await action(schedule.id, 'add-target', { featureId, ruleId: 'fr_force' });

    expect(response.status).toBe(200);
    expect(response.body.rampSchedule.targets).toHaveLength(2);
    expect((await create({ name: 'x', featureId, ruleId: 'fr_force' })).status).toBe(409);
  });

  it('holds a rule targeted in two environments until both targets are gone', async () => {
    const { featureId, schedule } = await readySchedule();
    const added = await ok('POST', `/ramp-schedules/${schedule.id}/actions/add-target`, { featureId, ruleId: 'fr_roll', environment: 'dev' });
    const [productionTarget, devTarget] = added.rampSchedule.targets.map((target: { id: string }) => target.id);

    await ok('POST', `/ramp-schedules/${schedule.id}/actions/eject-target`, { targetId: devTarget });
    const whileOneRemains = await create({ name: 'x', featureId, ruleId: 'fr_roll' });
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/eject-target`, { targetId: productionTarget });
    const afterBoth = await create({ name: 'x', featureId, ruleId: 'fr_roll' });

    expect(whileOneRemains.status).toBe(409);
    expect(afterBoth.status).toBe(200);
  });

  it('rolls back a completed schedule that targets one rule in two environments', async () => {
    const { featureId, schedule } = await readySchedule();
    const added = await ok('POST', `/ramp-schedules/${schedule.id}/actions/add-target`, { featureId, ruleId: 'fr_roll', environment: 'dev' });
    const actions = added.rampSchedule.targets.map((target: { id: string }) => ({ targetId: target.id, patch: { ruleId: 'fr_roll', coverage: 0.4 } }));
    await ok('PUT', `/ramp-schedules/${schedule.id}`, { steps: [{ trigger: { type: 'approval' }, actions }] });
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/start`);
    await ok('POST', `/ramp-schedules/${schedule.id}/actions/complete`);
    const completed = [await ruleOf(featureId), await ruleOf(featureId, 'fr_roll', 'dev')];

    const response = await action(schedule.id, 'rollback');

    expect(completed.map((rule) => rule.coverage)).toEqual([0.4, 0.4]);
    expect(response.status).toBe(200);
    expect([await ruleOf(featureId), await ruleOf(featureId, 'fr_roll', 'dev')]).toEqual([
      expect.objectContaining({ coverage: 0, enabled: false }),
      expect.objectContaining({ coverage: 0, enabled: true }),
    ]);
  });

  it('answers 409 when another unfinished schedule controls the rule', async () => {
    const { featureId } = await readySchedule();
    const { rampSchedule } = await ok('POST', '/ramp-schedules', { name: 'Second', featureId });

    const response = await action(rampSchedule.id, 'add-target', { featureId, ruleId: 'fr_roll' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('already_exists');
    expect((await ok('GET', `/ramp-schedules/${rampSchedule.id}`)).rampSchedule.targets).toEqual([]);
  });

  it.each([
    ['an unknown feature', { featureId: 'no-such-flag', ruleId: 'fr_roll' }, /\[featureId\]/],
    ['an unknown rule', { ruleId: 'fr_missing' }, /\[ruleId\]/],
    ['a missing ruleId', { ruleId: undefined }, /\[ruleId\]/],
    ['another feature than the schedule’s', { featureId: 'OTHER', ruleId: 'fr_roll' }, /\[featureId\]/],
  ] as Array<[string, Record<string, unknown>, RegExp]>)('answers 400 for %s', async (_case, body, message) => {
    const { featureId, schedule } = await readySchedule();
    const otherFeature = body.featureId === 'OTHER' ? await feature() : undefined;

    const response = await action(schedule.id, 'add-target', { featureId, ...body, ...(otherFeature ? { featureId: otherFeature } : {}) });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it.each(['running', 'completed'] as const)('answers 409 invalid_status when %s', async (status) => {
    const { featureId, schedule } = await scheduleIn(status);

    const response = await action(schedule.id, 'add-target', { featureId, ruleId: 'fr_force' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });
});

describe('POST /ramp-schedules/{id}/actions/eject-target', () => {
  it('lets go of one target, leaving its rule as it is and freeing it', async () => {
    const { featureId, schedule } = await readySchedule();
    const added = await ok('POST', `/ramp-schedules/${schedule.id}/actions/add-target`, { featureId, ruleId: 'fr_force' });
    const forceTarget = added.rampSchedule.targets[1].id;

    const response = await action(schedule.id, 'eject-target', { targetId: forceTarget });

    expect(response.status).toBe(200);
    expectShape(contract.ejectTargetRampSchedule, response.body);
    expect(response.body.rampSchedule.targets.map((target: { ruleId: string }) => target.ruleId)).toEqual(['fr_roll']);
    expect((await create({ name: 'Force', featureId, ruleId: 'fr_force' })).status).toBe(200);
  });

  it('deletes the schedule when its last target goes', async () => {
    const { featureId, schedule } = await scheduleIn('paused');

    const response = await action(schedule.id, 'eject-target', { ruleId: 'fr_roll' });

    expect(response.status).toBe(200);
    expectShape(contract.ejectTargetRampSchedule, response.body);
    expect(response.body).toEqual({ deleted: true, rampScheduleId: schedule.id });
    expect((await call('GET', `/ramp-schedules/${schedule.id}`)).status).toBe(404);
    expect(await ruleOf(featureId)).toMatchObject({ coverage: 0.1 });
    expect((await create({ name: 'Next', featureId, ruleId: 'fr_roll' })).status).toBe(200);
  });

  it.each([
    ['an unknown target', { targetId: 'rt_nope' }, /\[targetId\]/],
    ['a rule the schedule does not control', { ruleId: 'fr_force' }, /\[ruleId\]/],
    ['neither targetId nor ruleId', {}, /\[targetId\]/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const { schedule } = await readySchedule();

    const response = await action(schedule.id, 'eject-target', body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it.each(['running', 'pending-approval'] as const)('answers 409 invalid_status when %s', async (status) => {
    const { schedule } = await scheduleIn(status);

    const response = await action(schedule.id, 'eject-target', { ruleId: 'fr_roll' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });
});

describe('every action', () => {
  const actions: Array<[string, unknown]> = [
    ['start', undefined],
    ['pause', undefined],
    ['resume', undefined],
    ['jump', { targetStepIndex: 0 }],
    ['complete', undefined],
    ['rollback', undefined],
    ['approve-step', undefined],
    ['add-target', { featureId: 'x', ruleId: 'fr_roll' }],
    ['eject-target', { ruleId: 'fr_roll' }],
  ];

  it.each(actions)('%s answers 404 for an unknown id', async (name, body) => {
    const response = await action('rs_missing', name, body);

    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });

  it.each(actions)("%s answers 404 for another organization's schedule, which stays as it was", async (name, body) => {
    const { schedule } = await scheduleIn('pending-approval');

    const response = await action(schedule.id, name, body, other.keys.admin);

    expect(response.status).toBe(404);
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule.dateUpdated).toBe(schedule.dateUpdated);
  });

  it.each(actions)('%s answers 403 for a readonly key, and the schedule stays as it was', async (name, body) => {
    const { schedule } = await scheduleIn('pending-approval');

    const response = await action(schedule.id, name, body, org.keys.readonly);

    expect(response.status).toBe(403);
    expect((await ok('GET', `/ramp-schedules/${schedule.id}`)).rampSchedule.dateUpdated).toBe(schedule.dateUpdated);
  });

  it.each(actions.filter(([name]) => name !== 'approve-step'))(
    "%s answers 403 to a member without write on the feature's project",
    async (name, body) => {
      const token = await memberToken('readonly', [{ project: 'prj_app', role: 'engineer' }]);
      const { schedule } = await readySchedule({ steps: approvalFirst }, await feature({ project: 'prj_web' }));

      const response = await action(schedule.id, name, body, token);

      expect(response.status).toBe(403);
    },
  );
});
