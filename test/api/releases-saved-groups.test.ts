import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import * as contract from '../../shared/contracts/releases';
import { queryAll } from '../../shared/db/repository';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

/** `POST /releases/publish-revisions` with saved-group revisions, alone and beside feature revisions. */

let api: Api;
let org: TestOrg;
let clientKey: string;
const validResult = referenceSchemaValidator('results', 'growthbook-5.0.1-openapi.yaml');
const validGate = referenceSchemaValidator('gates', 'growthbook-5.0.1-openapi.yaml');

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Releases of saved groups');
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});
afterAll(() => api.close());

const v1 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });
const v2 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v2${path}`, { key, body });
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
  const id = `mixed-${++counter}`;
  await ok(v1('POST', '/features', { id, valueType: 'string', defaultValue: 'blue', environments: { production: { enabled: true, rules: [] } } }));
  const { revision } = await ok(v2('POST', `/features/${id}/revisions`, {}));
  await ok(v2('PUT', `/features/${id}/revisions/${revision.version}/default-value`, { defaultValue: value }));
  return { id, version: revision.version as number };
}

/** A list group holding `alice`, a feature serving "in" to its members, and a draft of the group setting `values`. */
async function groupWithDraft(values = ['alice', 'bob'], key = org.keys.admin, call = v1) {
  const n = ++counter;
  const group = (await ok(call('POST', '/saved-groups', { name: `Staff ${n}`, attributeKey: 'id', values: ['alice'] }, key))).savedGroup;
  const featureId = `staff-gated-${n}`;
  await ok(
    call(
      'POST',
      '/features',
      {
        id: featureId,
        valueType: 'string',
        defaultValue: 'out',
        environments: { production: { enabled: true, rules: [{ type: 'force', value: 'in', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group.id] }] }] } },
      },
      key,
    ),
  );
  const { revision } = await ok(call('PUT', `/saved-groups-revisions/${group.id}/new/values`, { values }, key));
  return { id: group.id as string, featureId, version: revision.version as number, revisionId: revision.id as string };
}

const liveDefault = async (id: string) => (await ok(v1('GET', `/features/${id}`))).feature.defaultValue;
const liveValues = async (id: string) => (await ok(v1('GET', `/saved-groups/${id}`))).savedGroup.values;
const groupRevision = async (id: string, version: number) => (await ok(v1('GET', `/saved-groups-revisions/${id}/${version}`))).revision;

async function sdkValue(featureId: string, user: string) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  return new GrowthBook({ attributes: { id: user } }).initSync({ payload }).getFeatureValue(featureId, 'none');
}

async function eventsOf(orgId: string, id: string, name: string) {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${orgId}`, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return items.filter((item) => item.object?.id === id && item.event === name);
}

describe('a release of feature and saved-group revisions', () => {
  it('lands them together, with one bulkPublishId on every published event', async () => {
    const feature = await featureWithDraft('green');
    const [staff, admins] = await Promise.all([groupWithDraft(['alice', 'bob']), groupWithDraft(['carol'])]);

    const response = await release({
      revisions: [
        { entityType: 'feature', ...feature },
        { entityType: 'saved-group', id: staff.id, version: staff.version },
        { entityType: 'saved-group', revisionId: admins.revisionId },
      ],
      comment: 'together',
    });

    expect(response.status).toBe(200);
    expectShape(contract.postReleasePublishRevisions, response.body);
    expect(response.body).toMatchObject({ dryRun: false, gates: [], bypassedGates: [], warnings: [] });
    expect(response.body.results).toEqual([
      { entityType: 'feature', id: feature.id, version: feature.version, revisionId: `frev_${feature.version}_${feature.id}`, status: 'published' },
      { entityType: 'saved-group', id: staff.id, version: staff.version, revisionId: staff.revisionId, status: 'published' },
      { entityType: 'saved-group', id: admins.id, version: admins.version, revisionId: admins.revisionId, status: 'published' },
    ]);
    for (const result of response.body.results) expectValid(validResult, result);
    expect(await liveDefault(feature.id)).toBe('green');
    expect(await liveValues(staff.id)).toEqual(['alice', 'bob']);
    expect(await liveValues(admins.id)).toEqual(['carol']);
    expect((await groupRevision(staff.id, staff.version)).status).toBe('merged');
    expect(await sdkValue(staff.featureId, 'bob')).toBe('in');
    expect(await sdkValue(admins.featureId, 'alice')).toBe('out');
    const bulkPublishId = response.body.bulkPublishId;
    expect(bulkPublishId).toMatch(/^pub_/);
    const events = [
      ...(await eventsOf(org.orgId, feature.id, 'feature.revision.published')),
      ...(await eventsOf(org.orgId, staff.id, 'savedGroup.revision.published')),
      ...(await eventsOf(org.orgId, admins.id, 'savedGroup.revision.published')),
    ];
    expect(events.map((event) => event.data.object.bulkPublishId)).toEqual([bulkPublishId, bulkPublishId, bulkPublishId]);
  });

  it('reports what would publish, writing nothing, on a dry run', async () => {
    const staff = await groupWithDraft();

    const response = await ok(release({ revisions: [{ entityType: 'saved-group', id: staff.id, version: staff.version }], dryRun: true }));

    expect(response.results).toEqual([expect.objectContaining({ entityType: 'saved-group', id: staff.id, status: 'would-publish' })]);
    expect(await liveValues(staff.id)).toEqual(['alice']);
  });
});

describe('one bad entry lands nothing and names it', () => {
  it('a saved-group revision that conflicts with the live group: 422 with its merge-conflict gate', async () => {
    const feature = await featureWithDraft('green');
    const staff = await groupWithDraft(['alice', 'bob']);
    const other = (await ok(v1('PUT', `/saved-groups-revisions/${staff.id}/new/values`, { values: ['dave'] }))).revision;
    await ok(v1('POST', `/saved-groups-revisions/${staff.id}/${other.version}/publish`, {}));

    const response = await release({ revisions: [{ entityType: 'feature', ...feature }, { entityType: 'saved-group', id: staff.id, version: staff.version }] });

    expect(response.status).toBe(422);
    expect(response.body.details.gates).toEqual([
      expect.objectContaining({
        entityType: 'saved-group',
        id: staff.id,
        version: staff.version,
        type: 'merge-conflict',
        resolution: { action: 'rebase', method: 'POST', path: `/saved-groups-revisions/${staff.id}/${staff.version}/rebase` },
      }),
    ]);
    for (const gate of response.body.details.gates) expectValid(validGate, gate);
    expect(await liveDefault(feature.id)).toBe('blue');
    expect(await liveValues(staff.id)).toEqual(['dave']);
    expect(await eventsOf(org.orgId, feature.id, 'feature.revision.published')).toEqual([]);
  });

  it('a saved group or a revision id that does not exist: 422 with a not-found gate for each', async () => {
    const staff = await groupWithDraft();

    const response = await release({
      revisions: [
        { entityType: 'saved-group', id: staff.id, version: staff.version },
        { entityType: 'saved-group', id: 'grp_missing', version: 2 },
        { entityType: 'saved-group', revisionId: 'rev_missing' },
      ],
    });

    expect(response.status).toBe(422);
    expect(response.body.details.gates).toEqual([
      expect.objectContaining({ entityType: 'saved-group', id: 'grp_missing', version: 2, type: 'not-found' }),
      expect.objectContaining({ entityType: 'saved-group', id: 'rev_missing', type: 'not-found' }),
    ]);
    expect(await liveValues(staff.id)).toEqual(['alice']);
  });

  it('a closed saved-group revision: 422 with revision-closed', async () => {
    const staff = await groupWithDraft();
    await ok(v1('POST', `/saved-groups-revisions/${staff.id}/${staff.version}/discard`, {}));
    const feature = await featureWithDraft('green');

    const response = await release({ revisions: [{ entityType: 'saved-group', id: staff.id, version: staff.version }, { entityType: 'feature', ...feature }] });

    expect(response.status).toBe(422);
    expect(response.body.details.gates).toEqual([expect.objectContaining({ id: staff.id, type: 'revision-closed' })]);
    expect(await liveDefault(feature.id)).toBe('blue');
  });

  it('an unapproved saved-group change where approvals are required: 422 with approval-required, until approved', async () => {
    const gated = await createTestOrg('Releases with approvals');
    const call = (method: string, path: string, body?: unknown, key = gated.keys.engineer) => api.request(method, `/api/v1${path}`, { key, body });
    await ok(call('PUT', '/settings/approvals', { approvalFlows: { savedGroups: [{ required: true, requireMetadataReview: false, resetReviewOnChange: true }] } }, gated.keys.admin));
    const staff = await groupWithDraft(['alice', 'bob'], gated.keys.engineer, call);
    const request = { revisions: [{ entityType: 'saved-group', id: staff.id, version: staff.version }] };

    const blocked = await call('POST', '/releases/publish-revisions', request);
    const bypassed = await call('POST', '/releases/publish-revisions', { ...request, dryRun: true }, gated.keys.admin);

    expect(blocked.status).toBe(422);
    expect(blocked.body.details.gates).toEqual([
      expect.objectContaining({ entityType: 'saved-group', id: staff.id, version: staff.version, type: 'approval-required', requiresPermission: 'bypassApprovalChecks' }),
    ]);
    expect((await ok(call('GET', `/saved-groups/${staff.id}`))).savedGroup.values).toEqual(['alice']);
    // A caller who may bypass approvals sees the gate it would bypass.
    expect(bypassed.body.bypassedGates).toEqual([
      { entityType: 'saved-group', id: staff.id, version: staff.version, type: 'approval-required', via: 'bypassApprovalPermission' },
    ]);
  });
});

describe('the transaction limit', () => {
  it('refuses a release of saved groups too large for one DynamoDB transaction with a 400 naming the limit, publishing nothing', async () => {
    const drafts = [];
    // Each group writes the group, its revision and its event, and the groups bump up to 16 payload versions.
    for (let i = 0; i < 34; i++) drafts.push(await groupWithDraft([`user-${i}`]));

    const response = await release({ revisions: drafts.map(({ id, version }) => ({ entityType: 'saved-group', id, version })) });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/more than the 100 one DynamoDB transaction holds/);
    expect(await liveValues(drafts[0]!.id)).toEqual(['alice']);
    expect(await liveValues(drafts[33]!.id)).toEqual(['alice']);
  });
});
