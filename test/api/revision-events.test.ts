import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTable } from '../../infra/local/dynamodb';
import { startEventSink, type EventSink } from '../../infra/local/event-sink';
import { startStreamConsumers, type StreamConsumers } from '../../infra/local/streams';
import { eventPublisher } from '../../infra/stream-consumers';
import { tableName } from '../../shared/db/client';
import { queryAll } from '../../shared/db/repository';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

/**
 * GrowthBook's `feature.revision.*` events: written with the change they report, and carried by the
 * table's stream to the bus through the very publisher Lambda runs (infra/stream-consumers.ts), here
 * with the local stand-in for EventBridge that `npm start` uses.
 */

// A table of its own, so the stream carries only this file's events.
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-revision-events';
const directory = mkdtempSync(join(tmpdir(), 'switchyard-revision-events-'));
const eventsFile = join(directory, 'events.jsonl');

let api: Api;
let org: TestOrg;
let sink: EventSink;
let streams: StreamConsumers;

beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  sink = await startEventSink({ file: eventsFile, log: false });
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = sink.endpoint;
  process.env.EVENT_BUS_NAME = 'switchyard-test';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  streams = await startStreamConsumers({ endpoint: process.env.DYNAMODB_ENDPOINT!, tableName: tableName(), consumers: [eventPublisher], pollMs: 50, retryDelayMs: 10, log: false });
  api = await startApi();
  org = await createTestOrg('Revision events');
}, 60_000);

afterAll(async () => {
  await api.close();
  await streams.stop();
  await sink.close();
  rmSync(directory, { recursive: true, force: true });
  process.env.TABLE_NAME = sharedTable;
});

const v1 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.admin, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** What reached the bus, one line per event as a rule's target receives it. */
const busEvents = () =>
  existsSync(eventsFile)
    ? readFileSync(eventsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms; the bus has ${JSON.stringify(busEvents().map((e) => e['detail-type']))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The feature's events as recorded in the table, oldest first. */
async function recorded(featureId: string) {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org.orgId}`, ':prefix': 'EVENT#' },
    ConsistentRead: true,
  });
  return items.filter((item) => item.object?.id === featureId);
}

/** The fields of GrowthBook's `featureRevisionWebhookPayload`, and each event's own. */
const payloadFields = ['featureId', 'baseVersion', 'version', 'comment', 'date', 'status', 'createdBy', 'publishedBy', 'defaultValue', 'rules', 'definitions', 'environmentsEnabled', 'envPrerequisites', 'prerequisites', 'metadata'];
const ownFields: Record<string, string[]> = {
  'feature.revision.updated': ['change', 'environments'],
  'feature.revision.published': ['bulkPublishId'],
  'feature.revision.reverted': ['revertedToVersion', 'bulkPublishId'],
  'feature.revision.publishFailed': ['bulkPublishId', 'failureReason', 'terminal', 'attempts'],
};

let counter = 0;
async function newFeature() {
  const id = `evented-${++counter}`;
  await ok(
    v1('POST', '/features', {
      id,
      valueType: 'string',
      defaultValue: 'blue',
      project: '',
      tags: ['checkout'],
      environments: { production: { enabled: true, rules: [] }, dev: { enabled: false, rules: [] } },
    }),
  );
  return id;
}

describe('feature.revision.* events', () => {
  it('reach the bus for a draft’s life: created, updated, rebased, published, with GrowthBook’s payload and the environments affected', async () => {
    const id = await newFeature();
    const { revision } = await ok(v2('POST', `/features/${id}/revisions`, { comment: 'go' }));
    await ok(v2('POST', `/features/${id}/revisions/${revision.version}/toggle`, { environment: 'dev', enabled: true }));
    await ok(v2('PUT', `/features/${id}/revisions/${revision.version}/default-value`, { defaultValue: 'green' }));
    await ok(v2('POST', `/features/${id}/revisions/${revision.version}/rebase`, {}));

    await ok(v2('POST', `/features/${id}/revisions/${revision.version}/publish`, { comment: 'ship' }));

    const names = ['created', 'updated', 'updated', 'rebased', 'published'].map((name) => `feature.revision.${name}`);
    const lines = await until('the five events on the bus', () => {
      const mine = busEvents().filter((line) => line.detail.object?.id === id);
      return mine.length >= names.length ? mine : undefined;
    });
    expect(lines.map((line) => line['detail-type'])).toEqual(names);
    for (const line of lines) {
      expect(line).toMatchObject({ source: 'switchyard', detail: { orgId: org.orgId, object: { type: 'feature', id }, projects: [], tags: ['checkout'] } });
      const allowed = [...payloadFields, ...(ownFields[line['detail-type']] ?? [])];
      expect(Object.keys(line.detail.data.object).filter((key) => !allowed.includes(key))).toEqual([]);
      expect(line.detail.data.object).toMatchObject({ featureId: id, version: revision.version });
    }
    const [created, toggled, changed, , published] = lines.map((line) => line.detail);
    // A draft that changes nothing yet affects no environment; a toggle affects its own.
    expect(created.environments).toEqual([]);
    expect(created.data.object).toMatchObject({ status: 'draft', comment: 'go', defaultValue: 'blue', rules: { production: [], dev: [] } });
    expect(toggled).toMatchObject({ environments: ['dev'], data: { object: { change: 'toggle', environments: ['dev'], environmentsEnabled: { dev: true } } } });
    // A new default value affects every environment the feature would be on in.
    expect([...changed.environments].sort()).toEqual(['dev', 'production']);
    expect(changed.data.object.change).toBe('defaultValue');
    expect(published.data.object).toMatchObject({ status: 'published', comment: 'ship', defaultValue: 'green', environmentsEnabled: { production: true, dev: true } });
    expect(published.data.object.publishedBy).toEqual(expect.any(String));
    expect([...published.environments].sort()).toEqual(['dev', 'production']);
  });

  it('are recorded for discard, reopen, revert and a schedule change', async () => {
    const id = await newFeature();
    const { revision } = await ok(v2('POST', `/features/${id}/revisions`, {}));
    await ok(v2('POST', `/features/${id}/revisions/${revision.version}/discard`, {}));
    await ok(v2('POST', `/features/${id}/revisions/${revision.version}/reopen`, {}));
    await ok(v2('POST', `/features/${id}/revisions/${revision.version}/schedule-publish`, { scheduledPublishAt: '2041-06-01T00:00:00Z' }));
    await ok(v2('PUT', `/features/${id}/revisions/${revision.version}/default-value`, { defaultValue: 'green' }));
    await ok(v2('POST', `/features/${id}/revisions/${revision.version}/publish`, {}));

    await ok(v2('POST', `/features/${id}/revisions/1/revert`, { strategy: 'publish' }));

    const events = await recorded(id);
    expect(events.map((event) => event.event)).toEqual(
      ['created', 'discarded', 'reopened', 'publishScheduleChanged', 'updated', 'published', 'reverted'].map((name) => `feature.revision.${name}`),
    );
    const schedule = events[3]!;
    expect(schedule.data.object).toMatchObject({ status: 'draft' });
    const reverted = events[6]!;
    expect(reverted.data.object).toMatchObject({ status: 'published', revertedToVersion: 1, defaultValue: 'blue', baseVersion: revision.version });
    expect(reverted.environments).toEqual(['production']);
  });

  it('are not written for a change that is refused', async () => {
    const id = await newFeature();
    const { revision: first } = await ok(v2('POST', `/features/${id}/revisions`, {}));
    const { revision: second } = await ok(v2('POST', `/features/${id}/revisions`, {}));
    await ok(v2('PUT', `/features/${id}/revisions/${first.version}/default-value`, { defaultValue: 'green' }));
    await ok(v2('PUT', `/features/${id}/revisions/${second.version}/default-value`, { defaultValue: 'red' }));
    await ok(v2('POST', `/features/${id}/revisions/${first.version}/publish`, {}));
    const before = (await recorded(id)).length;

    const refused = await v2('POST', `/features/${id}/revisions/${second.version}/publish`, {});

    expect(refused.status).toBe(409);
    expect(await recorded(id)).toHaveLength(before);
  });
});
