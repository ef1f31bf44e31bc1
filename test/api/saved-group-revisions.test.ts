import Ajv from 'ajv';
import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceDocument, referenceSchemaValidator } from '../support/reference';
import { startServerProcess } from '../support/server-process';
import * as contract from '../../shared/contracts/saved-group-revisions';
import { savedGroupRevisions } from '../../shared/store/saved-group-revisions';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';

let api: Api;
let org: TestOrg;
let clientKey: string;

const REFERENCE = 'growthbook-5.0.1-openapi.yaml';
const validRevision = referenceSchemaValidator('SavedGroupRevision', REFERENCE);
const document = referenceDocument(REFERENCE);
/** A validator of one operation's 200 answer as the 5.0.1 document gives it. */
function referenceResponse(path: string, method: string) {
  // GrowthBook names some answers with a bare `id` keyword, which Ajv refuses: it describes nothing.
  const { id: _name, ...schema } = document.paths[path][method].responses['200'].content['application/json'].schema;
  return new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile({ ...schema, components: document.components });
}
const validMergeStatus = referenceResponse('/v1/saved-groups-revisions/{savedGroupId}/{version}/merge-status', 'get');
const validRevisionList = referenceResponse('/v1/saved-groups-revisions/{savedGroupId}', 'get');
const validReferences = referenceResponse('/v1/saved-groups/{id}/references', 'get');
const validArchive = referenceResponse('/v1/saved-groups/{id}/archive', 'post');
const validPublish = referenceResponse('/v1/saved-groups-revisions/{savedGroupId}/{version}/publish', 'post');

function expectValid(validate: ReturnType<typeof referenceResponse>, body: unknown) {
  if (!validate(body)) throw new Error(JSON.stringify(validate.errors, null, 2));
}
const expectReferenceRevision = (revision: unknown) => expectValid(validRevision, revision);

const v1 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

const revisions = (groupId: string) => `/saved-groups-revisions/${groupId}`;
const groupOf = async (id: string) => (await ok(v1('GET', `/saved-groups/${id}`))).savedGroup;
const revisionCount = async (id: string) => (await savedGroupRevisions.listPage(org.orgId, id, { limit: 100, offset: 0 })).total;

let counter = 0;
/** A condition group and a feature whose production rule serves "in" to the group's members. */
async function conditionGroupInUse(condition = '{"country":"US"}') {
  const group = (await ok(v1('POST', '/saved-groups', { name: `Country ${++counter}`, condition }))).savedGroup;
  const featureId = await featureFor(group.id);
  return { group, featureId };
}

async function listGroupInUse(values = ['alice']) {
  const group = (await ok(v1('POST', '/saved-groups', { name: `Staff ${++counter}`, attributeKey: 'id', values }))).savedGroup;
  const featureId = await featureFor(group.id);
  return { group, featureId };
}

async function featureFor(groupId: string) {
  const id = `gated-${++counter}`;
  await ok(
    v1('POST', '/features', {
      id,
      valueType: 'string',
      defaultValue: 'out',
      environments: {
        production: { enabled: true, rules: [{ type: 'force', value: 'in', savedGroupTargeting: [{ matchType: 'all', savedGroups: [groupId] }] }] },
      },
    }),
  );
  return id;
}

/** What the real SDK answers for a user, from the payload as served now. */
async function sdkValue(featureId: string, attributes: Record<string, unknown>) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  return new GrowthBook({ attributes }).initSync({ payload }).getFeatureValue(featureId, 'none');
}

const newDraft = async (groupId: string, body: unknown = {}) => (await ok(v1('POST', revisions(groupId), body))).revision;
const publish = (groupId: string, version: number, body: unknown = {}) => v1('POST', `${revisions(groupId)}/${version}/publish`, body);

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});

afterAll(async () => {
  await api.close();
});

describe('drafts', () => {
  it('creates a draft branched from the live group, after a merged revision of the live state, in the shape of GrowthBook 5', async () => {
    const { group } = await conditionGroupInUse();

    const response = await v1('POST', revisions(group.id), { title: 'Widen', comment: 'add FR' });

    expect(response.status).toBe(200);
    expectShape(contract.postSavedGroupRevision, response.body);
    expectReferenceRevision(response.body.revision);
    expect(response.body.revision).toMatchObject({
      version: 2,
      title: 'Widen',
      status: 'draft',
      baseSavedGroup: { id: group.id, condition: '{"country":"US"}', name: group.name },
      proposedSavedGroup: { id: group.id, condition: '{"country":"US"}' },
      proposedChanges: [],
      reviews: [],
    });
    expect(response.body.revision.activityLog.map((entry: any) => entry.action)).toEqual(['created']);
    const list = await ok(v1('GET', revisions(group.id)));
    expectValid(validRevisionList, list);
    expect(list.revisions.map((r: any) => [r.version, r.status])).toEqual([
      [2, 'draft'],
      [1, 'merged'],
    ]);
  });

  it('edits a condition in a draft without changing what the SDK sees, then publishes it and the SDK sees it', async () => {
    const { group, featureId } = await conditionGroupInUse();
    const draft = await newDraft(group.id);

    const edited = await v1('PUT', `${revisions(group.id)}/${draft.version}/condition`, { condition: '{"country":{"$in":["US","FR"]}}' });

    expect(edited.status).toBe(200);
    expectReferenceRevision(edited.body.revision);
    expect(edited.body.revision.proposedChanges).toEqual([{ op: 'replace', path: '/condition', value: '{"country":{"$in":["US","FR"]}}' }]);
    expect((await groupOf(group.id)).condition).toBe('{"country":"US"}');
    expect(await sdkValue(featureId, { country: 'FR' })).toBe('out');

    const published = await publish(group.id, draft.version, {});

    expect(published.status).toBe(200);
    expectValid(validPublish, published.body);
    expect(published.body.revision).toMatchObject({ version: draft.version, status: 'merged', resolution: { action: 'merged' } });
    expect((await groupOf(group.id)).condition).toBe('{"country":{"$in":["US","FR"]}}');
    expect(await sdkValue(featureId, { country: 'FR' })).toBe('in');
    expect(await sdkValue(featureId, { country: 'US' })).toBe('in');
  });

  it('creates the draft of an edit with version "new", and adds and removes list items that accumulate', async () => {
    const { group, featureId } = await listGroupInUse(['alice']);

    const added = await ok(v1('POST', `${revisions(group.id)}/new/items/add`, { items: ['bob', 'carol', 'bob'], revisionTitle: 'More staff' }));
    const removed = await ok(v1('POST', `${revisions(group.id)}/${added.revision.version}/items/remove`, { items: ['alice'] }));

    expect(added.revision).toMatchObject({ version: 2, title: 'More staff', status: 'draft' });
    expectReferenceRevision(removed.revision);
    expect(removed.revision.proposedSavedGroup.values).toEqual(['bob', 'carol']);
    expect((await groupOf(group.id)).values).toEqual(['alice']);
    expect(await sdkValue(featureId, { id: 'bob' })).toBe('out');
    expect(await sdkValue(featureId, { id: 'alice' })).toBe('in');

    await ok(publish(group.id, added.revision.version));

    expect(await sdkValue(featureId, { id: 'bob' })).toBe('in');
    expect(await sdkValue(featureId, { id: 'alice' })).toBe('out');
  });

  it('stages metadata and values in a draft: name, description, owner e-mail and projects go live together', async () => {
    const { group } = await listGroupInUse(['a']);
    const project = (await ok(v1('POST', '/projects', { name: `Growth ${++counter}` }))).project.id;
    const draft = await newDraft(group.id);

    await ok(v1('PUT', `${revisions(group.id)}/${draft.version}/metadata`, { name: 'Renamed', description: 'why', owner: org.admin.email, projects: [project] }));
    await ok(v1('PUT', `${revisions(group.id)}/${draft.version}/values`, { values: ['x', 'y'] }));
    await ok(publish(group.id, draft.version));

    expect(await groupOf(group.id)).toMatchObject({ name: 'Renamed', description: 'why', owner: org.admin.memberId, ownerEmail: org.admin.email, projects: [project], values: ['x', 'y'] });
  });

  it('refuses bad edits with 400 or 404 naming the problem, leaving the draft as it was and no draft behind for "new"', async () => {
    const { group } = await conditionGroupInUse();
    const draft = await newDraft(group.id);
    const before = await revisionCount(group.id);
    const path = `${revisions(group.id)}/${draft.version}`;

    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['PUT', `${revisions(group.id)}/new/values`, { values: ['a'] }, 400, /only valid for list saved groups/],
      ['POST', `${revisions(group.id)}/new/items/add`, { items: ['a'] }, 400, /only valid for list saved groups/],
      ['PUT', `${path}/condition`, { condition: '{}' }, 400, /Condition cannot be empty/],
      ['PUT', `${path}/condition`, { condition: 'not json' }, 400, /condition/],
      ['PUT', `${path}/condition`, { condition: '{"a":1}', extra: true }, 400, /extra/],
      ['PUT', `${path}/metadata`, {}, 400, /at least one of/],
      ['PUT', `${path}/metadata`, { projects: ['prj_nope'] }, 400, /unknown project prj_nope/],
      ['PUT', `${path}/metadata`, { owner: 'u_nobody' }, 400, /no member has the id u_nobody/],
      ['PUT', `${revisions(group.id)}/99/condition`, { condition: '{"a":1}' }, 404, /Could not find saved group revision/],
      ['PUT', `${revisions(group.id)}/abc/condition`, { condition: '{"a":1}' }, 400, /version/],
      ['PUT', `${revisions('grp_nope')}/new/condition`, { condition: '{"a":1}' }, 404, /Could not find saved group/],
      ['POST', `${path}/items/add`, { items: [] }, 400, /items/],
    ];
    for (const [method, url, body, status, message] of cases) {
      const response = await v1(method, url, body);
      expect([url, response.status]).toEqual([url, status]);
      expect(response.body.message).toMatch(message);
    }

    const after = await ok(v1('GET', path));
    expect(after.revision.proposedChanges).toEqual([]);
    expect(after.revision.dateUpdated).toBe(draft.dateUpdated);
    expect(await revisionCount(group.id)).toBe(before);
  });

  it('answers the latest open draft, 404 when there is none, and lists revisions across the organization by group and status', async () => {
    const { group } = await conditionGroupInUse();
    expect((await v1('GET', `${revisions(group.id)}/latest`)).status).toBe(404);
    const first = await newDraft(group.id);
    const second = await newDraft(group.id);
    await ok(v1('PUT', `${revisions(group.id)}/${first.version}/condition`, { condition: '{"country":"DE"}' }));

    const latest = await ok(v1('GET', `${revisions(group.id)}/latest`));
    const open = await ok(v1('GET', `/saved-groups-revisions?savedGroupId=${group.id}&status=open`));
    const merged = await ok(v1('GET', `/saved-groups-revisions?status=merged&limit=100`));
    const mineWithKey = await v1('GET', `${revisions(group.id)}?mine=true`);

    expect(latest.revision.version).toBe(first.version);
    expect(open.revisions.map((r: any) => r.version).sort()).toEqual([first.version, second.version].sort());
    expect(merged.revisions.every((r: any) => r.status === 'merged')).toBe(true);
    expect(merged.revisions.some((r: any) => r.baseSavedGroup.id === group.id)).toBe(true);
    expectValid(referenceResponse('/v1/saved-groups-revisions', 'get'), merged);
    expect(mineWithKey.status).toBe(400);
    expect(mineWithKey.body.message).toMatch(/mine/);
    const page = await ok(v1('GET', `${revisions(group.id)}?limit=1&offset=1&skipPagination=true`));
    // skipPagination is honoured only where the deployment allows it (API_ALLOW_SKIP_PAGINATION), as GrowthBook does.
    expect(page).toMatchObject({ limit: 1, offset: 1, count: 1, total: 3, hasMore: true, nextOffset: 2 });
    expect(page.revisions[0].version).toBe(second.version - 1);
  });
});

describe('merging', () => {
  it('merges a draft over a change made meanwhile to another field, keeping both', async () => {
    const { group } = await conditionGroupInUse();
    const draft = await newDraft(group.id);
    await ok(v1('PUT', `${revisions(group.id)}/${draft.version}/metadata`, { name: 'From draft' }));
    await ok(v1('POST', `/saved-groups/${group.id}`, { description: 'changed live' }));

    const status = await ok(v1('GET', `${revisions(group.id)}/${draft.version}/merge-status`));
    await ok(publish(group.id, draft.version));

    expectValid(validMergeStatus, status);
    expect(status).toEqual({ success: true, hasConflicts: false, conflicts: [], canAutoMerge: true });
    expect(await groupOf(group.id)).toMatchObject({ name: 'From draft', description: 'changed live' });
  });

  it('answers a conflicting publish with 409 and the conflicts, refuses an unresolved rebase, then publishes after a rebase that keeps the draft', async () => {
    const { group, featureId } = await conditionGroupInUse('{"country":"US"}');
    const draft = await newDraft(group.id);
    await ok(v1('PUT', `${revisions(group.id)}/${draft.version}/condition`, { condition: '{"country":"FR"}' }));
    await ok(v1('POST', `/saved-groups/${group.id}`, { condition: '{"country":"DE"}' }));

    const status = await ok(v1('GET', `${revisions(group.id)}/${draft.version}/merge-status`));
    const refused = await publish(group.id, draft.version);
    const unresolved = await v1('POST', `${revisions(group.id)}/${draft.version}/rebase`, {});

    const conflict = { field: 'condition', baseValue: '{"country":"US"}', liveValue: '{"country":"DE"}', proposedValue: '{"country":"FR"}' };
    expectValid(validMergeStatus, status);
    expect(status).toEqual({ success: false, hasConflicts: true, conflicts: [conflict], canAutoMerge: false });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(refused.body.details.conflicts).toEqual([conflict]);
    expect(unresolved.status).toBe(409);
    expect(unresolved.body.message).toMatch(/condition/);
    expect((await groupOf(group.id)).condition).toBe('{"country":"DE"}');

    const rebased = await ok(v1('POST', `${revisions(group.id)}/${draft.version}/rebase`, { conflictResolutions: { condition: 'overwrite' } }));
    expectReferenceRevision(rebased.revision);
    expect(rebased.revision.baseSavedGroup.condition).toBe('{"country":"DE"}');
    await ok(publish(group.id, draft.version));

    expect((await groupOf(group.id)).condition).toBe('{"country":"FR"}');
    expect(await sdkValue(featureId, { country: 'FR' })).toBe('in');
    expect(await sdkValue(featureId, { country: 'DE' })).toBe('out');
  });

  it('settles a values conflict with a union on rebase', async () => {
    const { group } = await listGroupInUse(['a']);
    const draft = await newDraft(group.id);
    await ok(v1('POST', `${revisions(group.id)}/${draft.version}/items/add`, { items: ['b'] }));
    await ok(v1('POST', `/saved-groups/${group.id}`, { values: ['a', 'c'] }));

    await ok(v1('POST', `${revisions(group.id)}/${draft.version}/rebase`, { conflictResolutions: { values: 'union' } }));
    await ok(publish(group.id, draft.version));

    expect((await groupOf(group.id)).values).toEqual(['a', 'c', 'b']);
  });
});

describe('lifecycle', () => {
  it('discards a draft, refuses to publish or edit it, and reopens it', async () => {
    const { group } = await conditionGroupInUse();
    const draft = await newDraft(group.id);

    const discarded = await ok(v1('POST', `${revisions(group.id)}/${draft.version}/discard`, { reason: 'not now' }));
    const publishRefused = await publish(group.id, draft.version);
    const editRefused = await v1('PUT', `${revisions(group.id)}/${draft.version}/condition`, { condition: '{"a":1}' });
    const reopened = await ok(v1('POST', `${revisions(group.id)}/${draft.version}/reopen`, {}));
    const reopenRefused = await v1('POST', `${revisions(group.id)}/${draft.version}/reopen`, {});

    expectReferenceRevision(discarded.revision);
    expect(discarded.revision).toMatchObject({ status: 'discarded', resolution: { action: 'discarded' } });
    expect(discarded.revision.activityLog.at(-1)).toMatchObject({ action: 'discarded', description: 'not now' });
    expect(publishRefused.status).toBe(400);
    expect(publishRefused.body.message).toBe('Cannot publish a revision with status "discarded"');
    expect(editRefused.status).toBe(400);
    expect(reopened.revision.status).toBe('draft');
    expect(reopened.revision.resolution).toBeUndefined();
    expect(reopenRefused.status).toBe(400);
  });

  it('reverts to the first version published at once, and as a draft', async () => {
    const { group, featureId } = await conditionGroupInUse('{"country":"US"}');
    const draft = await newDraft(group.id);
    await ok(v1('PUT', `${revisions(group.id)}/${draft.version}/condition`, { condition: '{"country":"FR"}' }));
    await ok(publish(group.id, draft.version));
    expect(await sdkValue(featureId, { country: 'US' })).toBe('out');

    const asDraft = await ok(v1('POST', `${revisions(group.id)}/1/revert`, {}));
    const refusedDraftTarget = await v1('POST', `${revisions(group.id)}/${asDraft.revision.version}/revert`, { strategy: 'publish' });
    const published = await ok(v1('POST', `${revisions(group.id)}/1/revert`, { strategy: 'publish' }));
    const nothingLeft = await v1('POST', `${revisions(group.id)}/1/revert`, { strategy: 'publish' });

    expectReferenceRevision(asDraft.revision);
    expect(asDraft.revision).toMatchObject({ status: 'draft', title: 'Revert to v1', proposedSavedGroup: { condition: '{"country":"US"}' } });
    expect(asDraft.revision.revertedFrom).toBeDefined();
    expect(refusedDraftTarget.status).toBe(400);
    expect(refusedDraftTarget.body.message).toMatch(/merged revision/);
    expect(published.revision).toMatchObject({ status: 'merged', version: asDraft.revision.version + 1 });
    expect((await groupOf(group.id)).condition).toBe('{"country":"US"}');
    expect(await sdkValue(featureId, { country: 'US' })).toBe('in');
    expect(nothingLeft.status).toBe(400);
    expect(nothingLeft.body.message).toMatch(/already the live version/);
  });

  it('stores a scheduled publish as GrowthBook does, locks edits when asked, and cancels it', async () => {
    const { group } = await conditionGroupInUse();
    const draft = await newDraft(group.id);
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const path = `${revisions(group.id)}/${draft.version}`;

    const past = await v1('POST', `${path}/schedule-publish`, { scheduledPublishAt: '2020-01-01T00:00:00Z' });
    const scheduled = await ok(v1('POST', `${path}/schedule-publish`, { scheduledPublishAt: at, lockEdits: true }));
    const locked = await v1('PUT', `${path}/condition`, { condition: '{"a":1}' });
    const cancelled = await ok(v1('POST', `${path}/schedule-publish`, { scheduledPublishAt: null }));
    const nothingToCancel = await v1('POST', `${path}/schedule-publish`, { scheduledPublishAt: null });

    expect(past.status).toBe(400);
    expect(past.body.message).toMatch(/scheduledPublishAt/);
    expectReferenceRevision(scheduled.revision);
    expect(scheduled.revision).toMatchObject({ scheduledPublishAt: at, scheduledPublishLockEdits: true, scheduledPublishAttempts: 0, autoPublishEnabledBy: expect.any(String) });
    expect(locked.status).toBe(400);
    expect(locked.body.message).toMatch(/locked/);
    expect(cancelled.revision.scheduledPublishAt).toBeUndefined();
    expect(cancelled.revision.activityLog.map((e: any) => e.action)).toEqual(['created', 'scheduled-publish', 'scheduled-publish-canceled']);
    expect(nothingToCancel.status).toBe(400);
  });

  it('holds other drafts while one is scheduled with lockOthers, and publishes a scheduled draft without its schedule', async () => {
    const { group } = await conditionGroupInUse();
    const [held, other] = [await newDraft(group.id), await newDraft(group.id)];
    await ok(v1('PUT', `${revisions(group.id)}/${other.version}/condition`, { condition: '{"country":"PT"}' }));
    const at = new Date(Date.now() + 3_600_000).toISOString();
    await ok(v1('POST', `${revisions(group.id)}/${held.version}/schedule-publish`, { scheduledPublishAt: at, lockOthers: true }));

    const blocked = await publish(group.id, other.version);
    const published = await ok(publish(group.id, held.version));

    expect(blocked.status).toBe(422);
    expect(blocked.body.details.gates).toEqual([expect.objectContaining({ type: 'pending-schedule' })]);
    expect((await groupOf(group.id)).condition).toBe('{"country":"US"}');
    expect(published.revision.status).toBe('merged');
    expect(published.revision.scheduledPublishAt).toBeUndefined();
    expect((await publish(group.id, other.version)).status).toBe(200);
  });
});

describe('reviews', () => {
  /** A second person: an engineer member with a personal access token. */
  async function reviewer() {
    const member = await addMember(org.orgId, { name: 'Reviewer', email: `reviewer${++counter}@example.com`, role: 'engineer', projectRoles: [] });
    return (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'reviewer token' })).secret;
  }

  it('requests review, takes another person\'s approval, keeps it through an edit no rule resets it on, and is published', async () => {
    const { group } = await conditionGroupInUse();
    const draft = (await ok(v1('POST', revisions(group.id), {}, org.admin.token))).revision;
    const path = `${revisions(group.id)}/${draft.version}`;
    const other = await reviewer();

    const requested = await ok(v1('POST', `${path}/request-review`, {}, org.admin.token));
    const ownVerdict = await v1('POST', `${path}/submit-review`, { decision: 'approve' }, org.admin.token);
    const byKey = await v1('POST', `${path}/submit-review`, { decision: 'approve' }, org.keys.admin);
    const approved = await ok(v1('POST', `${path}/submit-review`, { decision: 'approve', comment: 'fine' }, other));
    const edited = await ok(v1('PUT', `${path}/condition`, { condition: '{"country":"NL"}' }, org.admin.token));

    expectReferenceRevision(requested.revision);
    expect(requested.revision.status).toBe('pending-review');
    expect(ownVerdict.status).toBe(400);
    expect(ownVerdict.body.message).toMatch(/you created/);
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toMatch(/personal access token/);
    expectShape(contract.postSavedGroupRevisionSubmitReview, approved);
    expectReferenceRevision(approved.revision);
    expect(approved.revision.status).toBe('approved');
    expect(approved.revision.reviews).toEqual([expect.objectContaining({ decision: 'approve' })]);
    expect(approved.revision.activityLog.at(-1)).toMatchObject({ action: 'approved', description: 'fine' });
    // No approval rule here resets a review on change (GrowthBook's resetReviewOnChange).
    expect(edited.revision.status).toBe('approved');
    expect(edited.revision.reviews).toEqual([expect.not.objectContaining({ stale: true })]);

    const requestedChanges = await ok(v1('POST', `${path}/submit-review`, { decision: 'request-changes' }, other));
    const undone = await ok(v1('POST', `${path}/undo-review`, {}, other));
    const recalled = await ok(v1('POST', `${path}/recall-review`, {}, org.admin.token));

    expect(requestedChanges.revision.status).toBe('changes-requested');
    expect(undone.revision.status).toBe('pending-review');
    expect(recalled.revision).toMatchObject({ status: 'draft', reviews: [] });
    expect(recalled.revision.activityLog.map((e: any) => e.action)).toEqual([
      'created',
      'review-requested',
      'approved',
      'updated',
      'requested-changes',
      'review-retracted',
      'recalled',
    ]);
    await ok(publish(group.id, draft.version));
    expect((await groupOf(group.id)).condition).toBe('{"country":"NL"}');
  });

  it('refuses review actions a revision\'s status does not allow, changing nothing', async () => {
    const { group } = await conditionGroupInUse();
    const draft = await newDraft(group.id);
    const path = `${revisions(group.id)}/${draft.version}`;
    const other = await reviewer();

    const responses = await Promise.all([
      v1('POST', `${path}/submit-review`, { decision: 'approve' }, other),
      v1('POST', `${path}/recall-review`, {}),
      v1('POST', `${path}/undo-review`, {}, other),
      v1('POST', `${path}/request-review`, { autoPublishOnApproval: 'yes' }),
      v1('POST', `${path}/submit-review`, { decision: 'maybe' }, other),
    ]);

    expect(responses.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    expect(responses[3]!.body.message).toMatch(/autoPublishOnApproval/);
    expect(responses[4]!.body.message).toMatch(/decision/);
    const after = (await ok(v1('GET', path))).revision;
    expect(after).toMatchObject({ status: 'draft', reviews: [], dateUpdated: draft.dateUpdated });
  });
});

describe('approvals', () => {
  // An organization of its own: its approval rule must not reach the other tests.
  let gated: TestOrg;
  const call = (key: string, method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key, body });
  const engineer = () => gated.keys.engineer;

  beforeAll(async () => {
    gated = await createTestOrg('Approvals');
    await ok(call(gated.keys.admin, 'PUT', '/settings/approvals', { approvalFlows: { savedGroups: [{ required: true, requireMetadataReview: false, resetReviewOnChange: true }] } }));
  });

  async function gatedGroup() {
    return (await ok(call(engineer(), 'POST', '/saved-groups', { name: `Gated ${++counter}`, condition: '{"country":"US"}' }))).savedGroup;
  }

  it('blocks publishing an unapproved condition change with GrowthBook\'s approval-required gate, and publishes it once another person approved', async () => {
    const group = await gatedGroup();
    const draft = (await ok(call(gated.admin.token, 'PUT', `${revisions(group.id)}/new/condition`, { condition: '{"country":"FR"}' }))).revision;
    const path = `${revisions(group.id)}/${draft.version}`;

    const blocked = await call(engineer(), 'POST', `${path}/publish`, {});

    expect(blocked.status).toBe(422);
    expect(blocked.body.code).toBe('publish_blocked');
    expect(blocked.body.details.gates).toEqual([
      expect.objectContaining({ type: 'approval-required', requiresPermission: 'bypassApprovalChecks', resolution: expect.objectContaining({ action: 'request-review' }) }),
    ]);
    expect((await ok(call(engineer(), 'GET', `/saved-groups/${group.id}`))).savedGroup.condition).toBe('{"country":"US"}');

    const member = await addMember(gated.orgId, { name: 'Second', email: `second${++counter}@example.com`, role: 'engineer', projectRoles: [] });
    const second = (await createApiKey({ orgId: gated.orgId, role: 'user', memberId: member.id, description: 'second' })).secret;
    await ok(call(gated.admin.token, 'POST', `${path}/request-review`, {}));
    await ok(call(second, 'POST', `${path}/submit-review`, { decision: 'approve' }));
    const edited = (await ok(call(gated.admin.token, 'PUT', `${path}/condition`, { condition: '{"country":"BE"}' }))).revision;
    const blockedAgain = await call(engineer(), 'POST', `${path}/publish`, {});
    await ok(call(second, 'POST', `${path}/submit-review`, { decision: 'approve' }));
    const published = await call(engineer(), 'POST', `${path}/publish`, {});

    // The rule resets a review on change: the edit sent the approved draft back, its verdict stale.
    expect(edited.status).toBe('pending-review');
    expect(edited.reviews).toEqual([expect.objectContaining({ decision: 'approve', stale: true })]);
    expect(blockedAgain.status).toBe(422);

    expect(published.status).toBe(200);
    expect(published.body.bypassedGates).toBeUndefined();
    expect((await ok(call(engineer(), 'GET', `/saved-groups/${group.id}`))).savedGroup.condition).toBe('{"country":"BE"}');
  });

  it('lets a caller who may bypass approval publish an unapproved draft, reporting the gate bypassed', async () => {
    const group = await gatedGroup();
    const draft = (await ok(call(engineer(), 'PUT', `${revisions(group.id)}/new/condition`, { condition: '{"country":"JP"}' }))).revision;

    const published = await ok(call(gated.keys.admin, 'POST', `${revisions(group.id)}/${draft.version}/publish`, {}));

    expectValid(validPublish, published);
    expect(published.bypassedGates).toEqual([{ type: 'approval-required', outcome: 'bypassed', via: 'bypassApprovalPermission' }]);
  });

  it('publishes metadata alone without review where the rule exempts metadata', async () => {
    const group = await gatedGroup();
    const draft = (await ok(call(engineer(), 'PUT', `${revisions(group.id)}/new/metadata`, { name: 'Renamed freely' }))).revision;

    const published = await call(engineer(), 'POST', `${revisions(group.id)}/${draft.version}/publish`, {});

    expect(published.status).toBe(200);
  });

  it('refuses a direct update that needs review (400 naming bypassApproval, 403 without the permission), changing nothing; bypasses with it', async () => {
    const group = await gatedGroup();

    const refused = await call(engineer(), 'POST', `/saved-groups/${group.id}`, { condition: '{"country":"IT"}' });
    const forbidden = await call(engineer(), 'POST', `/saved-groups/${group.id}`, { condition: '{"country":"IT"}', bypassApproval: true });
    const archive = await call(engineer(), 'POST', `/saved-groups/${group.id}/archive`, {});
    const metadata = await call(engineer(), 'POST', `/saved-groups/${group.id}`, { name: 'Metadata is exempt' });

    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/bypassApproval/);
    expect(forbidden.status).toBe(403);
    expect(archive.status).toBe(200);
    expect(metadata.status).toBe(200);
    expect((await ok(call(engineer(), 'GET', `/saved-groups/${group.id}`))).savedGroup.condition).toBe('{"country":"US"}');
    const bypassed = await call(gated.keys.admin, 'POST', `/saved-groups/${group.id}`, { condition: '{"country":"IT"}', bypassApproval: true });
    expect(bypassed.status).toBe(200);
    expect(bypassed.body.savedGroup.condition).toBe('{"country":"IT"}');
  });
});

describe('archive, unarchive and references', () => {
  it('lists what references a group, refuses to archive it while referenced without ignoreWarnings, and archives and unarchives it', async () => {
    const { group, featureId } = await conditionGroupInUse();
    const nested = (await ok(v1('POST', '/saved-groups', { name: 'Nested', condition: `{"$and":[{"$inGroup":"${group.id}"}]}` }))).savedGroup;

    const references = await ok(v1('GET', `/saved-groups/${group.id}/references`));
    const blocked = await v1('POST', `/saved-groups/${group.id}/archive`, {});
    const archived = await ok(v1('POST', `/saved-groups/${group.id}/archive`, { ignoreWarnings: true }));
    const unarchived = await ok(v1('POST', `/saved-groups/${group.id}/unarchive`));

    expectValid(validReferences, references);
    expect(references).toEqual({ features: [{ id: featureId }], experiments: [], savedGroups: [{ id: nested.id, groupName: 'Nested', projects: [] }] });
    expect(blocked.status).toBe(422);
    expect(blocked.body.message).toMatch(/ignoreWarnings/);
    expect(blocked.body.code).toBe('publish_blocked');
    expect(blocked.body.details.gates).toEqual([expect.objectContaining({ type: 'archive-dependents', override: 'ignoreWarnings' })]);
    expect(blocked.body.details.gates[0].messages[0]).toMatch(/features: 1, experiments: 0, saved groups: 1/);
    expectValid(validArchive, archived);
    expect(archived).toMatchObject({ savedGroup: { archived: true }, bypassedGates: [{ type: 'archive-dependents', outcome: 'bypassed', via: 'ignoreWarnings' }] });
    expect(unarchived.savedGroup.archived).toBe(false);
    expect((await v1('GET', '/saved-groups/grp_nope/references')).status).toBe(404);
  });

  it('stages an archive in a draft and checks dependents when it is published', async () => {
    const { group } = await conditionGroupInUse();
    const staged = await ok(v1('PUT', `${revisions(group.id)}/new/archive`, { archived: true }));

    const blocked = await publish(group.id, staged.revision.version);
    const afterBlocked = await groupOf(group.id);
    const published = await ok(publish(group.id, staged.revision.version, { ignoreWarnings: true }));

    expect(blocked.status).toBe(422);
    expect(afterBlocked.archived).toBeFalsy();
    expect(published.bypassedGates).toEqual([{ type: 'archive-dependents', outcome: 'bypassed', via: 'ignoreWarnings' }]);
    expect((await groupOf(group.id)).archived).toBe(true);
  });

  it('keeps a read-only key out of every write', async () => {
    const { group } = await conditionGroupInUse();

    const responses = await Promise.all([
      v1('POST', revisions(group.id), {}, org.keys.readonly),
      v1('POST', `/saved-groups/${group.id}/archive`, {}, org.keys.readonly),
    ]);

    expect(responses.map((r) => r.status)).toEqual([403, 403]);
    expect(await revisionCount(group.id)).toBe(0);
  });
});

describe('concurrency, through two servers on one table', () => {
  let other: { baseUrl: string; close(): void };
  beforeAll(async () => {
    other = await startServerProcess();
  });
  afterAll(() => other.close());

  /** The same publish, sent to the server in the other process. */
  async function publishElsewhere(groupId: string, version: number) {
    const response = await fetch(`${other.baseUrl}/api/v1${revisions(groupId)}/${version}/publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.keys.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('lands both of two drafts from one base published at once when they change different fields', async () => {
    const { group } = await conditionGroupInUse();
    const [a, b] = [await newDraft(group.id), await newDraft(group.id)];
    await ok(v1('PUT', `${revisions(group.id)}/${a.version}/metadata`, { name: 'Named by A' }));
    await ok(v1('PUT', `${revisions(group.id)}/${b.version}/condition`, { condition: '{"country":"BR"}' }));

    const responses = await Promise.all([publish(group.id, a.version), publishElsewhere(group.id, b.version)]);

    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(await groupOf(group.id)).toMatchObject({ name: 'Named by A', condition: '{"country":"BR"}' });
  });

  it('lands exactly one of two conflicting drafts published at once; the other gets the merge conflict', async () => {
    const { group } = await conditionGroupInUse();
    const [a, b] = [await newDraft(group.id), await newDraft(group.id)];
    await ok(v1('PUT', `${revisions(group.id)}/${a.version}/condition`, { condition: '{"country":"AR"}' }));
    await ok(v1('PUT', `${revisions(group.id)}/${b.version}/condition`, { condition: '{"country":"CL"}' }));

    const responses = await Promise.all([publish(group.id, a.version), publishElsewhere(group.id, b.version)]);

    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = responses.findIndex((r) => r.status === 200);
    const loser = responses[1 - winner]!;
    expect(loser.body.code).toBe('conflict');
    expect(loser.body.details.conflicts.map((c: any) => c.field)).toEqual(['condition']);
    expect((await groupOf(group.id)).condition).toBe(winner === 0 ? '{"country":"AR"}' : '{"country":"CL"}');
    const losing = await ok(v1('GET', `${revisions(group.id)}/${[a, b][1 - winner]!.version}`));
    expect(losing.revision.status).toBe('draft');
  });
});
