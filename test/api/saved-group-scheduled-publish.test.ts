import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { fireDueBoundaries } from '../../functions/scheduler/fire-schedule-boundaries';
import { ensureTable } from '../../infra/local/dynamodb';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { queryAll } from '../../shared/db/repository';
import { SCHEDULED_PUBLISH_MAX_ATTEMPTS } from '../../shared/domain/publish-failure-policy';
import { dueScheduleBoundaries } from '../../shared/store/schedule-boundaries';
import { fireScheduledGroupPublish } from '../../shared/use-cases/saved-group-scheduled-publish';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

// A table of its own: the due index spans organizations, so the scheduler runs here fire no other
// test file's boundaries (nor theirs ours).
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-saved-group-scheduled-publish';

let api: Api;
let org: TestOrg;
let clientKey: string;
const validRevision = referenceSchemaValidator('SavedGroupRevision', 'growthbook-5.0.1-openapi.yaml');

beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  api = await startApi();
  org = await createTestOrg('Saved-group scheduled publish');
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});
afterAll(async () => {
  await api.close();
  process.env.TABLE_NAME = sharedTable;
});

const v1 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

function expectReferenceRevision(revision: unknown) {
  if (!validRevision(revision)) throw new Error(JSON.stringify(validRevision.errors, null, 2));
}

let counter = 0;
/** Each test schedules at its own minute far ahead, so what one test fires is only its own. */
const at = (minute: number) => new Date(Date.UTC(2041, 0, 1, 9, minute)).toISOString();
const after = (iso: string, minutes = 0.5) => new Date(Date.parse(iso) + minutes * 60_000);

/** A list group holding `alice`, a feature serving "in" to its members, and a draft of the group adding `bob`. */
async function groupWithDraft(values = ['alice', 'bob']) {
  const n = ++counter;
  const group = (await ok(v1('POST', '/saved-groups', { name: `Staff ${n}`, attributeKey: 'id', values: ['alice'] }))).savedGroup;
  const featureId = `gated-${n}`;
  await ok(
    v1('POST', '/features', {
      id: featureId,
      valueType: 'string',
      defaultValue: 'out',
      environments: {
        production: { enabled: true, rules: [{ type: 'force', value: 'in', savedGroupTargeting: [{ matchType: 'all', savedGroups: [group.id] }] }] },
      },
    }),
  );
  const { revision } = await ok(v1('POST', `/saved-groups-revisions/${group.id}`, { title: 'later' }));
  await ok(v1('PUT', `/saved-groups-revisions/${group.id}/${revision.version}/values`, { values }));
  return { groupId: group.id as string, featureId, version: revision.version as number };
}

const path = (groupId: string, version: number) => `/saved-groups-revisions/${groupId}/${version}`;
const schedule = (groupId: string, version: number, body: Record<string, unknown>) => v1('POST', `${path(groupId, version)}/schedule-publish`, body);
const revisionOf = async (groupId: string, version: number) => (await ok(v1('GET', path(groupId, version)))).revision;
const liveValues = async (groupId: string) => (await ok(v1('GET', `/saved-groups/${groupId}`))).savedGroup.values;

async function sdkValue(featureId: string, id: string) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  return new GrowthBook({ attributes: { id } }).initSync({ payload }).getFeatureValue(featureId, 'none');
}

const boundaryOf = async (groupId: string, version: number, when: string) =>
  (await db.get({ TableName: tableName(), Key: keys.savedGroupRevisionPublishBoundary(org.orgId, when, groupId, version), ConsistentRead: true })).Item;

/** The boundaries still due (at any date) for the group. */
const dueFor = async (groupId: string) =>
  (await dueScheduleBoundaries(new Date('2042-01-01T00:00:00Z'), 1000)).filter((due) => due.groupPublish?.savedGroupId === groupId);

/** The events recorded for the saved group, oldest first. */
async function eventsOf(groupId: string) {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org.orgId}`, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return items.filter((item) => item.object?.id === groupId);
}

describe('arming', () => {
  it('writes the boundary with the revision, and re-dating it moves the boundary', async () => {
    const { groupId, version } = await groupWithDraft();

    await ok(schedule(groupId, version, { scheduledPublishAt: at(0) }));
    const moved = await ok(schedule(groupId, version, { scheduledPublishAt: at(1) }));

    expect(moved.revision.scheduledPublishAt).toBe(at(1));
    expect(await boundaryOf(groupId, version, at(0))).toBeUndefined();
    expect(await boundaryOf(groupId, version, at(1))).toBeDefined();
    expect(await dueFor(groupId)).toEqual([{ orgId: org.orgId, at: at(1), groupPublish: { savedGroupId: groupId, version } }]);
  });
});

describe('firing', () => {
  it('publishes the draft once its time comes, through the scheduler: the live group and the SDK payload change', async () => {
    const { groupId, featureId, version } = await groupWithDraft();
    await ok(schedule(groupId, version, { scheduledPublishAt: at(10) }));
    // Earlier tests' schedules, due before this one, fire first; then a run before its time fires nothing.
    await fireDueBoundaries({ now: new Date(Date.parse(at(10)) - 60_000) });
    expect(await fireDueBoundaries({ now: new Date(Date.parse(at(10)) - 60_000) })).toMatchObject({ fired: 0 });
    expect(await sdkValue(featureId, 'bob')).toBe('out');

    const result = await fireDueBoundaries({ now: after(at(10)) });

    expect(result).toMatchObject({ fired: 1, failed: 0 });
    const revision = await revisionOf(groupId, version);
    expectReferenceRevision(revision);
    expect(revision.status).toBe('merged');
    expect(revision.scheduledPublishAt).toBeUndefined();
    expect(await liveValues(groupId)).toEqual(['alice', 'bob']);
    expect(await sdkValue(featureId, 'bob')).toBe('in');
    expect(await boundaryOf(groupId, version, at(10))).toBeUndefined();
    expect(await fireDueBoundaries({ now: after(at(10)) })).toMatchObject({ fired: 0, skipped: 0, failed: 0 });
  });

  it('publishes exactly once when two schedulers fire at the same time', async () => {
    const drafts = await Promise.all([groupWithDraft(['alice', 'one']), groupWithDraft(['alice', 'two']), groupWithDraft(['alice', 'three'])]);
    await Promise.all(drafts.map(({ groupId, version }) => ok(schedule(groupId, version, { scheduledPublishAt: at(11) }))));
    await fireDueBoundaries({ now: new Date(Date.parse(at(11)) - 1) });

    const [first, second] = await Promise.all([fireDueBoundaries({ now: after(at(11)) }), fireDueBoundaries({ now: after(at(11)) })]);

    expect(first.fired + second.fired).toBe(3);
    expect(first.failed + second.failed).toBe(0);
    for (const [i, { groupId, version }] of drafts.entries()) {
      expect(await liveValues(groupId)).toEqual(['alice', ['one', 'two', 'three'][i]]);
      const all = (await ok(v1('GET', `/saved-groups-revisions/${groupId}`))).revisions;
      // The live state recorded when the first draft was made, and the one scheduled publish.
      expect(all.filter((revision: { status: string }) => revision.status === 'merged').map((revision: { version: number }) => revision.version).sort()).toEqual([1, version]);
      expect((await eventsOf(groupId)).filter((event) => event.event === 'savedGroup.revision.published')).toHaveLength(1);
    }
  });

  it('answers one of two runs firing one boundary with the publish and the other with nothing to do', async () => {
    const { groupId, version } = await groupWithDraft();
    await ok(schedule(groupId, version, { scheduledPublishAt: at(12) }));
    const boundary = { orgId: org.orgId, at: at(12), groupPublish: { savedGroupId: groupId, version } };

    const outcomes = await Promise.all([fireScheduledGroupPublish(boundary, after(at(12))), fireScheduledGroupPublish(boundary, after(at(12)))]);

    expect([...outcomes].sort()).toEqual(['published', 'taken']);
    expect(await liveValues(groupId)).toEqual(['alice', 'bob']);
  });
});

describe('nothing left to fire', () => {
  it.each([
    ['cancelled', (groupId: string, version: number) => ok(schedule(groupId, version, { scheduledPublishAt: null }))],
    ['discarded', (groupId: string, version: number) => ok(v1('POST', `${path(groupId, version)}/discard`, {}))],
    ['published by hand', (groupId: string, version: number) => ok(v1('POST', `${path(groupId, version)}/publish`, {}))],
  ])('removes the boundary of a draft %s before its time, and the scheduler publishes nothing', async (name, act) => {
    const minute = 20 + ['cancelled', 'discarded', 'published by hand'].indexOf(name);
    const { groupId, version } = await groupWithDraft();
    await ok(schedule(groupId, version, { scheduledPublishAt: at(minute) }));
    const liveBefore = name === 'published by hand' ? ['alice', 'bob'] : ['alice'];

    await act(groupId, version);

    expect(await boundaryOf(groupId, version, at(minute))).toBeUndefined();
    expect(await dueFor(groupId)).toEqual([]);
    // The boundary is gone: a run holding it from a lagging index finds it taken and publishes nothing.
    expect(await fireScheduledGroupPublish({ orgId: org.orgId, at: at(minute), groupPublish: { savedGroupId: groupId, version } }, after(at(minute)))).toBe(
      'taken',
    );
    expect(await liveValues(groupId)).toEqual(liveBefore);
    expect((await eventsOf(groupId)).filter((event) => event.event === 'savedGroup.revision.published')).toHaveLength(name === 'published by hand' ? 1 : 0);
  });

  it('lets the schedule of a deleted group go without publishing or retrying', async () => {
    const { groupId, featureId, version } = await groupWithDraft();
    await ok(schedule(groupId, version, { scheduledPublishAt: at(25) }));
    await ok(v1('DELETE', `/features/${featureId}`));
    await ok(v1('DELETE', `/saved-groups/${groupId}`));

    const outcome = await fireScheduledGroupPublish({ orgId: org.orgId, at: at(25), groupPublish: { savedGroupId: groupId, version } }, after(at(25)));

    expect(outcome).toBe('stale');
    expect(await dueFor(groupId)).toEqual([]);
    expect((await v1('GET', `/saved-groups/${groupId}`)).status).toBe(404);
  });
});

describe('retrying and giving up', () => {
  it('records a conflicting publish, retries it at GrowthBook’s backoff, and gives up after 10 attempts with publishFailed', async () => {
    const { groupId, featureId, version } = await groupWithDraft(['alice', 'bob']);
    // Another draft changes the values too and lands first: the scheduled one now conflicts on them.
    const { revision: other } = await ok(v1('POST', `/saved-groups-revisions/${groupId}`, {}));
    await ok(v1('PUT', `${path(groupId, other.version)}/values`, { values: ['carol'] }));
    await ok(schedule(groupId, version, { scheduledPublishAt: at(30) }));
    await ok(v1('POST', `${path(groupId, other.version)}/publish`, {}));
    const boundary = { orgId: org.orgId, groupPublish: { savedGroupId: groupId, version } };

    const first = await fireDueBoundaries({ now: after(at(30), 0) });

    expect(first).toMatchObject({ fired: 1, failed: 0 });
    const held = await revisionOf(groupId, version);
    expectReferenceRevision(held);
    expect(held).toMatchObject({ status: 'draft', scheduledPublishAt: at(30), scheduledPublishAttempts: 1 });
    expect(held.scheduledPublishLastError).toMatch(/Merge conflicts/);
    // The next try is a minute later, the one after two minutes later, and so on, at most 30.
    expect(await dueFor(groupId)).toEqual([{ ...boundary, at: at(31) }]);

    let when = at(31);
    const outcomes = [];
    for (let attempt = 2; attempt <= SCHEDULED_PUBLISH_MAX_ATTEMPTS; attempt++) {
      outcomes.push(await fireScheduledGroupPublish({ ...boundary, at: when }, new Date(when)));
      const due = await dueFor(groupId);
      if (attempt < SCHEDULED_PUBLISH_MAX_ATTEMPTS) {
        expect(due).toHaveLength(1);
        expect(Date.parse(due[0]!.at) - Date.parse(when)).toBe(Math.min(2 ** (attempt - 1), 30) * 60_000);
        when = due[0]!.at;
      } else expect(due).toEqual([]);
    }

    expect(outcomes).toEqual([...Array(SCHEDULED_PUBLISH_MAX_ATTEMPTS - 2).fill('retrying'), 'gave-up']);
    const parked = await revisionOf(groupId, version);
    expectReferenceRevision(parked);
    expect(parked).toMatchObject({ status: 'draft', scheduledPublishAttempts: 10, scheduledPublishGaveUpAt: new Date(when).toISOString() });
    expect(parked.scheduledPublishLastError).toMatch(/Merge conflicts/);
    expect(parked.scheduledPublishAt).toBeUndefined();
    expect(await liveValues(groupId)).toEqual(['carol']);
    expect(await sdkValue(featureId, 'bob')).toBe('out');
    const failed = (await eventsOf(groupId)).filter((event) => event.event === 'savedGroup.revision.publishFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data.object).toMatchObject({
      id: held.id,
      version,
      status: 'draft',
      terminal: false,
      attempts: 10,
      failureReason: expect.stringMatching(/Merge conflicts/),
    });
  });
});
