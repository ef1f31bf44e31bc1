import * as contract from '../../shared/contracts/experiment-launch';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Launch org'), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const validItem = referenceSchemaValidator('checklistItems', 'growthbook-5.0.1-openapi.yaml');
const validExperiment = referenceSchemaValidator('ExperimentWithEnhancedStatus', 'growthbook-5.0.1-openapi.yaml');
/** The 5.0.1 checklist answer: `checklistItems` of its schema and a status, nothing else. */
function expectReferenceChecklist(body: { checklistItems: unknown[]; status: string }) {
  expect(Object.keys(body).sort()).toEqual(['checklistItems', 'status']);
  expect(['ready', 'notReady']).toContain(body.status);
  for (const item of body.checklistItems) expect(validItem(item) ? [] : validItem.errors).toEqual([]);
}

let counter = 0;
const variations = [
  { key: '0', name: 'Control' },
  { key: '1', name: 'Treatment' },
];
const request = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });
async function newExperiment(testOrg: TestOrg, fields: Record<string, unknown> = {}) {
  const body = { trackingKey: `launch-${Date.now()}-${++counter}`, name: `Experiment ${counter}`, variations, ...fields };
  return (await requestOk(api, testOrg.keys.admin, 'POST', '/experiments', body)).experiment;
}
/** An experiment without the display status some answers add, so answers of different endpoints compare. */
const stored = ({ enhancedStatus: _status, ...experiment }: Record<string, unknown>) => experiment;
const getExperiment = async (id: string, testOrg = org) => stored((await requestOk(api, testOrg.keys.admin, 'GET', `/experiments/${id}`)).experiment);
const keyed = (items: { key: string; status: string }[]) => Object.fromEntries(items.map((i) => [i.key, i.status]));

describe('GET /experiments/{id}/start-checklist', () => {
  it('lists every required item as incomplete for a bare draft in an organization without SDK connections', async () => {
    const fresh = await createTestOrg('Bare org');
    const draft = await newExperiment(fresh, { phases: [] });

    const response = await request('GET', `/experiments/${draft.id}/start-checklist`, undefined, fresh.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.getExperimentStartChecklist, response.body);
    expectReferenceChecklist(response.body);
    expect(response.body.status).toBe('notReady');
    expect(response.body.checklistItems).toEqual([
      expect.objectContaining({ key: 'linkedChanges', required: true, status: 'incomplete', manual: false }),
      expect.objectContaining({ key: 'targeting', required: true, status: 'incomplete', manual: false }),
      expect.objectContaining({ key: 'sdkConnection', required: true, status: 'incomplete', manual: false }),
    ]);
  });

  it('names a linked feature missing a variation value, and turns ready once every value is set; POST /start agrees each time', async () => {
    const fresh = await createTestOrg('Linked org');
    const draft = await newExperiment(fresh, { phases: [{ name: 'Main', dateStarted: '2024-01-01T00:00:00Z' }] });
    const [v0, v1] = draft.variations.map((v: { variationId: string }) => v.variationId);
    await requestOk(api, fresh.keys.admin, 'POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' });
    const featureId = `half-linked-${counter}`;
    const rule = (values: { variationId: string; value: string }[]) => ({
      environments: { production: { enabled: true, rules: [{ type: 'experiment-ref', experimentId: draft.id, variations: values }] } },
    });
    await requestOk(api, fresh.keys.admin, 'POST', '/features', { id: featureId, valueType: 'string', defaultValue: 'none', ...rule([{ variationId: v0, value: 'a' }]) });

    const halfway = await request('GET', `/experiments/${draft.id}/start-checklist`, undefined, fresh.keys.admin);
    const refused = await request('POST', `/experiments/${draft.id}/start`, {}, fresh.keys.admin);
    await requestOk(api, fresh.keys.admin, 'POST', `/features/${featureId}`, rule([{ variationId: v0, value: 'a' }, { variationId: v1, value: 'b' }]));
    const complete = await request('GET', `/experiments/${draft.id}/start-checklist`, undefined, fresh.keys.admin);

    expect(halfway.status).toBe(200);
    expectReferenceChecklist(halfway.body);
    expect(halfway.body.status).toBe('notReady');
    expect(keyed(halfway.body.checklistItems)).toEqual({
      linkedChanges: 'complete',
      targeting: 'complete',
      sdkConnection: 'complete',
      [`missingVariationValues:${featureId}`]: 'incomplete',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`missingVariationValues:${featureId}`);
    expect(complete.status).toBe(200);
    expectReferenceChecklist(complete.body);
    expect(complete.body).toMatchObject({ status: 'ready' });
    expect(keyed(complete.body.checklistItems)).toEqual({ linkedChanges: 'complete', targeting: 'complete', sdkConnection: 'complete' });
    expect((await request('POST', `/experiments/${draft.id}/start`, {}, fresh.keys.admin)).status).toBe(200);
  });

  it('adds the goal metric item for a bandit', async () => {
    const bandit = await newExperiment(org, { type: 'multi-armed-bandit' });

    const response = await request('GET', `/experiments/${bandit.id}/start-checklist`);

    expect(response.status).toBe(200);
    expectReferenceChecklist(response.body);
    expect(response.body.checklistItems).toContainEqual(
      expect.objectContaining({ key: 'banditGoalMetric', status: 'incomplete', reason: 'Bandits require a goal metric before starting.' }),
    );
    expect(response.body.checklistItems[0].reason).toMatch(/live linked change/);
  });

  it("answers 404 for an unknown experiment and for another organization's", async () => {
    const theirs = await newExperiment(other);

    const unknown = await request('GET', '/experiments/exp_missing/start-checklist');
    const foreign = await request('GET', `/experiments/${theirs.id}/start-checklist`);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toContain(theirs.id);
  });
});

describe('POST /experiments/{id}/modify-temporary-rollout', () => {
  async function stopped() {
    const running = await newExperiment(org, { status: 'running', phases: [{ name: 'Main', dateStarted: '2024-01-01T00:00:00Z', coverage: 0.5 }] });
    return (await requestOk(api, org.keys.admin, 'POST', `/experiments/${running.id}/stop`, { results: 'dnf' })).experiment;
  }
  const modify = (id: string, body: unknown, key = org.keys.admin) => request('POST', `/experiments/${id}/modify-temporary-rollout`, body, key);

  it('turns the rollout on (released variation, full coverage, back in the payload) and off again', async () => {
    const experiment = await stopped();
    const treatment = experiment.variations[1].variationId;

    const on = await modify(experiment.id, { enableTemporaryRollout: true, releasedVariationId: treatment });
    const off = await modify(experiment.id, { enableTemporaryRollout: false });

    expect(on.status).toBe(200);
    expectShape(contract.postExperimentModifyTemporaryRollout, on.body);
    expect(validExperiment(on.body.experiment) ? [] : validExperiment.errors).toEqual([]);
    expect(on.body.experiment.resultSummary).toMatchObject({ releasedVariationId: treatment, excludeFromPayload: false });
    expect(on.body.experiment.phases[0].coverage).toBe(1);
    expect(on.body.experiment.enhancedStatus).toEqual({ status: 'Stopped' });
    expect(off.status).toBe(200);
    expect(validExperiment(off.body.experiment) ? [] : validExperiment.errors).toEqual([]);
    // Off leaves the released variation and coverage as they were, as GrowthBook does.
    expect(off.body.experiment.resultSummary).toMatchObject({ releasedVariationId: treatment, excludeFromPayload: true });
    expect(await getExperiment(experiment.id)).toEqual(stored(off.body.experiment));
  });

  it.each([
    ['no body', undefined, /enableTemporaryRollout/],
    ['enableTemporaryRollout that is not a boolean', { enableTemporaryRollout: 'yes' }, /\[enableTemporaryRollout\]/],
    ['an unknown field', { enableTemporaryRollout: false, coverage: 1 }, /coverage/],
    ['enabling without a released variation', { enableTemporaryRollout: true }, /\[releasedVariationId\] is required/],
    ['a variation of another experiment', { enableTemporaryRollout: true, releasedVariationId: 'var_elsewhere' }, /no variation of this experiment has the id var_elsewhere/],
  ])('answers 400 naming the problem for %s, changing nothing', async (_case, body, message) => {
    const experiment = await stopped();

    const response = await modify(experiment.id, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await getExperiment(experiment.id)).toEqual(stored(experiment));
  });

  it.each(['draft', 'running'])('answers 409 invalid_status for a %s experiment, changing nothing', async (status) => {
    const experiment = await newExperiment(org, { status, phases: [{ name: 'Main', dateStarted: '2024-01-01T00:00:00Z' }] });

    const response = await modify(experiment.id, { enableTemporaryRollout: true, releasedVariationId: experiment.variations[0].variationId });

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'invalid_status', message: 'Can only modify temporary rollout for stopped experiments' });
    expect(await getExperiment(experiment.id)).toEqual(stored(experiment));
  });

  it("answers 403 for a key that may not run experiments and 404 for another organization's", async () => {
    const experiment = await stopped();
    const theirs = await newExperiment(other, { status: 'stopped' });

    const readonly = await modify(experiment.id, { enableTemporaryRollout: false }, org.keys.readonly);
    const foreign = await modify(theirs.id, { enableTemporaryRollout: false });

    expect(readonly.status).toBe(403);
    expect(foreign.status).toBe(404);
    expect(await getExperiment(experiment.id)).toEqual(stored(experiment));
    expect(await getExperiment(theirs.id, other)).toEqual(stored(theirs));
  });
});
