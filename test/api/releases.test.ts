import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import * as contract from '../../shared/contracts/releases';
import { queryAll } from '../../shared/db/repository';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

let api: Api;
let org: TestOrg;
let clientKey: string;
const validResult = referenceSchemaValidator('results', 'growthbook-5.0.1-openapi.yaml');
const validGate = referenceSchemaValidator('gates', 'growthbook-5.0.1-openapi.yaml');

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Releases');
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});
afterAll(() => api.close());

const v1 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });
const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.admin, body });
const release = (body: unknown, key = org.keys.admin) => v1('POST', '/releases/publish-revisions', body, key);

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

function expectValid(validate: ReturnType<typeof referenceSchemaValidator>, value: unknown) {
  if (!validate(value)) throw new Error(JSON.stringify(validate.errors, null, 2));
}

let counter = 0;
/** A feature on in production with default `blue`, and a draft setting `value`. */
async function featureWithDraft(value: string) {
  const id = `release-${++counter}`;
  await ok(v1('POST', '/features', { id, valueType: 'string', defaultValue: 'blue', environments: { production: { enabled: true, rules: [] } } }));
  const { revision } = await ok(v2('POST', `/features/${id}/revisions`, {}));
  await ok(v2('PUT', `/features/${id}/revisions/${revision.version}/default-value`, { defaultValue: value }));
  return { id, version: revision.version as number };
}

const liveDefault = async (id: string) => (await ok(v1('GET', `/features/${id}`))).feature.defaultValue;

async function sdkValues(ids: string[]) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  const gb = new GrowthBook({ attributes: { id: 'u1' } }).initSync({ payload });
  return ids.map((id) => gb.getFeatureValue(id, 'none'));
}

async function publishedEvents(featureId: string) {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org.orgId}`, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return items.filter((item) => item.object?.id === featureId && item.event === 'feature.revision.published');
}

describe('publishing together', () => {
  it('publishes every revision of the release at once, with one bulkPublishId on every event', async () => {
    const [a, b] = await Promise.all([featureWithDraft('green'), featureWithDraft('red')]);

    const response = await release({ revisions: [{ entityType: 'feature', ...a }, { entityType: 'feature', ...b }], comment: 'launch' });

    expect(response.status).toBe(200);
    expectShape(contract.postReleasePublishRevisions, response.body);
    expect(response.body).toMatchObject({ dryRun: false, bulkPublishId: expect.stringMatching(/^pub_/), gates: [], bypassedGates: [], warnings: [] });
    expect(response.body.results).toEqual([
      { entityType: 'feature', id: a.id, version: a.version, revisionId: `frev_${a.version}_${a.id}`, status: 'published' },
      { entityType: 'feature', id: b.id, version: b.version, revisionId: `frev_${b.version}_${b.id}`, status: 'published' },
    ]);
    response.body.results.forEach((result: unknown) => expectValid(validResult, result));
    expect(await sdkValues([a.id, b.id])).toEqual(['green', 'red']);
    const revision = (await ok(v2('GET', `/features/${a.id}/revisions/${a.version}`))).revision;
    expect(revision).toMatchObject({ status: 'published', comment: 'launch' });
    for (const id of [a.id, b.id]) {
      const events = await publishedEvents(id);
      expect(events).toHaveLength(1);
      expect(events[0]!.data.object.bulkPublishId).toBe(response.body.bulkPublishId);
    }
  });

  it('takes revision ids in place of id and version', async () => {
    const a = await featureWithDraft('green');

    const response = await release({ revisions: [{ entityType: 'feature', revisionId: `frev_${a.version}_${a.id}` }] });

    expect(response.status).toBe(200);
    expect(response.body.results[0]).toMatchObject({ id: a.id, version: a.version, status: 'published' });
    expect(await liveDefault(a.id)).toBe('green');
  });
});

describe('all or none', () => {
  it('publishes nothing when one revision conflicts, answering 422 with every gate', async () => {
    const a = await featureWithDraft('green');
    const b = await featureWithDraft('red');
    const { revision: rival } = await ok(v2('POST', `/features/${b.id}/revisions`, {}));
    await ok(v2('PUT', `/features/${b.id}/revisions/${rival.version}/default-value`, { defaultValue: 'purple' }));
    await ok(v2('POST', `/features/${b.id}/revisions/${rival.version}/publish`, {}));

    const response = await release({ revisions: [{ entityType: 'feature', ...a }, { entityType: 'feature', ...b }, { entityType: 'feature', id: 'no-such-flag', version: 2 }] });

    expect(response.status).toBe(422);
    expect(response.body.code).toBe('publish_blocked');
    const gates = response.body.details.gates;
    gates.forEach((gate: unknown) => expectValid(validGate, gate));
    expect(gates.map((gate: { id: string; type: string }) => [gate.id, gate.type])).toEqual([
      [b.id, 'merge-conflict'],
      ['no-such-flag', 'not-found'],
    ]);
    expect(gates[0].resolution).toEqual({ action: 'rebase', method: 'POST', path: `/v2/features/${b.id}/revisions/${b.version}/rebase` });
    expect(await liveDefault(a.id)).toBe('blue');
    expect((await ok(v2('GET', `/features/${a.id}/revisions/${a.version}`))).revision.status).toBe('draft');
    expect(await publishedEvents(a.id)).toEqual([]);
  });

  it('reports a closed revision and changes nothing', async () => {
    const a = await featureWithDraft('green');
    const b = await featureWithDraft('red');
    await ok(v2('POST', `/features/${b.id}/revisions/${b.version}/discard`, {}));

    const response = await release({ revisions: [{ entityType: 'feature', ...a }, { entityType: 'feature', ...b }] });

    expect(response.status).toBe(422);
    expect(response.body.details.gates).toEqual([expect.objectContaining({ id: b.id, type: 'revision-closed', severity: 'blocker' })]);
    expect(await liveDefault(a.id)).toBe('blue');
  });

  it('lands a release and a conflicting publish sent at once as all of the release or none of it', async () => {
    const a = await featureWithDraft('green');
    const b = await featureWithDraft('red');
    const { revision: rival } = await ok(v2('POST', `/features/${b.id}/revisions`, {}));
    await ok(v2('PUT', `/features/${b.id}/revisions/${rival.version}/default-value`, { defaultValue: 'purple' }));

    const [released, direct] = await Promise.all([
      release({ revisions: [{ entityType: 'feature', ...a }, { entityType: 'feature', ...b }] }),
      v2('POST', `/features/${b.id}/revisions/${rival.version}/publish`, {}),
    ]);

    // Exactly one of the two lands; the other is refused with the conflict, and nothing is half done.
    expect([released.status, direct.status].sort()).toEqual(released.status === 200 ? [200, 409] : [200, 422]);
    const [liveA, liveB] = [await liveDefault(a.id), await liveDefault(b.id)];
    if (released.status === 200) expect([liveA, liveB]).toEqual(['green', 'red']);
    else expect([liveA, liveB]).toEqual(['blue', 'purple']);
  });
});

describe('dry runs', () => {
  it('reports what would publish and every gate, writing nothing', async () => {
    const a = await featureWithDraft('green');

    const response = await release({ revisions: [{ entityType: 'feature', ...a }, { entityType: 'feature', id: 'missing-flag', version: 3 }], dryRun: true });

    expect(response.status).toBe(200);
    expectShape(contract.postReleasePublishRevisions, response.body);
    expect(response.body.bulkPublishId).toBeUndefined();
    expect(response.body.results).toEqual([expect.objectContaining({ id: a.id, status: 'would-publish' })]);
    expect(response.body.gates).toEqual([expect.objectContaining({ id: 'missing-flag', type: 'not-found' })]);
    expect(await liveDefault(a.id)).toBe('blue');
  });
});

describe('refusals', () => {
  it.each([
    ['an empty list', { revisions: [] }, /revisions/],
    ['the same feature twice', 'twice', /Duplicate entity in request: feature:/],
    ['a feature revision id named a saved group’s', { revisions: [{ entityType: 'saved-group', revisionId: 'frev_2_x' }] }, /Revision "frev_2_x" belongs to a feature, not a saved-group/],
    ['a config revision', { revisions: [{ entityType: 'config', key: 'c', version: 2 }] }, /config revisions cannot be published here/],
    ['a revision id of something else', { revisions: [{ entityType: 'feature', revisionId: 'rev_123' }] }, /not a feature revision id/],
    ['an unknown field', { revisions: [{ entityType: 'feature', id: 'x', version: 2 }], force: true }, /force/],
    ['more than 50 revisions', { revisions: Array.from({ length: 51 }, (_, i) => ({ entityType: 'feature', id: `f${i}`, version: 2 })) }, /revisions/],
  ])('answers 400 to %s', async (_name, body, message) => {
    const a = await featureWithDraft('green');
    const request = body === 'twice' ? { revisions: [{ entityType: 'feature', ...a }, { entityType: 'feature', id: a.id, version: a.version }] } : body;

    const response = await release(request);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await liveDefault(a.id)).toBe('blue');
  });

  it('answers 403 to a caller who may not publish', async () => {
    const a = await featureWithDraft('green');

    const response = await release({ revisions: [{ entityType: 'feature', ...a }] }, org.keys.readonly);

    expect(response.status).toBe(403);
    expect(await liveDefault(a.id)).toBe('blue');
  });

  it('refuses a release too large for one DynamoDB transaction with a 400 naming the limit, publishing nothing', async () => {
    const drafts = [];
    for (let i = 0; i < 30; i++) drafts.push(await featureWithDraft(`v${i}`));

    const response = await release({ revisions: drafts.map((draft) => ({ entityType: 'feature', ...draft })) });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/more than the 100 one DynamoDB transaction holds/);
    expect(await sdkValues(drafts.map((draft) => draft.id))).toEqual(drafts.map(() => 'blue'));
  }, 60_000);
});
