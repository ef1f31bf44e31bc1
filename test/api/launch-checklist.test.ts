import * as contract from '../../shared/contracts/experiment-launch';
import { runAdmin } from '../../scripts/admin';
import { experiments } from '../../shared/store/experiments';
import { readLaunchState } from '../../shared/store/launch-checklists';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

/**
 * The launch checklist the admin CLI configures (GrowthBook configures it in its UI): its manual tasks
 * are required items of GET …/start-checklist and POST …/start, and POST …/start-checklist/manual/complete
 * marks them complete on the experiment.
 */
let api: Api;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  other = await createTestOrg('Other launch org');
});
afterAll(() => api.close());

const validItem = referenceSchemaValidator('checklistItems', 'growthbook-5.0.1-openapi.yaml');
/** The 5.0.1 checklist answer: `checklistItems` of its schema and a status, nothing else. */
function expectReferenceChecklist(body: { checklistItems: unknown[]; status: string }) {
  expect(Object.keys(body).sort()).toEqual(['checklistItems', 'status']);
  for (const item of body.checklistItems) expect(validItem(item) ? [] : validItem.errors).toEqual([]);
}

let counter = 0;
const complete = (id: string) => `/api/v1/experiments/${id}/start-checklist/manual/complete`;
const checklist = (id: string) => `/api/v1/experiments/${id}/start-checklist`;
const keyed = (items: { key: string; status: string }[]) => Object.fromEntries(items.map((i) => [i.key, i.status]));

/** An organization whose drafts pass every automatic item (a phase, an SDK connection, a linked feature with every value). */
async function readyOrg(name: string): Promise<TestOrg> {
  const org = await createTestOrg(name);
  await requestOk(api, org.keys.admin, 'POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' });
  return org;
}

/** A draft of `org` (in `project` when given) whose automatic checklist items are all complete. */
async function readyDraft(org: TestOrg, project?: string) {
  const draft = (
    await requestOk(api, org.keys.admin, 'POST', '/experiments', {
      trackingKey: `checklist-${Date.now()}-${++counter}`,
      name: `Checklist ${counter}`,
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Treatment' },
      ],
      phases: [{ name: 'Main', dateStarted: '2024-01-01T00:00:00Z' }],
      ...(project ? { project } : {}),
    })
  ).experiment;
  const values = draft.variations.map((v: { variationId: string }, i: number) => ({ variationId: v.variationId, value: String(i) }));
  await requestOk(api, org.keys.admin, 'POST', '/features', {
    id: `checklist-flag-${counter}`,
    valueType: 'string',
    defaultValue: 'none',
    ...(project ? { project } : {}),
    environments: { production: { enabled: true, rules: [{ type: 'experiment-ref', experimentId: draft.id, variations: values }] } },
  });
  return draft;
}

const send = (org: TestOrg, path: string, body?: unknown, key = org.keys.admin) => api.request(body === undefined ? 'GET' : 'POST', path, { key, body });

describe('a configured manual task', () => {
  it('is a required, incomplete manual item that blocks POST /start, until manual/complete marks it and the start goes through', async () => {
    const org = await readyOrg('Manual task org');
    await runAdmin(['launch-checklist', 'set', '--org', org.orgId, '--manual', 'QA complete', '--url', 'https://example.com/qa']);
    const draft = await readyDraft(org);

    const before = await send(org, checklist(draft.id), undefined, org.keys.readonly);
    const refused = await send(org, `/api/v1/experiments/${draft.id}/start`, {});
    const marked = await send(org, complete(draft.id), { keys: ['QA complete'] });
    const after = await send(org, checklist(draft.id));
    const started = await send(org, `/api/v1/experiments/${draft.id}/start`, {});

    expect(before.status).toBe(200);
    expectReferenceChecklist(before.body);
    expect(before.body.status).toBe('notReady');
    expect(before.body.checklistItems).toContainEqual({
      key: 'QA complete',
      required: true,
      status: 'incomplete',
      manual: true,
      reason: 'Required custom launch checklist item is incomplete: QA complete',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('checklist_incomplete');
    expect(refused.body.message).toContain('QA complete');
    expect(refused.body.details.remainingChecklistItems.map((i: { key: string }) => i.key)).toEqual(['QA complete']);
    expect(marked.status).toBe(200);
    expectShape(contract.postExperimentStartChecklistManualComplete, marked.body);
    expectReferenceChecklist(marked.body);
    expect(marked.body).toMatchObject({ status: 'ready' });
    expect(keyed(marked.body.checklistItems)).toEqual({ linkedChanges: 'complete', targeting: 'complete', sdkConnection: 'complete', 'QA complete': 'complete' });
    expect(after.body).toEqual(marked.body);
    expect(started.status).toBe(200);
    expect(started.body.experiment.status).toBe('running');
  });

  it('is completed per experiment, once however often it is sent, and moves the experiment to a new version', async () => {
    const org = await readyOrg('Per experiment org');
    await runAdmin(['launch-checklist', 'set', '--org', org.orgId, '--manual', 'Design review', '--manual', 'Legal']);
    const [first, second] = [await readyDraft(org), await readyDraft(org)];

    await requestOk(api, org.keys.admin, 'POST', complete(first.id).slice('/api/v1'.length), { keys: ['Legal'] });
    const again = await send(org, complete(first.id), { keys: ['Legal', 'Legal'] });
    const untouched = await send(org, checklist(second.id));
    const firstNow = (await requestOk(api, org.keys.admin, 'GET', `/experiments/${first.id}`)).experiment;

    expect(again.status).toBe(200);
    expect(keyed(again.body.checklistItems)).toMatchObject({ 'Design review': 'incomplete', Legal: 'complete' });
    expect(again.body.status).toBe('notReady');
    expect((await readLaunchState(org.orgId, firstNow)).completedTasks).toEqual(['Legal']);
    expect(keyed(untouched.body.checklistItems)).toMatchObject({ 'Design review': 'incomplete', Legal: 'incomplete' });
    expect(firstNow.dateUpdated > first.dateUpdated).toBe(true);
    expect(Object.keys(firstNow)).not.toContain('completedTasks');
  });

  it('keeps every task of completions sent at the same time (each write is conditional on the version it read)', async () => {
    const org = await readyOrg('Racing org');
    const tasks = ['Design', 'Legal', 'Security', 'Support'];
    await runAdmin(['launch-checklist', 'set', '--org', org.orgId, ...tasks.flatMap((task) => ['--manual', task])]);
    const draft = await readyDraft(org);

    const responses = await Promise.all(tasks.map((task) => send(org, complete(draft.id), { keys: [task] })));
    const after = await send(org, checklist(draft.id));

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await readLaunchState(org.orgId, draft)).completedTasks.sort()).toEqual(tasks);
    expect(after.body.status).toBe('ready');
  });

  it("comes from the experiment's project when the project has a checklist, else (or once it is deleted) from the organization's", async () => {
    const org = await readyOrg('Project checklist org');
    const project = (await requestOk(api, org.keys.admin, 'POST', '/projects', { name: `Checkout ${counter}` })).project;
    const bare = (await requestOk(api, org.keys.admin, 'POST', '/projects', { name: `Bare ${counter}` })).project;
    await runAdmin(['launch-checklist', 'set', '--org', org.orgId, '--manual', 'Org sign-off']);
    await runAdmin(['launch-checklist', 'set', '--org', org.orgId, '--project', project.id, '--manual', 'Checkout QA']);
    const [inProject, inBare, outside] = [await readyDraft(org, project.id), await readyDraft(org, bare.id), await readyDraft(org)];

    const projectItems = (await send(org, checklist(inProject.id))).body.checklistItems;
    const bareItems = (await send(org, checklist(inBare.id))).body.checklistItems;
    const outsideItems = (await send(org, checklist(outside.id))).body.checklistItems;
    const orgTaskOnProject = await send(org, complete(inProject.id), { keys: ['Org sign-off'] });
    await runAdmin(['launch-checklist', 'delete', '--org', org.orgId, '--project', project.id]);
    const afterDelete = (await send(org, checklist(inProject.id))).body.checklistItems;

    const manual = (items: { key: string; manual: boolean }[]) => items.filter((i) => i.manual).map((i) => i.key);
    expect(manual(projectItems)).toEqual(['Checkout QA']);
    expect(manual(bareItems)).toEqual(['Org sign-off']);
    expect(manual(outsideItems)).toEqual(['Org sign-off']);
    expect(orgTaskOnProject.status).toBe(400);
    expect(orgTaskOnProject.body.message).toBe('invalid_checklist_keys: Org sign-off are not manual checklist items');
    expect(manual(afterDelete)).toEqual(['Org sign-off']);
  });
});

describe('POST /experiments/{id}/start-checklist/manual/complete', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await readyOrg('Refusals org');
    await runAdmin(['launch-checklist', 'set', '--org', org.orgId, '--manual', 'QA complete']);
  });

  /** What a refusal must leave as it was: the experiment and its completed tasks. */
  async function storedState(id: string) {
    const experiment = (await requestOk(api, org.keys.admin, 'GET', `/experiments/${id}`)).experiment;
    return { experiment, completed: (await readLaunchState(org.orgId, experiment)).completedTasks };
  }

  it.each([
    ['an automatic item', ['sdkConnection', 'targeting'], 'invalid_checklist_keys: sdkConnection, targeting are not manual checklist items'],
    ['a task no checklist defines', ['QA complete', 'Security review'], 'invalid_checklist_keys: Security review are not manual checklist items'],
  ])('answers 400 with GrowthBook message for %s, storing nothing', async (_case, keys, message) => {
    const draft = await readyDraft(org);
    const before = await storedState(draft.id);

    const response = await send(org, complete(draft.id), { keys });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(message);
    expect(await storedState(draft.id)).toEqual(before);
    expect(before.completed).toEqual([]);
  });

  it.each([
    ['no body', undefined, /keys/],
    ['an empty list of keys', { keys: [] }, /\[keys\]/],
    ['keys that are not strings', { keys: [1] }, /\[keys/],
    ['an empty key', { keys: [''] }, /\[keys/],
    ['an unknown field', { keys: ['QA complete'], done: true }, /done/],
  ])('answers 400 naming the problem for %s, storing nothing', async (_case, body, message) => {
    const draft = await readyDraft(org);
    const before = await storedState(draft.id);

    const response = await api.request('POST', complete(draft.id), { key: org.keys.admin, body });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await storedState(draft.id)).toEqual(before);
  });

  it("answers 404 for another organization's experiment and for an unknown one, storing nothing", async () => {
    await runAdmin(['launch-checklist', 'set', '--org', other.orgId, '--manual', 'QA complete']);
    const theirs = (
      await requestOk(api, other.keys.admin, 'POST', '/experiments', { trackingKey: `theirs-${++counter}`, name: 'Theirs', variations: [{ key: '0', name: 'A' }, { key: '1', name: 'B' }] })
    ).experiment;

    const foreign = await send(org, complete(theirs.id), { keys: ['QA complete'] });
    const unknown = await send(org, complete('exp_missing'), { keys: ['QA complete'] });

    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toContain(theirs.id);
    expect(unknown.status).toBe(404);
    expect((await readLaunchState(other.orgId, theirs)).completedTasks).toEqual([]);
  });

  it('answers 403 for a read-only key, storing nothing', async () => {
    const draft = await readyDraft(org);
    const before = await storedState(draft.id);

    const response = await send(org, complete(draft.id), { keys: ['QA complete'] }, org.keys.readonly);

    expect(response.status).toBe(403);
    expect(await storedState(draft.id)).toEqual(before);
  });

  it('refuses a holdout with 400', async () => {
    const draft = await readyDraft(org);
    await experiments.update(org.orgId, draft.id, (experiment) => ({ ...experiment, type: 'holdout' as const }));

    const response = await send(org, complete(draft.id), { keys: ['QA complete'] });

    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Holdouts are not supported via this API');
  });
});
