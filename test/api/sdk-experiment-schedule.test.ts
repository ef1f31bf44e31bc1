import { GrowthBook, clearCache } from '@growthbook/growthbook';
import { runScheduler } from '../../functions/scheduler/advance-ramp-schedules';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';

/**
 * A staged experiment start as a user of the real GrowthBook SDK meets it: the experiment is not
 * served before its time, and after the scheduler's tick it runs and enrols users, with no API call
 * in between.
 */

let api: Api;
let org: TestOrg;
let clientKey: string;

const ok = (method: string, path: string, body?: unknown) => requestOk(api, org.keys.admin, method, path, body);

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
});

afterAll(async () => {
  clearCache();
  await api.close();
});

describe('a scheduled experiment start', () => {
  it('is off before its time and running after the scheduler runs at a later time', async () => {
    const startAt = new Date(Date.now() + 3_600_000).toISOString();
    const { experiment } = await ok('POST', '/experiments', {
      trackingKey: 'scheduled-checkout',
      name: 'Scheduled checkout',
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Treatment' },
      ],
      phases: [{ name: 'Main', dateStarted: startAt, coverage: 1 }],
      statusUpdateSchedule: { startAt },
    });
    const [control, treatment] = experiment.variations.map((v: { variationId: string }) => v.variationId);
    await ok('POST', '/features', {
      id: 'checkout-copy',
      valueType: 'string',
      defaultValue: 'none',
      environments: {
        production: {
          enabled: true,
          rules: [{ type: 'experiment-ref', experimentId: experiment.id, variations: [{ variationId: control, value: 'a' }, { variationId: treatment, value: 'b' }] }],
        },
      },
    });
    const staged = await ok('POST', `/experiments/${experiment.id}/start`, { skipChecklist: true });
    const enrolled: string[] = [];
    const gb = new GrowthBook({ apiHost: api.baseUrl, clientKey, attributes: { id: 'user-1' }, trackingCallback: (e) => void enrolled.push(e.key) });
    await gb.init({ timeout: 5000 });
    const before = gb.getFeatureValue('checkout-copy', 'unset');
    const enrolledBefore = [...enrolled];

    const tick = await runScheduler({ now: new Date(Date.parse(startAt) + 60_000) });
    await gb.refreshFeatures({ skipCache: true });
    const after = gb.getFeatureValue('checkout-copy', 'unset');
    gb.destroy();

    expect(staged.experiment).toMatchObject({ status: 'draft', nextScheduledStatusUpdate: { type: 'start' } });
    expect(before).toBe('none');
    expect(enrolledBefore).toEqual([]);
    expect(tick.boundaries.started).toBeGreaterThanOrEqual(1);
    expect(['a', 'b']).toContain(after);
    expect(enrolled).toEqual(['scheduled-checkout']);
    const { experiment: stored } = await ok('GET', `/experiments/${experiment.id}`);
    expect(stored).toMatchObject({ status: 'running', enhancedStatus: { status: 'Running' } });
    expect(stored).not.toHaveProperty('nextScheduledStatusUpdate');
  });
});
