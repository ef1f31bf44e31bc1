import * as contract from '../../shared/contracts/experiment-status';
import { newId } from '../../shared/ids';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
});
afterAll(() => api.close());

let counter = 0;
const variations = [
  { key: '0', name: 'Control' },
  { key: '1', name: 'Treatment' },
];
const request = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });

async function newExperiment(fields: Record<string, unknown> = {}, testOrg = org) {
  const response = await api.request('POST', '/api/v1/experiments', {
    key: testOrg.keys.admin,
    body: { trackingKey: `status-${Date.now()}-${++counter}`, name: `Experiment ${counter}`, variations, ...fields },
  });
  expect(response.status).toBe(200);
  return response.body.experiment;
}
const start = (id: string, body: unknown = { skipChecklist: true }, key = org.keys.admin) => request('POST', `/experiments/${id}/start`, body, key);
const stop = (id: string, body: unknown, key = org.keys.admin) => request('POST', `/experiments/${id}/stop`, body, key);
const schedule = (id: string, body: unknown, key = org.keys.admin) => request('PUT', `/experiments/${id}/schedule`, body, key);
const get = async (id: string, testOrg = org) => (await request('GET', `/experiments/${id}`, undefined, testOrg.keys.admin)).body.experiment;
const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

describe('POST /experiments/{id}/start', () => {
  it('starts a draft: running, its phase starting now, and GET agrees', async () => {
    const draft = await newExperiment({ phases: [{ name: 'Main', dateStarted: '2020-01-01T00:00:00Z' }] });

    const response = await start(draft.id);

    expect(response.status).toBe(200);
    expectShape(contract.postExperimentStart, response.body);
    const { experiment } = response.body;
    expect(experiment).toMatchObject({ status: 'running', enhancedStatus: { status: 'Running' } });
    expect(experiment.phases).toHaveLength(1);
    expect(experiment.phases[0].dateStarted > '2020-01-01T00:00:00.000Z').toBe(true);
    expect(experiment.phases[0].dateEnded).toBe('');
    expect(await get(draft.id)).toMatchObject({ status: 'running', phases: experiment.phases });
  });

  it('refuses with 409 and the incomplete checklist items when nothing is linked and no SDK connection exists, changing nothing', async () => {
    const fresh = await createTestOrg('Checklist org');
    const draft = await newExperiment({}, fresh);

    const response = await request('POST', `/experiments/${draft.id}/start`, {}, fresh.keys.admin);

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'checklist_incomplete', message: expect.stringMatching(/linkedChanges, sdkConnection/) });
    expect(response.body.details.remainingChecklistItems.map((item: { key: string }) => item.key)).toEqual(['linkedChanges', 'sdkConnection']);
    expect(await get(draft.id, fresh)).toMatchObject({ status: 'draft', dateUpdated: draft.dateUpdated, phases: draft.phases });
  });

  it('starts without skipChecklist once a feature references the experiment and an SDK connection exists', async () => {
    const fresh = await createTestOrg('Linked org');
    const draft = await newExperiment({}, fresh);
    const ok = async (method: string, path: string, body: unknown) => {
      const response = await request(method, path, body, fresh.keys.admin);
      expect(response.status).toBe(200);
      return response.body;
    };
    await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' });
    const [v0, v1] = draft.variations.map((v: { variationId: string }) => v.variationId);
    await ok('POST', '/features', {
      id: `linked-${counter}`,
      valueType: 'string',
      defaultValue: 'none',
      environments: { production: { enabled: true, rules: [{ type: 'experiment-ref', experimentId: draft.id, variations: [{ variationId: v0, value: 'a' }, { variationId: v1, value: 'b' }] }] } },
    });

    const response = await request('POST', `/experiments/${draft.id}/start`, {}, fresh.keys.admin);

    expect(response.status).toBe(200);
    expect(response.body.experiment.status).toBe('running');
  });

  it('answers 409 invalid_status for an experiment that is not a draft', async () => {
    const running = await newExperiment({ status: 'running' });

    const response = await start(running.id);

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });

  it('stages a scheduled start instead of starting, with a message, and refuses to stage it twice', async () => {
    const startAt = inAWeek();
    const draft = await newExperiment({ statusUpdateSchedule: { startAt } });

    const first = await start(draft.id);
    const second = await start(draft.id);

    expect(first.status).toBe(200);
    expect(first.body.message).toMatch(/staged to start on .* UTC$/);
    expect(first.body.experiment).toMatchObject({ status: 'draft', nextScheduledStatusUpdate: { type: 'start', date: new Date(startAt).toISOString() } });
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/already staged/);
  });

  it.each([
    ['an unknown field', { skipChecklist: true, force: true }, /force/],
    ['a skipChecklist that is not a boolean', { skipChecklist: 'yes' }, /\[skipChecklist\]/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const draft = await newExperiment();

    const response = await start(draft.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(draft.id)).status).toBe('draft');
  });
});

describe('POST /experiments/{id}/stop', () => {
  it('stops a running experiment with its results, ending the latest phase with the reason', async () => {
    const running = await newExperiment({ status: 'running' });
    const winner = running.variations[1].variationId;

    const response = await stop(running.id, { results: 'won', winnerVariationId: winner, reason: 'Clear win', analysis: 'Blue converts better' });

    expect(response.status).toBe(200);
    expectShape(contract.postExperimentStop, response.body);
    const { experiment } = response.body;
    expect(experiment).toMatchObject({
      status: 'stopped',
      enhancedStatus: { status: 'Stopped' },
      resultSummary: { status: 'won', winner, conclusions: 'Blue converts better', releasedVariationId: '', excludeFromPayload: true },
    });
    expect(experiment.phases.at(-1)).toMatchObject({ reasonForStopping: 'Clear win', dateEnded: expect.stringMatching(/^\d{4}-/) });
  });

  it('keeps serving the released variation to everyone with a temporary rollout, ending at the given date', async () => {
    const running = await newExperiment({ status: 'running', phases: [{ name: 'Main', dateStarted: '2024-01-01T00:00:00Z', coverage: 0.5 }] });
    const released = running.variations[1].variationId;

    const response = await stop(running.id, { results: 'won', winnerVariationId: released, enableTemporaryRollout: true, dateEnded: '2024-02-01T00:00:00Z' });

    expect(response.status).toBe(200);
    expect(response.body.experiment.resultSummary).toMatchObject({ releasedVariationId: released, excludeFromPayload: false });
    expect(response.body.experiment.phases[0]).toMatchObject({ coverage: 1, dateEnded: '2024-02-01T00:00:00.000Z' });
  });

  it('changes the results of an experiment that is already stopped', async () => {
    const running = await newExperiment({ status: 'running' });
    await stop(running.id, { results: 'inconclusive' });

    const response = await stop(running.id, { results: 'lost' });

    expect(response.status).toBe(200);
    expect(response.body.experiment).toMatchObject({ status: 'stopped', resultSummary: { status: 'lost' } });
  });

  it('answers 409 invalid_status for a draft', async () => {
    const draft = await newExperiment();

    const response = await stop(draft.id, { results: 'dnf' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_status');
  });

  it.each([
    ['no results', {}, /\[results\]/],
    ['results won without a winner', { results: 'won' }, /\[winnerVariationId\] is required/],
    ['a winner that is not a variation', { results: 'won', winnerVariationId: 'var_nope' }, /\[winnerVariationId\]/],
    ['a released variation that is not a variation', { results: 'lost', enableTemporaryRollout: true, releasedVariationId: 'var_nope' }, /\[releasedVariationId\]/],
    ['a dateEnded that is not a date', { results: 'dnf', dateEnded: 'yesterday' }, /\[dateEnded\]/],
    ['an unknown field', { results: 'dnf', winner: 1 }, /winner/],
  ])('answers 400 for %s and leaves the experiment running', async (_case, body, message) => {
    const running = await newExperiment({ status: 'running' });

    const response = await stop(running.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(running.id)).status).toBe('running');
  });
});

describe('starting and stopping change the SDK payload', () => {
  it('serves the experiment once started, and the released value once stopped with a temporary rollout, with a newer date each time', async () => {
    const fresh = await createTestOrg('Payload org');
    const ok = async (method: string, path: string, body?: unknown) => {
      const response = await request(method, path, body, fresh.keys.admin);
      expect(response.status).toBe(200);
      return response.body;
    };
    const draft = await newExperiment({}, fresh);
    const [v0, v1] = draft.variations.map((v: { variationId: string }) => v.variationId);
    const clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
    await ok('POST', '/features', {
      id: 'checkout-colour',
      valueType: 'string',
      defaultValue: 'grey',
      environments: { production: { enabled: true, rules: [{ type: 'experiment-ref', experimentId: draft.id, variations: [{ variationId: v0, value: 'red' }, { variationId: v1, value: 'blue' }] }] } },
    });
    const payload = async () => (await api.request('GET', `/api/features/${clientKey}`)).body;

    const before = await payload();
    await ok('POST', `/experiments/${draft.id}/start`, {});
    const started = await payload();
    await ok('POST', `/experiments/${draft.id}/stop`, { results: 'won', winnerVariationId: v1, enableTemporaryRollout: true });
    const stopped = await payload();

    expect(before.features['checkout-colour'].rules ?? []).toEqual([]);
    expect(started.features['checkout-colour'].rules).toEqual([expect.objectContaining({ key: draft.trackingKey, variations: ['red', 'blue'] })]);
    expect(stopped.features['checkout-colour'].rules).toEqual([expect.objectContaining({ force: 'blue' })]);
    expect(started.dateUpdated > before.dateUpdated).toBe(true);
    expect(stopped.dateUpdated > started.dateUpdated).toBe(true);
  });
});

describe('PUT /experiments/{id}/schedule', () => {
  it('sets a start for a draft, which then shows as Scheduled', async () => {
    const draft = await newExperiment();
    const startAt = inAWeek();

    const response = await schedule(draft.id, { startAt });

    expect(response.status).toBe(200);
    expectShape(contract.putExperimentSchedule, response.body);
    expect(response.body.experiment).toMatchObject({ statusUpdateSchedule: { startAt: new Date(startAt).toISOString() }, enhancedStatus: { status: 'Scheduled' } });
  });

  it('replaces the whole schedule: an empty body clears the start and its staging', async () => {
    const draft = await newExperiment({ statusUpdateSchedule: { startAt: inAWeek() } });
    await start(draft.id);

    const response = await schedule(draft.id, {});

    expect(response.status).toBe(200);
    expect(response.body.experiment).not.toHaveProperty('statusUpdateSchedule');
    expect(response.body.experiment).not.toHaveProperty('nextScheduledStatusUpdate');
    expect(response.body.experiment.enhancedStatus).toEqual({ status: 'Draft' });
  });

  it('resets a staged start even when the start is unchanged, as GrowthBook does, and so does setting it by update', async () => {
    const startAt = inAWeek();
    const [viaSchedule, viaUpdate] = await Promise.all([newExperiment({ statusUpdateSchedule: { startAt } }), newExperiment({ statusUpdateSchedule: { startAt } })]);
    await Promise.all([start(viaSchedule.id), start(viaUpdate.id)]);

    const rescheduled = await schedule(viaSchedule.id, { startAt });
    const updated = await request('POST', `/experiments/${viaUpdate.id}`, { statusUpdateSchedule: { startAt } });
    const restaged = await start(viaSchedule.id);

    expect(rescheduled.status).toBe(200);
    expect(rescheduled.body.experiment).not.toHaveProperty('nextScheduledStatusUpdate');
    expect(updated.status).toBe(200);
    expect(updated.body.experiment).not.toHaveProperty('nextScheduledStatusUpdate');
    expect(restaged.body.experiment.nextScheduledStatusUpdate).toEqual({ type: 'start', date: new Date(startAt).toISOString() });
  });

  it.each([
    ['a start in the past', { startAt: '2020-01-01T00:00:00Z' }, /\[startAt\] must be in the future/],
    ['a start that is not a date', { startAt: 'soon' }, /\[startAt\]/],
    ['a scheduled stop, which is not supported', { stopAt: '2999-01-01T00:00:00Z' }, /\[stopAt\] scheduled stops are not supported/],
    ['an unknown field', { startAt: null, when: 'now' }, /when/],
  ])('answers 400 for %s and keeps the schedule', async (_case, body, message) => {
    const startAt = inAWeek();
    const draft = await newExperiment({ statusUpdateSchedule: { startAt } });

    const response = await schedule(draft.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await get(draft.id)).statusUpdateSchedule).toEqual({ startAt });
  });

  it('answers 400 for a start on a running experiment and 409 for a stopped one', async () => {
    const running = await newExperiment({ status: 'running' });
    const stopped = await newExperiment({ status: 'running' });
    await stop(stopped.id, { results: 'dnf' });

    const onRunning = await schedule(running.id, { startAt: inAWeek() });
    const onStopped = await schedule(stopped.id, {});

    expect(onRunning.status).toBe(400);
    expect(onStopped.status).toBe(409);
    expect(onStopped.body.code).toBe('invalid_status');
  });
});

describe('permissions and organizations', () => {
  it.each([
    ['start', (id: string, key: string) => start(id, { skipChecklist: true }, key)],
    ['stop', (id: string, key: string) => stop(id, { results: 'dnf' }, key)],
    ['schedule', (id: string, key: string) => schedule(id, {}, key)],
  ])('%s answers 403 to a readonly key', async (_action, act) => {
    const experiment = await newExperiment({ status: 'running' });

    const response = await act(experiment.id, org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it("refuses a member who may write only in another project with 403, and lets them act in their own", async () => {
    const [mine, theirs] = await Promise.all(
      ['Mine', 'Theirs'].map(async (name) => (await projects.create(org.orgId, { id: newId('prj_'), name })).id),
    );
    const member = await addMember(org.orgId, {
      name: 'Project engineer',
      email: `eng-${newId('')}@example.com`,
      role: 'readonly',
      projectRoles: [{ project: mine, role: 'engineer', limitAccessByEnvironment: false, environments: [] }],
    });
    const { secret } = await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'token' });
    const [inMine, inTheirs] = await Promise.all([newExperiment({ project: mine }), newExperiment({ project: theirs })]);

    expect((await start(inTheirs.id, { skipChecklist: true }, secret)).status).toBe(403);
    expect((await start(inMine.id, { skipChecklist: true }, secret)).status).toBe(200);
  });

  it.each([
    ['start', (id: string) => start(id)],
    ['stop', (id: string) => stop(id, { results: 'dnf' })],
    ['schedule', (id: string) => schedule(id, {})],
  ])("%s answers 404 for an unknown id and for another organization's experiment, leaving it unchanged", async (_action, act) => {
    const theirs = await newExperiment({ status: 'running' }, other);

    const unknown = await act('exp_missing');
    const foreign = await act(theirs.id);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(await get(theirs.id, other)).toMatchObject({ status: 'running', dateUpdated: theirs.dateUpdated });
  });
});

describe('GET /experiment-names', () => {
  it("lists the id and name of the organization's experiments that are not archived, filtered by project", async () => {
    const fresh = await createTestOrg('Names org');
    const project = (await projects.create(fresh.orgId, { id: newId('prj_'), name: 'Web' })).id;
    const a = await newExperiment({ name: 'Alpha' }, fresh);
    const b = await newExperiment({ name: 'Beta', project }, fresh);
    await newExperiment({ name: 'Archived', archived: true }, fresh);
    await newExperiment({ name: 'Elsewhere' }, other);

    const all = await request('GET', '/experiment-names', undefined, fresh.keys.readonly);
    const inProject = await request('GET', `/experiment-names?projectId=${project}`, undefined, fresh.keys.readonly);

    expect(all.status).toBe(200);
    expectShape(contract.getExperimentNames, all.body);
    expect(all.body.experiments).toEqual([
      { id: a.id, name: 'Alpha' },
      { id: b.id, name: 'Beta' },
    ]);
    expect(inProject.body.experiments).toEqual([{ id: b.id, name: 'Beta' }]);
  });

  it('answers 400 for an unknown query parameter and 403 without the read permission', async () => {
    const typo = await request('GET', '/experiment-names?projectID=prj_x');
    const noAccess = await request('GET', '/experiment-names', undefined, org.keys.noaccess);

    expect(typo.status).toBe(400);
    expect(typo.body.message).toMatch(/projectID/);
    expect(noAccess.status).toBe(403);
  });
});
