import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceResponseValidator } from '../support/reference';
import * as contract from '../../shared/contracts/feature-revisions-v1';

let api: Api;
let org: TestOrg;
let clientKey: string;

const v1 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.admin, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

const base = '/v1/features/{id}/revisions';
/** Validators of GrowthBook 5.0.1's documented answers of the v1 revision routes. */
const documented = {
  list: referenceResponseValidator('GET', base),
  create: referenceResponseValidator('POST', base),
  latest: referenceResponseValidator('GET', `${base}/latest`),
  get: referenceResponseValidator('GET', `${base}/{version}`),
  defaultValue: referenceResponseValidator('PUT', `${base}/{version}/default-value`),
  prerequisites: referenceResponseValidator('PUT', `${base}/{version}/prerequisites`),
  archive: referenceResponseValidator('PUT', `${base}/{version}/archive`),
  toggle: referenceResponseValidator('POST', `${base}/{version}/toggle`),
  deleteRule: referenceResponseValidator('DELETE', `${base}/{version}/rules/{ruleId}`),
  reorder: referenceResponseValidator('POST', `${base}/{version}/rules/reorder`),
  mergeStatus: referenceResponseValidator('GET', `${base}/{version}/merge-status`),
  rebase: referenceResponseValidator('POST', `${base}/{version}/rebase`),
  publish: referenceResponseValidator('POST', `${base}/{version}/publish`),
  discard: referenceResponseValidator('POST', `${base}/{version}/discard`),
  revert: referenceResponseValidator('POST', `${base}/{version}/revert`),
  metadata: referenceResponseValidator('PUT', `${base}/{version}/metadata`),
  holdout: referenceResponseValidator('PUT', `${base}/{version}/holdout`),
  addRule: referenceResponseValidator('POST', `${base}/{version}/rules`),
  putRule: referenceResponseValidator('PUT', `${base}/{version}/rules/{ruleId}`),
  putRamp: referenceResponseValidator('PUT', `${base}/{version}/rules/{ruleId}/ramp-schedule`),
  deleteRamp: referenceResponseValidator('DELETE', `${base}/{version}/rules/{ruleId}/ramp-schedule`),
  requestReview: referenceResponseValidator('POST', `${base}/{version}/request-review`),
  submitReview: referenceResponseValidator('POST', `${base}/{version}/submit-review`),
};

function expectDocumented(operation: keyof typeof documented, body: unknown) {
  const validate = documented[operation];
  if (!validate(body)) throw new Error(`${operation}: ${JSON.stringify(validate.errors, null, 2)}`);
}

async function sdkValue(id: string, attributes: Record<string, unknown> = { id: 'u1' }) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  return new GrowthBook({ attributes }).initSync({ payload }).getFeatureValue(id, 'none');
}

let counter = 0;
/** A live feature with two rules in production (vip, then beta) and one in dev. */
async function newFeature() {
  const id = `banner-v1-${++counter}`;
  await ok(
    v1('POST', '/features', {
      id,
      valueType: 'string',
      defaultValue: 'blue',
      environments: {
        production: {
          enabled: true,
          rules: [
            { id: 'fr_vip', type: 'force', value: 'gold', condition: '{"vip":true}' },
            { id: 'fr_beta', type: 'force', value: 'silver', condition: '{"beta":true}' },
          ],
        },
        dev: { enabled: true, rules: [{ id: 'fr_vip', type: 'force', value: 'gold', condition: '{"vip":true}' }] },
      },
    }),
  );
  return id;
}

const newDraft = async (id: string) => (await ok(v1('POST', `/features/${id}/revisions`, { comment: 'v1 draft', title: 'Draft' }))).revision;
const ruleIds = (revision: any, env: string) => revision.rules[env].map((rule: any) => rule.id);

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});

afterAll(async () => {
  await api.close();
});

describe('v1 drafts', () => {
  it('creates a draft in v1’s shape: rules per environment, authors as ids', async () => {
    const id = await newFeature();

    const response = await v1('POST', `/features/${id}/revisions`, { comment: 'v1 draft' });

    expect(response.status).toBe(200);
    expectDocumented('create', response.body);
    expectShape(contract.postFeatureRevision, response.body);
    expect(response.body.revision).toEqual(
      expect.objectContaining({ id: `frev_2_${id}`, featureId: id, version: 2, baseVersion: 1, status: 'draft', comment: 'v1 draft', defaultValue: 'blue' }),
    );
    expect(ruleIds(response.body.revision, 'production')).toEqual(['fr_vip', 'fr_beta']);
    expect(ruleIds(response.body.revision, 'dev')).toEqual(['fr_vip']);
    expect(typeof response.body.revision.createdBy).toBe('string');
  });

  it('reads the draft, the latest draft and the feature’s revisions in v1’s shape, and v2 reads the same revision', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const one = await ok(v1('GET', `/features/${id}/revisions/${draft.version}`));
    const latest = await ok(v1('GET', `/features/${id}/revisions/latest`));
    const list = await ok(v1('GET', `/features/${id}/revisions?limit=5`));
    const viaV2 = (await ok(v2('GET', `/features/${id}/revisions/${draft.version}`))).revision;

    expectDocumented('get', one);
    expectDocumented('latest', latest);
    expectDocumented('list', list);
    expect(latest.revision.version).toBe(draft.version);
    expect(list.revisions.map((revision: any) => [revision.version, revision.status])).toEqual([[2, 'draft'], [1, 'published']]);
    expect(list.total).toBe(2);
    // One revision, two views: the same values, v2's flat rules being v1's rules in their environments.
    const { revision } = one;
    expect(viaV2).toEqual(expect.objectContaining({ id: revision.id, version: revision.version, status: revision.status, defaultValue: revision.defaultValue }));
    expect(viaV2.environmentsEnabled).toEqual(revision.environmentsEnabled);
    expect(viaV2.definitions).toEqual(revision.definitions);
    for (const env of ['production', 'dev']) {
      const inEnv = viaV2.rules.filter((rule: any) => rule.allEnvironments || rule.environments.includes(env)).map((rule: any) => rule.id);
      expect(inEnv).toEqual(ruleIds(revision, env));
    }
  });

  it('edits a draft through the v1 routes without changing what the SDK sees, then publishes it', async () => {
    const parent = `parent-v1-${++counter}`;
    await ok(v1('POST', '/features', { id: parent, valueType: 'boolean', defaultValue: 'true', environments: { production: { enabled: true } } }));
    const id = await newFeature();
    const draft = await newDraft(id);
    const at = (path: string) => `/features/${id}/revisions/${draft.version}${path}`;

    const defaultValue = await v1('PUT', at('/default-value'), { defaultValue: 'green', skipHooks: true });
    const toggled = await v1('POST', at('/toggle'), { environment: 'dev', enabled: false });
    const required = await v1('PUT', at('/prerequisites'), { prerequisites: [{ id: parent, condition: '{"value": true}' }] });
    const reordered = await v1('POST', at('/rules/reorder'), { environment: 'production', ruleIds: ['fr_beta', 'fr_vip'] });
    const deleted = await v1('DELETE', at('/rules/fr_vip'), { environment: 'dev' });

    expectDocumented('defaultValue', defaultValue.body);
    expectDocumented('toggle', toggled.body);
    expectDocumented('prerequisites', required.body);
    expectDocumented('reorder', reordered.body);
    expectDocumented('deleteRule', deleted.body);
    expect(required.body.revision.prerequisites).toEqual([{ id: parent, condition: '{"value": true}' }]);
    expect(ruleIds(reordered.body.revision, 'production')).toEqual(['fr_beta', 'fr_vip']);
    expect(ruleIds(reordered.body.revision, 'dev')).toEqual(['fr_vip']);
    expect(ruleIds(deleted.body.revision, 'dev')).toEqual([]);
    expect(ruleIds(deleted.body.revision, 'production')).toEqual(['fr_beta', 'fr_vip']);
    expect(await sdkValue(id, { id: 'u', vip: true, beta: true })).toBe('gold');

    const published = await v1('POST', at('/publish'), { comment: 'ship', bypassApproval: false });

    expect(published.status).toBe(200);
    expectDocumented('publish', published.body);
    expect(published.body.revision).toEqual(expect.objectContaining({ status: 'published', comment: 'ship', publishedBy: expect.any(String) }));
    expect(await sdkValue(id, { id: 'u', vip: true, beta: true })).toBe('silver');
    expect(await sdkValue(id, { id: 'u' })).toBe('green');
    const live = (await ok(v1('GET', `/features/${id}`))).feature;
    expect(live.prerequisites).toEqual([parent]);
    expect(live.environments.dev).toEqual(expect.objectContaining({ enabled: false, rules: [] }));
  });

  it('makes the draft of an edit when the version is "new"', async () => {
    const id = await newFeature();

    const response = await v1('PUT', `/features/${id}/revisions/new/archive`, { archived: true, revisionTitle: 'Retire' });

    expect(response.status).toBe(200);
    expectDocumented('archive', response.body);
    expect(response.body.revision).toEqual(expect.objectContaining({ version: 2, status: 'draft' }));
    expect((await ok(v1('GET', `/features/${id}`))).feature.archived).toBe(false);
  });

  it('answers the merge status, rebases, discards and reverts in v1’s shapes', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    await ok(v1('PUT', `/features/${id}/revisions/${draft.version}/default-value`, { defaultValue: 'green' }));
    await ok(v1('POST', `/features/${id}`, { description: 'changed live meanwhile' }));

    const merge = await ok(v1('GET', `/features/${id}/revisions/${draft.version}/merge-status`));
    const rebased = await ok(v1('POST', `/features/${id}/revisions/${draft.version}/rebase`, {}));
    const discarded = await ok(v1('POST', `/features/${id}/revisions/${draft.version}/discard`, {}));
    const reverted = await ok(v1('POST', `/features/${id}/revisions/1/revert`, { strategy: 'publish', comment: 'undo' }));

    expectDocumented('mergeStatus', merge);
    expectDocumented('rebase', rebased);
    expectDocumented('discard', discarded);
    expectDocumented('revert', reverted);
    expect(merge).toEqual(expect.objectContaining({ success: true, rebaseRequired: false, liveVersion: 3 }));
    expect(rebased.revision.baseVersion).toBe(3);
    expect(discarded.revision.status).toBe('discarded');
    expect(reverted.revision).toEqual(expect.objectContaining({ status: 'published', version: 4, comment: 'undo' }));
  });
});

describe('v1 twins of the v2 rule, metadata, holdout, ramp and review edits', () => {
  it('adds a rule to one environment and patches a rule in place, in v1’s shape, then publishes it to the SDK', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    const at = (path: string) => `/features/${id}/revisions/${draft.version}${path}`;

    const added = await v1('POST', at('/rules'), { environment: 'dev', rule: { type: 'force', value: 'teal', condition: '{"plan":"pro"}' }, revisionComment: 'pro users' });
    const patched = await v1('PUT', at('/rules/fr_beta'), { environment: 'production', rule: { value: 'bronze', description: 'beta testers' } });

    expect(added.status).toBe(200);
    expect(patched.status).toBe(200);
    expectDocumented('addRule', added.body);
    expectDocumented('putRule', patched.body);
    expectShape(contract.postFeatureRevisionRuleAdd, added.body);
    expectShape(contract.putFeatureRevisionRule, patched.body);
    const newRule = added.body.revision.rules.dev[1];
    expect(ruleIds(added.body.revision, 'dev')).toEqual(['fr_vip', newRule.id]);
    expect(newRule).toEqual(expect.objectContaining({ type: 'force', value: 'teal', condition: '{"plan":"pro"}' }));
    expect(ruleIds(added.body.revision, 'production')).toEqual(['fr_vip', 'fr_beta']);
    // The patched rule stays in its environment, at its place.
    expect(ruleIds(patched.body.revision, 'production')).toEqual(['fr_vip', 'fr_beta']);
    expect(patched.body.revision.rules.production[1]).toEqual(expect.objectContaining({ id: 'fr_beta', value: 'bronze', description: 'beta testers' }));
    expect(ruleIds(patched.body.revision, 'dev')).toEqual(['fr_vip', newRule.id]);
    expect(await sdkValue(id, { id: 'u', beta: true })).toBe('silver');

    await ok(v1('POST', at('/publish'), {}));

    expect(await sdkValue(id, { id: 'u', beta: true })).toBe('bronze');
  });

  it('sets metadata and holdout, and sets then removes a pending ramp, in v1’s shape', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    const at = (path: string) => `/features/${id}/revisions/${draft.version}${path}`;

    const metadata = await v1('PUT', at('/metadata'), { description: 'The banner colour', owner: 'ana', tags: ['ui'] });
    const holdout = await v1('PUT', at('/holdout'), { holdout: null, revisionComment: 'no holdout' });
    const ramp = await v1('PUT', at('/rules/fr_beta/ramp-schedule'), { name: 'Beta ramp', steps: [{ interval: 3600, actions: [{ patch: { enabled: false } }] }] });
    const viaV2 = (await ok(v2('GET', `/features/${id}/revisions/${draft.version}`))).revision;
    const unramped = await v1('DELETE', at('/rules/fr_beta/ramp-schedule'), { environment: 'production' });

    for (const [operation, response] of [['metadata', metadata], ['holdout', holdout], ['putRamp', ramp], ['deleteRamp', unramped]] as const) {
      expect({ operation, status: response.status, message: response.body.message }).toEqual({ operation, status: 200, message: undefined });
      expectDocumented(operation, response.body);
    }
    expectShape(contract.putFeatureRevisionMetadata, metadata.body);
    expect(metadata.body.revision.metadata).toEqual(expect.objectContaining({ description: 'The banner colour', owner: 'ana', tags: ['ui'] }));
    expect(holdout.body.revision.status).toBe('draft');
    expect(viaV2.rampActions).toEqual([expect.objectContaining({ ruleId: 'fr_beta', name: 'Beta ramp' })]);
    expect((await ok(v2('GET', `/features/${id}/revisions/${draft.version}`))).revision.rampActions ?? []).toEqual([]);
  });

  it('requests a review and takes a member’s approval, in v1’s shape', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    const at = (path: string) => `/features/${id}/revisions/${draft.version}${path}`;
    await ok(v1('PUT', at('/default-value'), { defaultValue: 'green' }));

    const requested = await v1('POST', at('/request-review'), { comment: 'please look' });
    const approved = await api.request('POST', `/api/v1${at('/submit-review')}`, { key: org.admin.token, body: { action: 'approve', comment: 'fine' } });

    expect(requested.status).toBe(200);
    expect(approved.status).toBe(200);
    expectDocumented('requestReview', requested.body);
    expectDocumented('submitReview', approved.body);
    expectShape(contract.postFeatureRevisionSubmitReview, approved.body);
    expect(requested.body.revision.status).toBe('pending-review');
    expect(approved.body.revision.status).toBe('approved');
  });
});

describe('refused v1 edits', () => {
  it.each([
    ['a reorder naming an unknown rule', 'POST', '/rules/reorder', { environment: 'production', ruleIds: ['fr_vip', 'fr_beta', 'fr_nope'] }, 404, /fr_nope/],
    ['a reorder leaving a rule out', 'POST', '/rules/reorder', { environment: 'production', ruleIds: ['fr_vip'] }, 400, /Missing rule ID.*fr_beta/],
    ['a reorder naming a rule twice', 'POST', '/rules/reorder', { environment: 'production', ruleIds: ['fr_vip', 'fr_vip', 'fr_beta'] }, 400, /Duplicate rule ID.*fr_vip/],
    ['a reorder of an unknown environment', 'POST', '/rules/reorder', { environment: 'staging', ruleIds: [] }, 400, /environment.*staging/],
    ['a delete of a rule not in that environment', 'DELETE', '/rules/fr_beta', { environment: 'dev' }, 404, /fr_beta/],
    ['a delete without the environment', 'DELETE', '/rules/fr_vip', {}, 400, /environment/],
    ['a prerequisite with another condition', 'PUT', '/prerequisites', { prerequisites: [{ id: 'x', condition: '{"value": false}' }] }, 400, /prerequisites\.0\.condition/],
    ['a default value of another field', 'PUT', '/default-value', { defaultValue: 'x', colour: 'red' }, 400, /colour/],
    ['a rule added to an unknown environment', 'POST', '/rules', { environment: 'staging', rule: { value: 'x' } }, 400, /environment.*staging/],
    ['a rule added with environments of its own', 'POST', '/rules', { environment: 'dev', rule: { value: 'x', environments: ['dev'] } }, 400, /rule.*environments/],
    ['a rule patched in an environment it is not in', 'PUT', '/rules/fr_beta', { environment: 'dev', rule: { value: 'x' } }, 404, /fr_beta.*dev/],
    ['a rule patch without the environment', 'PUT', '/rules/fr_vip', { rule: { value: 'x' } }, 400, /environment/],
    ['metadata with an unknown field', 'PUT', '/metadata', { description: 'x', colour: 'red' }, 400, /colour/],
    ['a holdout without its value', 'PUT', '/holdout', { holdout: { id: 'hld_x' } }, 400, /holdout\.value/],
    ['a ramp schedule with a start state', 'PUT', '/rules/fr_vip/ramp-schedule', { name: 'r', startState: {} }, 400, /startState/],
    ['removing a ramp a rule does not have', 'DELETE', '/rules/fr_vip/ramp-schedule', {}, 404, /fr_vip/],
    ['a review request arming with a non-boolean', 'POST', '/request-review', { autoPublishOnApproval: 'yes' }, 400, /autoPublishOnApproval/],
    ['a review with an unknown action', 'POST', '/submit-review', { action: 'shrug' }, 400, /action/],
  ])('refuses %s, and leaves the draft as it was', async (_name, method, path, body, status, message) => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const response = await v1(method, `/features/${id}/revisions/${draft.version}${path}`, body);

    expect(response.status).toBe(status);
    expect(response.body.message).toMatch(message);
    expect((await ok(v1('GET', `/features/${id}/revisions/${draft.version}`))).revision).toEqual(draft);
  });

  it('answers 404 for a feature or revision that does not exist', async () => {
    const id = await newFeature();

    expect((await v1('GET', `/features/${id}/revisions/9`)).status).toBe(404);
    expect((await v1('POST', '/features/nothing-here/revisions', {})).status).toBe(404);
  });

  it('refuses to publish a draft with no changes with 400, and the feature stays as it was', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const response = await v1('POST', `/features/${id}/revisions/${draft.version}/publish`, {});

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/no changes/);
    expect((await ok(v1('GET', `/features/${id}`))).feature.revision.version).toBe(1);
  });
});
