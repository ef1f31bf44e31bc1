import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { payloadFromScratch, withoutDate } from '../support/payload-oracle';
import { startServerProcess } from '../support/server-process';

/**
 * Two servers on one table, as two Lambda containers are: the one in this process and one in a
 * process of its own. Writes of one organization racing each other retry their own transaction
 * conflicts, so a client sees a 409 only for a conflict of its own; every server serves a change
 * on the next request, whatever it had cached.
 */
let here: Api;
let there: { baseUrl: string; close(): void };
let org: TestOrg;

beforeAll(async () => {
  [here, there] = await Promise.all([startApi(), startServerProcess()]);
  org = await createTestOrg('Contention');
}, 60_000);
afterAll(async () => {
  there?.close();
  await here?.close();
});

/** A request to one of the two servers: even `i` here, odd `i` there. */
async function send(i: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const baseUrl = i % 2 === 0 ? here.baseUrl : there.baseUrl;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${org.keys.admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, etag: response.headers.get('etag') };
}

async function ok(method: string, path: string, body?: unknown) {
  const response = await send(0, method, `/api/v1${path}`, body);
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

it('starts 40 ramps at once through two servers, with feature edits alongside, and answers every request 200', async () => {
  const ids = Array.from({ length: 40 }, (_, i) => `ramped-${i}`);
  for (const id of ids) {
    await ok('POST', '/features', {
      id,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: { production: { enabled: true, rules: [{ id: 'rollout', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' }] } },
    });
  }
  const schedules: string[] = [];
  for (const id of ids) {
    const { rampSchedule } = await ok('POST', '/ramp-schedules', {
      name: `Ramp ${id}`,
      featureId: id,
      ruleId: 'rollout',
      steps: [{ trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 0.1 } }] }],
    });
    schedules.push(rampSchedule.id);
  }
  const { key } = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection;
  // Both servers hold the payload before the writes, so both must notice the change.
  await Promise.all([send(0, 'GET', `/api/features/${key}`), send(1, 'GET', `/api/features/${key}`)]);

  const responses = await Promise.all([
    ...schedules.map((id, i) => send(i, 'POST', `/api/v1/ramp-schedules/${id}/actions/start`)),
    ...ids.map((id, i) => send(i + 1, 'POST', `/api/v1/features/${id}`, { description: `edited ${i}`, tags: ['busy'] })),
  ]);
  const features = await Promise.all(ids.map((id) => ok('GET', `/features/${id}`)));
  const [servedHere, servedThere] = await Promise.all([send(0, 'GET', `/api/features/${key}`), send(1, 'GET', `/api/features/${key}`)]);
  const expected = await payloadFromScratch(org.orgId, 'production');

  expect(responses.filter((response) => response.status !== 200).map((response) => response.body)).toEqual([]);
  features.forEach(({ feature }, i) => {
    expect(feature.description).toBe(`edited ${i}`);
    expect(feature.environments.production.rules[0].coverage).toBe(0.1);
    // Created at 1; one revision for the start's patch and one for the edit: nothing lost, nothing twice.
    expect(feature.revision.version).toBe(3);
  });
  expect(withoutDate(servedHere.body)).toEqual(expected);
  expect(withoutDate(servedThere.body)).toEqual(expected);
  expect(servedHere.etag).toBe(servedThere.etag);
  expect(Object.values(expected.features).every((feature: any) => feature.rules[0].coverage === 0.1)).toBe(true);
}, 120_000);

it('serves a change made through one server on the next request to the other, whose payload was cached', async () => {
  await ok('POST', '/features', { id: 'visible', valueType: 'string', defaultValue: 'before', environments: { production: { enabled: true } } });
  const { key } = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection;
  const before = await send(1, 'GET', `/api/features/${key}`);
  const revalidated = await send(1, 'GET', `/api/features/${key}`, undefined, { 'if-none-match': before.etag! });

  await send(0, 'POST', '/api/v1/features/visible', { defaultValue: 'after' });
  const after = await send(1, 'GET', `/api/features/${key}`, undefined, { 'if-none-match': before.etag! });

  expect(before.body.features.visible.defaultValue).toBe('before');
  expect(revalidated.status).toBe(304);
  expect(after.status).toBe(200);
  expect(after.body.features.visible.defaultValue).toBe('after');
  expect(after.etag).not.toBe(before.etag);
});

it('loses no update when 20 features of one organization change at once through two servers', async () => {
  const ids = Array.from({ length: 20 }, (_, i) => `parallel-${i}`);
  const created = await Promise.all(ids.map((id, i) => send(i, 'POST', '/api/v1/features', { id, valueType: 'number', defaultValue: '0', environments: { production: { enabled: true } } })));
  const { key } = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection;
  await send(1, 'GET', `/api/features/${key}`);

  const responses = await Promise.all(ids.flatMap((id, i) => [1, 2].map((n) => send(i + n, 'POST', `/api/v1/features/${id}`, { tags: [`t${n}`] }))));
  const updated = await Promise.all(ids.map((id, i) => send(i, 'POST', `/api/v1/features/${id}`, { defaultValue: String(i + 1) })));
  const served = await send(1, 'GET', `/api/features/${key}`);

  expect([...created, ...responses, ...updated].map((response) => response.status).filter((status) => status !== 200)).toEqual([]);
  ids.forEach((id, i) => expect(served.body.features[id]).toEqual({ defaultValue: i + 1 }));
  expect(withoutDate(served.body)).toEqual(await payloadFromScratch(org.orgId, 'production'));
}, 120_000);
