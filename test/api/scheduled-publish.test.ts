import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { fireDueBoundaries } from '../../functions/scheduler/fire-schedule-boundaries';
import { ensureTable } from '../../infra/local/dynamodb';
import * as contract from '../../shared/contracts/scheduled-publish';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { queryAll } from '../../shared/db/repository';
import { SCHEDULED_PUBLISH_MAX_ATTEMPTS } from '../../shared/domain/publish-failure-policy';
import { createApiKey, revokeApiKey } from '../../shared/store/api-keys';
import { dueScheduleBoundaries } from '../../shared/store/schedule-boundaries';
import { fireScheduledPublish } from '../../shared/use-cases/scheduled-publish';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

// A table of its own: the due index spans organizations, so the scheduler runs here must fire no
// other test file's boundaries (nor theirs ours).
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-scheduled-publish';

let api: Api;
let org: TestOrg;
let clientKey: string;
const validRevision = referenceSchemaValidator('FeatureRevisionV2', 'growthbook-5.0.1-openapi.yaml');

beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  api = await startApi();
  org = await createTestOrg('Scheduled publish');
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});
afterAll(async () => {
  await api.close();
  process.env.TABLE_NAME = sharedTable;
});

const v1 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });
const v2 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v2${path}`, { key, body });

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

/** A feature on in production with default `blue`, and a draft of it setting `value`. */
async function featureWithDraft(value = 'green') {
  const id = `scheduled-${++counter}`;
  await ok(v1('POST', '/features', { id, valueType: 'string', defaultValue: 'blue', environments: { production: { enabled: true, rules: [] } } }));
  const { revision } = await ok(v2('POST', `/features/${id}/revisions`, { comment: 'later' }));
  await ok(v2('PUT', `/features/${id}/revisions/${revision.version}/default-value`, { defaultValue: value }));
  return { id, version: revision.version as number };
}

const schedule = (id: string, version: number, body: Record<string, unknown>, key = org.keys.admin) =>
  v2('POST', `/features/${id}/revisions/${version}/schedule-publish`, body, key);
const revisionOf = async (id: string, version: number) => (await ok(v2('GET', `/features/${id}/revisions/${version}`))).revision;
const liveDefault = async (id: string) => (await ok(v1('GET', `/features/${id}`))).feature.defaultValue;

async function sdkValue(id: string) {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  return new GrowthBook({ attributes: { id: 'u1' } }).initSync({ payload }).getFeatureValue(id, 'none');
}

const boundaryOf = async (id: string, version: number, when: string) =>
  (await db.get({ TableName: tableName(), Key: keys.revisionPublishBoundary(org.orgId, when, id, version), ConsistentRead: true })).Item;

/** The events recorded for the feature, oldest first. */
async function eventsOf(featureId: string) {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org.orgId}`, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return items.filter((item) => item.object?.id === featureId);
}

describe('arming and cancelling', () => {
  it('arms a publish for a date: the revision carries GrowthBook’s schedule fields and SDKs see nothing yet', async () => {
    const { id, version } = await featureWithDraft();

    const response = await schedule(id, version, { scheduledPublishAt: '2041-01-01T10:00:00+01:00', lockEdits: true });

    expect(response.status).toBe(200);
    expectShape(contract.postFeatureRevisionSchedulePublishV2, response.body);
    expectReferenceRevision(response.body.revision);
    expect(response.body.revision).toMatchObject({
      status: 'draft',
      autoPublishOnApproval: true,
      scheduledPublishAt: at(0),
      scheduledPublishLockEdits: true,
    });
    expect(response.body.revision.scheduledPublishLockOthers).toBeUndefined();
    expect(await boundaryOf(id, version, at(0))).toBeDefined();
    expect(await sdkValue(id)).toBe('blue');
    expect((await eventsOf(id)).map((event) => event.event)).toContain('feature.revision.publishScheduleChanged');
  });

  it('cancels with null: the fields and the boundary are gone, and the scheduler publishes nothing', async () => {
    const { id, version } = await featureWithDraft();
    await ok(schedule(id, version, { scheduledPublishAt: at(1), lockOthers: true }));

    const response = await schedule(id, version, { scheduledPublishAt: null });

    expect(response.status).toBe(200);
    expectReferenceRevision(response.body.revision);
    for (const field of ['autoPublishOnApproval', 'scheduledPublishAt', 'scheduledPublishLockOthers', 'autoPublishEnabledBy']) {
      expect(response.body.revision[field]).toBeUndefined();
    }
    expect(await boundaryOf(id, version, at(1))).toBeUndefined();
    await fireDueBoundaries({ now: after(at(1)) });
    expect(await liveDefault(id)).toBe('blue');
  });

  it.each([
    ['a date in the past', { scheduledPublishAt: '2020-01-01T00:00:00Z' }, /must be in the future/],
    ['a date that is none', { scheduledPublishAt: 'tomorrow' }, /Invalid scheduledPublishAt date/],
    ['no date field', {}, /scheduledPublishAt/],
    ['an unknown field', { scheduledPublishAt: at(2), publishNow: true }, /publishNow/],
  ])('answers 400 to %s and changes nothing', async (_name, body, message) => {
    const { id, version } = await featureWithDraft();
    const before = await revisionOf(id, version);

    const response = await schedule(id, version, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await revisionOf(id, version)).toEqual(before);
  });

  it('refuses to schedule a revision that is not an open draft', async () => {
    const { id, version } = await featureWithDraft();
    await ok(v2('POST', `/features/${id}/revisions/${version}/discard`, {}));

    const response = await schedule(id, version, { scheduledPublishAt: at(3) });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/status "discarded"/);
  });

  it('answers 403 to a caller who may not publish, and 404 for a revision that does not exist', async () => {
    const { id, version } = await featureWithDraft();

    const readonly = await schedule(id, version, { scheduledPublishAt: at(4) }, org.keys.readonly);
    const missing = await schedule(id, 99, { scheduledPublishAt: at(4) });

    expect(readonly.status).toBe(403);
    expect(missing.status).toBe(404);
    expect((await revisionOf(id, version)).scheduledPublishAt).toBeUndefined();
  });

  it('keeps a requested approval bypass only for a caller who may bypass approvals', async () => {
    const first = await featureWithDraft();
    const second = await featureWithDraft();

    const byAdmin = await ok(schedule(first.id, first.version, { scheduledPublishAt: at(5), bypassApproval: true }));
    const byEngineer = await ok(schedule(second.id, second.version, { scheduledPublishAt: at(5), bypassApproval: true }, org.keys.engineer));

    expect(byAdmin.revision.scheduledPublishBypassApproval).toBe(true);
    expect(byEngineer.revision.scheduledPublishBypassApproval).toBeUndefined();
  });
});

describe('locks', () => {
  it('freezes the draft’s content while lockEdits holds, and lets a rebase through', async () => {
    const { id, version } = await featureWithDraft();
    await ok(schedule(id, version, { scheduledPublishAt: at(6), lockEdits: true }));

    const edit = await v2('PUT', `/features/${id}/revisions/${version}/default-value`, { defaultValue: 'red' });
    const rebase = await v2('POST', `/features/${id}/revisions/${version}/rebase`, {});

    expect(edit.status).toBe(400);
    expect(edit.body.message).toMatch(/locked for edits by its scheduled publish/);
    expect(rebase.status).toBe(200);
    expect((await revisionOf(id, version)).defaultValue).toBe('green');
  });

  it('holds back other drafts’ publishes while lockOthers holds, and refuses a second locking schedule', async () => {
    const { id, version } = await featureWithDraft();
    const { revision: other } = await ok(v2('POST', `/features/${id}/revisions`, {}));
    await ok(v2('POST', `/features/${id}/revisions/${other.version}/toggle`, { environment: 'production', enabled: false }));
    await ok(schedule(id, version, { scheduledPublishAt: at(7), lockOthers: true }));

    const publish = await v2('POST', `/features/${id}/revisions/${other.version}/publish`, {});
    const second = await schedule(id, other.version, { scheduledPublishAt: at(8), lockOthers: true });

    expect(publish.status).toBe(400);
    expect(publish.body.message).toMatch(/locks other drafts/);
    expect(second.status).toBe(400);
    expect(second.body.message).toMatch(new RegExp(`Revision ${version} already has a scheduled publish that locks other drafts`));
    expect(await sdkValue(id)).toBe('blue');
  });
});

describe('firing', () => {
  it('publishes the draft once its time comes, through the scheduler, and the SDK sees it on the next request', async () => {
    const { id, version } = await featureWithDraft('green');
    await ok(schedule(id, version, { scheduledPublishAt: at(10) }));
    // Earlier tests' schedules, due before this one, fire first; then a run before its time fires nothing.
    await fireDueBoundaries({ now: new Date(Date.parse(at(10)) - 60_000) });
    expect(await fireDueBoundaries({ now: new Date(Date.parse(at(10)) - 60_000) })).toMatchObject({ fired: 0 });

    await fireDueBoundaries({ now: after(at(10)) });

    const revision = await revisionOf(id, version);
    expect(revision.status).toBe('published');
    expect(revision.scheduledPublishAt).toBeUndefined();
    expectReferenceRevision(revision);
    expect(await liveDefault(id)).toBe('green');
    expect(await sdkValue(id)).toBe('green');
    expect(await boundaryOf(id, version, at(10))).toBeUndefined();
    const published = (await eventsOf(id)).filter((event) => event.event === 'feature.revision.published');
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ data: { object: { featureId: id, version, status: 'published', defaultValue: 'green' } } });
    // A new default value changes every environment the feature is on in.
    const { environments } = (await ok(v1('GET', `/features/${id}`))).feature;
    const on = Object.keys(environments).filter((env) => environments[env].enabled);
    expect(on).toContain('production');
    expect([...published[0]!.environments].sort()).toEqual(on.sort());
  });

  it('publishes exactly once when two schedulers fire the same table at the same time', async () => {
    const drafts = await Promise.all([featureWithDraft('one'), featureWithDraft('two'), featureWithDraft('three')]);
    await Promise.all(drafts.map(({ id, version }) => ok(schedule(id, version, { scheduledPublishAt: at(11) }))));
    const versionsBefore = await Promise.all(drafts.map(async ({ id }) => (await ok(v1('GET', `/features/${id}`))).feature.revision.version));
    // Earlier tests' schedules fire first, so the runs below find these three only.
    await fireDueBoundaries({ now: new Date(Date.parse(at(11)) - 1) });

    const [first, second] = await Promise.all([fireDueBoundaries({ now: after(at(11)) }), fireDueBoundaries({ now: after(at(11)) })]);
    const third = await fireDueBoundaries({ now: after(at(11)) });

    expect(first.fired + second.fired).toBe(3);
    expect(first.failed + second.failed).toBe(0);
    expect(third.fired + third.skipped + third.failed).toBe(0);
    for (const [i, { id, version }] of drafts.entries()) {
      const feature = (await ok(v1('GET', `/features/${id}?withRevisions=published`))).feature;
      expect(feature.defaultValue).toBe(['one', 'two', 'three'][i]);
      expect(feature.revision.version).toBe(version);
      expect(versionsBefore[i]).toBe(1);
      expect(feature.revisions.filter((revision: { status: string }) => revision.status === 'published')).toHaveLength(2);
      expect((await eventsOf(id)).filter((event) => event.event === 'feature.revision.published')).toHaveLength(1);
    }
  });

  it('answers one run of two firing one boundary with the publish and the other with nothing to do', async () => {
    const { id, version } = await featureWithDraft();
    await ok(schedule(id, version, { scheduledPublishAt: at(12) }));
    const boundary = { orgId: org.orgId, at: at(12), publish: { featureId: id, version } };

    const outcomes = await Promise.all([fireScheduledPublish(boundary, after(at(12))), fireScheduledPublish(boundary, after(at(12)))]);

    expect([...outcomes].sort()).toEqual(['published', 'taken']);
    expect(await liveDefault(id)).toBe('green');
  });

  it('removes the boundary of a draft published by hand before its time, publishing nothing more', async () => {
    const { id, version } = await featureWithDraft();
    await ok(schedule(id, version, { scheduledPublishAt: at(13) }));
    await ok(v2('POST', `/features/${id}/revisions/${version}/publish`, {}));

    const outcome = await fireScheduledPublish({ orgId: org.orgId, at: at(13), publish: { featureId: id, version } }, after(at(13)));

    expect(outcome).toBe('stale');
    expect(await boundaryOf(id, version, at(13))).toBeUndefined();
    expect((await eventsOf(id)).filter((event) => event.event === 'feature.revision.published')).toHaveLength(1);
  });
});

describe('retrying and giving up', () => {
  it('records a conflicting publish and retries it at GrowthBook’s backoff, then gives up after 10 attempts with publishFailed', async () => {
    const { id, version } = await featureWithDraft('green');
    const { revision: other } = await ok(v2('POST', `/features/${id}/revisions`, {}));
    await ok(v2('PUT', `/features/${id}/revisions/${other.version}/default-value`, { defaultValue: 'red' }));
    await ok(schedule(id, version, { scheduledPublishAt: at(20) }));
    await ok(v2('POST', `/features/${id}/revisions/${other.version}/publish`, {}));
    const boundary = { orgId: org.orgId, publish: { featureId: id, version } };

    const first = await fireScheduledPublish({ ...boundary, at: at(20) }, after(at(20), 0));

    expect(first).toBe('retrying');
    const held = await revisionOf(id, version);
    expect(held).toMatchObject({ status: 'draft', scheduledPublishAt: at(20), scheduledPublishAttempts: 1, autoPublishOnApproval: true });
    expect(held.scheduledPublishLastError).toMatch(/conflicts with changes published/);
    expectReferenceRevision(held);
    // The next try is a minute later, the one after two minutes later, and so on, at most 30.
    expect(await boundaryOf(id, version, at(21))).toBeDefined();
    expect((await dueScheduleBoundaries(after(at(21)), 1000)).filter((due) => due.publish?.featureId === id)).toEqual([{ ...boundary, at: at(21) }]);

    let when = at(21);
    const outcomes = [];
    for (let attempt = 2; attempt <= SCHEDULED_PUBLISH_MAX_ATTEMPTS; attempt++) {
      outcomes.push(await fireScheduledPublish({ ...boundary, at: when }, new Date(when)));
      const due = (await dueScheduleBoundaries(new Date('2042-01-01T00:00:00Z'), 1000)).filter((d) => d.publish?.featureId === id);
      if (attempt < SCHEDULED_PUBLISH_MAX_ATTEMPTS) {
        expect(due).toHaveLength(1);
        expect(Date.parse(due[0]!.at) - Date.parse(when)).toBe(Math.min(2 ** (attempt - 1), 30) * 60_000);
        when = due[0]!.at;
      } else expect(due).toEqual([]);
    }

    expect(outcomes).toEqual([...Array(SCHEDULED_PUBLISH_MAX_ATTEMPTS - 2).fill('retrying'), 'gave-up']);
    const parked = await revisionOf(id, version);
    expectReferenceRevision(parked);
    expect(parked).toMatchObject({ status: 'draft', scheduledPublishAttempts: 10, scheduledPublishGaveUpAt: new Date(when).toISOString() });
    expect(parked.scheduledPublishLastError).toMatch(/conflicts/);
    expect(parked.scheduledPublishAt).toBeUndefined();
    expect(parked.autoPublishOnApproval).toBeUndefined();
    expect(await liveDefault(id)).toBe('red');
    const failed = (await eventsOf(id)).filter((event) => event.event === 'feature.revision.publishFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data.object).toMatchObject({ featureId: id, version, terminal: false, attempts: 10, failureReason: expect.stringMatching(/conflicts/) });
  });

  it('checks the armer’s authority again when it fires: a revoked key’s publish does not run', async () => {
    const { id, version } = await featureWithDraft();
    const armer = await createApiKey({ orgId: org.orgId, role: 'admin', description: 'armer' });
    await ok(schedule(id, version, { scheduledPublishAt: at(40) }, armer.secret));
    await revokeApiKey(org.orgId, armer.record.id);

    const outcome = await fireScheduledPublish({ orgId: org.orgId, at: at(40), publish: { featureId: id, version } }, after(at(40)));

    expect(outcome).toBe('retrying');
    expect((await revisionOf(id, version)).scheduledPublishLastError).toBe('enabling user could not be resolved');
    expect(await liveDefault(id)).toBe('blue');
  });

  it('retries a conflicting publish and publishes it once a rebase settles the conflict', async () => {
    const { id, version } = await featureWithDraft('green');
    await ok(schedule(id, version, { scheduledPublishAt: at(45) }));
    const { revision: other } = await ok(v2('POST', `/features/${id}/revisions`, {}));
    await ok(v2('PUT', `/features/${id}/revisions/${other.version}/default-value`, { defaultValue: 'red' }));
    await ok(v2('POST', `/features/${id}/revisions/${other.version}/publish`, {}));
    expect(await fireScheduledPublish({ orgId: org.orgId, at: at(45), publish: { featureId: id, version } }, new Date(at(45)))).toBe('retrying');
    // The conflict resolved by a rebase keeping the draft's value: the retry publishes it.
    await ok(v2('POST', `/features/${id}/revisions/${version}/rebase`, { conflictResolutions: { defaultValue: 'overwrite' } }));

    const outcome = await fireScheduledPublish({ orgId: org.orgId, at: at(46), publish: { featureId: id, version } }, after(at(46)));

    expect(outcome).toBe('published');
    expect(await liveDefault(id)).toBe('green');
    expect((await revisionOf(id, version)).scheduledPublishAttempts).toBeUndefined();
  });
});
