import { queryAll } from '../../shared/db/repository';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

/**
 * GrowthBook's events for review actions on feature revisions (`feature.revision.reviewRequested`,
 * `approved`, `changesRequested`, `commented`, `recalled`, `reviewRetracted`) and for a saved-group
 * draft's life (`savedGroup.revision.*`): each recorded with the change it reports, with GrowthBook's
 * payload. (revision-events.test.ts follows the feature events to the bus.)
 */

let api: Api;
let org: TestOrg;
let second: { id: string; token: string; email: string };
const validSavedGroupRevision = referenceSchemaValidator('SavedGroupRevision', 'growthbook-5.0.1-openapi.yaml');

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Review events');
  const email = `second-${org.orgId}@example.com`;
  const member = await addMember(org.orgId, { name: 'Second Reviewer', email, role: 'admin', projectRoles: [] });
  second = { id: member.id, email, token: (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'second' })).secret };
});
afterAll(() => api.close());

const call = (method: string, path: string, body?: unknown, key = org.admin.token) => api.request(method, `/api${path}`, { key, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** The events recorded about `id`, oldest first. */
async function recorded(id: string) {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org.orgId}`, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return items.filter((item) => item.object?.id === id).sort((a, b) => a.SK.localeCompare(b.SK));
}

const named = async (id: string, prefix: string) => (await recorded(id)).map((event) => event.event.slice(prefix.length));

let counter = 0;

describe('feature.revision review events', () => {
  async function featureDraft() {
    const id = `reviewed-${++counter}`;
    await ok(call('POST', '/v1/features', { id, valueType: 'string', defaultValue: 'blue', environments: { production: { enabled: true, rules: [] } } }, org.keys.admin));
    const { revision } = await ok(call('POST', `/v2/features/${id}/revisions`, {}));
    await ok(call('PUT', `/v2/features/${id}/revisions/${revision.version}/default-value`, { defaultValue: 'green' }));
    return { id, path: `/v2/features/${id}/revisions/${revision.version}`, version: revision.version as number };
  }

  it('records a review request, a request for changes, a comment, a retracted verdict, a recall and an approval, with the reviewer and comment', async () => {
    const { id, path, version } = await featureDraft();

    await ok(call('POST', `${path}/request-review`, { comment: 'please look' }));
    await ok(call('POST', `${path}/submit-review`, { action: 'request-changes', comment: 'not green' }, second.token));
    await ok(call('POST', `${path}/undo-review`, {}, second.token));
    await ok(call('POST', `${path}/submit-review`, { action: 'comment', comment: 'on second thought' }, second.token));
    await ok(call('POST', `${path}/submit-review`, { action: 'comment' }, second.token));
    await ok(call('POST', `${path}/recall-review`, {}));
    await ok(call('POST', `${path}/request-review`, {}));
    await ok(call('POST', `${path}/submit-review`, { action: 'approve' }, second.token));

    const events = (await recorded(id)).filter((event) => event.event !== 'feature.revision.created' && event.event !== 'feature.revision.updated');
    // An empty comment reports nothing, as GrowthBook has it.
    expect(events.map((event) => event.event)).toEqual([
      'feature.revision.reviewRequested',
      'feature.revision.changesRequested',
      'feature.revision.reviewRetracted',
      'feature.revision.commented',
      'feature.revision.recalled',
      'feature.revision.reviewRequested',
      'feature.revision.approved',
    ]);
    const reviewer = { id: second.id, name: 'Second Reviewer', email: second.email };
    const objects = events.map((event) => event.data.object);
    expect(objects[0]).toMatchObject({ featureId: id, version, status: 'pending-review', defaultValue: 'green', reviewComment: 'please look' });
    expect(objects[1]).toMatchObject({ status: 'changes-requested', reviewer, reviewComment: 'not green' });
    expect(objects[2]).toMatchObject({ status: 'pending-review' });
    expect(objects[2].reviewer).toBeUndefined();
    expect(objects[3]).toMatchObject({ reviewer, reviewComment: 'on second thought' });
    expect(objects[4]).toMatchObject({ status: 'draft' });
    expect(objects[5]).toMatchObject({ reviewComment: null });
    expect(objects[6]).toMatchObject({ status: 'approved', reviewer, reviewComment: null });
    // Feature events keep GrowthBook's routing: the environments the draft changes.
    expect(events[6]!.environments).toContain('production');
  });

  it('records nothing for a refused review', async () => {
    const { id, path } = await featureDraft();
    const before = await recorded(id);

    const selfApproval = await call('POST', `${path}/submit-review`, { action: 'approve' });

    expect(selfApproval.status).toBeGreaterThanOrEqual(400);
    expect(await recorded(id)).toEqual(before);
  });
});

describe('savedGroup.revision events', () => {
  async function groupDraft() {
    const group = (await ok(call('POST', '/v1/saved-groups', { name: `Evented ${++counter}`, attributeKey: 'id', values: ['alice'], projects: [] }, org.keys.admin))).savedGroup;
    const { revision } = await ok(call('PUT', `/v1/saved-groups-revisions/${group.id}/new/values`, { values: ['alice', 'bob'] }));
    return { id: group.id as string, path: `/v1/saved-groups-revisions/${group.id}/${revision.version}`, version: revision.version as number, revisionId: revision.id as string };
  }

  it('records a draft’s life: created, updated (with the change), reviews, rebased, published', async () => {
    const { id, path, version, revisionId } = await groupDraft();
    await ok(call('PUT', `${path}/metadata`, { description: 'staff' }));
    await ok(call('POST', `${path}/request-review`, {}));
    await ok(call('POST', `${path}/submit-review`, { decision: 'request-changes', comment: 'and carol?' }, second.token));
    await ok(call('POST', `${path}/submit-review`, { decision: 'comment', comment: 'fine after all' }, second.token));
    await ok(call('POST', `${path}/submit-review`, { decision: 'approve' }, second.token));
    await ok(call('POST', `${path}/rebase`, {}));
    await ok(call('POST', `${path}/publish`, {}));

    expect(await named(id, 'savedGroup.revision.')).toEqual([
      'created',
      'updated',
      'updated',
      'reviewRequested',
      'changesRequested',
      'commented',
      'approved',
      'rebased',
      'published',
    ]);
    const events = await recorded(id);
    for (const event of events) {
      const { change: _change, reviewer: _reviewer, reviewComment: _comment, ...revision } = event.data.object;
      if (!validSavedGroupRevision(revision)) throw new Error(`${event.event}: ${JSON.stringify(validSavedGroupRevision.errors)}`);
      expect(event).toMatchObject({ object: { type: 'savedGroup', id }, environments: [], tags: [] });
      expect(event.data.object).toMatchObject({ id: revisionId, version });
    }
    const objects = events.map((event) => event.data.object);
    expect(objects[1]).toMatchObject({ change: 'values' });
    expect(objects[2]).toMatchObject({ change: 'metadata' });
    const reviewer = { id: second.id, name: 'Second Reviewer', email: second.email };
    expect(objects[4]).toMatchObject({ status: 'changes-requested', reviewer, reviewComment: 'and carol?' });
    expect(objects[5]).toMatchObject({ reviewer, reviewComment: 'fine after all' });
    expect(objects[6]).toMatchObject({ status: 'approved', reviewer, reviewComment: null });
    expect(objects[8]).toMatchObject({ status: 'merged', proposedSavedGroup: { values: ['alice', 'bob'] } });
  });

  it('records discarded and reopened, and a revert as reverted with the version reverted to', async () => {
    const { id, path } = await groupDraft();
    await ok(call('POST', `${path}/discard`, {}));
    await ok(call('POST', `${path}/reopen`, {}));
    await ok(call('POST', `${path}/publish`, {}));

    await ok(call('POST', `/v1/saved-groups-revisions/${id}/1/revert`, { strategy: 'publish' }));

    expect(await named(id, 'savedGroup.revision.')).toEqual(['created', 'updated', 'discarded', 'reopened', 'published', 'reverted']);
    const reverted = (await recorded(id)).at(-1)!;
    expect(reverted.data.object).toMatchObject({ status: 'merged', revertedToVersion: 1, proposedSavedGroup: { values: ['alice'] } });
  });

  it('routes an event to the projects the group is in and the ones the draft moves it to', async () => {
    const [a, b] = await Promise.all(
      ['a', 'b'].map(async (name) => (await ok(call('POST', '/v1/projects', { name: `Events ${name} ${++counter}` }, org.keys.admin))).project.id as string),
    );
    const group = (await ok(call('POST', '/v1/saved-groups', { name: `Moved ${++counter}`, condition: '{"x":1}', projects: [a] }, org.keys.admin))).savedGroup;

    await ok(call('PUT', `/v1/saved-groups-revisions/${group.id}/new/metadata`, { projects: [b] }));

    const updated = (await recorded(group.id)).find((event) => event.event === 'savedGroup.revision.updated')!;
    expect([...updated.projects].sort()).toEqual([a, b].sort());
  });

  it('records nothing for a refused change', async () => {
    const { id, path } = await groupDraft();
    const before = await recorded(id);

    const refused = await call('POST', `${path}/submit-review`, { decision: 'approve' });

    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await recorded(id)).toEqual(before);
  });
});
