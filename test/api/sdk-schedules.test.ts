import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { runScheduler } from '../../functions/scheduler/advance-ramp-schedules';
import { dueScheduleBoundaries } from '../../shared/store/schedule-boundaries';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * Scheduled rules as a user of the real GrowthBook SDK meets them: a rule scheduled to start is off
 * until its time and on after it, one scheduled to end is on until then, with no API call in
 * between: the scheduler bumps the stored payloads at the boundary, exactly once.
 */

let api: Api;
let org: TestOrg;
let clientKey: string;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

const flag = (id: string, scheduleRules: unknown[]) =>
  ok('POST', '/features', {
    id,
    valueType: 'boolean',
    defaultValue: 'false',
    environments: { production: { enabled: true, rules: [{ type: 'force', value: 'true', scheduleType: 'schedule', scheduleRules }] } },
  });

const fetchPayload = () => api.request('GET', `/api/features/${clientKey}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
  // Loads the handlers once, so the few seconds before a boundary are not spent compiling them.
  await ok('POST', '/features', { id: 'warm-up', valueType: 'boolean', defaultValue: 'false' });
  await fetchPayload();
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('scheduled rules', () => {
  it('turns a rule on and another off at their time, by themselves, and the scheduler bumps the payload once', async () => {
    const at = new Date(Date.now() + 4000).toISOString();
    await flag('starts-later', [
      { enabled: true, timestamp: at },
      { enabled: false, timestamp: null },
    ]);
    await flag('ends-later', [{ enabled: false, timestamp: at }]);
    const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey, attributes: { id: 'u-1' } });
    await gb.init({ timeout: 5000 });
    const before = { starts: gb.isOn('starts-later'), ends: gb.isOn('ends-later') };
    const first = await fetchPayload();
    const pending = await dueScheduleBoundaries(new Date(at), 10_000);

    while (Date.now() <= Date.parse(at)) await sleep(100);
    await runScheduler();
    const fired = await fetchPayload();
    await runScheduler();
    const settled = await fetchPayload();
    await gb.refreshFeatures({ skipCache: true });
    const after = { starts: gb.isOn('starts-later'), ends: gb.isOn('ends-later') };
    gb.destroy();

    expect(before).toEqual({ starts: false, ends: true });
    expect(after).toEqual({ starts: true, ends: false });
    expect(pending).toContainEqual({ orgId: org.orgId, at });
    // The scheduler bumps the stored payloads at the boundary: content, ETag and date move...
    expect(fired.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(fired.body.dateUpdated > first.body.dateUpdated).toBe(true);
    expect(fired.body.dateUpdated >= at).toBe(true);
    // ...once: a second run finds nothing due for it and changes nothing.
    expect(settled.body.dateUpdated).toBe(fired.body.dateUpdated);
    expect(settled.headers.get('etag')).toBe(fired.headers.get('etag'));
    expect(await dueScheduleBoundaries(new Date(at), 10_000)).not.toContainEqual({ orgId: org.orgId, at });
  });

  it('leaves a rule out of the payload while it is outside its window', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await flag('much-later', [{ enabled: true, timestamp: future }]);

    const { body } = await fetchPayload();

    expect(body.features['much-later']).toEqual({ defaultValue: false });
  });
});
