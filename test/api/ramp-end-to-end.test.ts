import { GrowthBook, clearCache, type FeatureApiResponse } from '@growthbook/growthbook';
import { advanceDueSchedules } from '../../functions/scheduler/advance-ramp-schedules';
import { ensureTable } from '../../infra/local/dynamodb';
import { tableName } from '../../shared/db/client';
import { createTestOrg, startApi, type Api, type TestOrg, requestOk } from '../support/api';
import { expectReferenceRampSchedules } from '../support/reference';

/**
 * A staged rollout end to end: a rule at 0% ramps to 10%, waits for approval at 50%, then goes to
 * 100% for everyone. The API sets it up, the advancer moves it on (called with the schedule's own
 * due times rather than by waiting), and the feature and the real GrowthBook SDK follow each step.
 */

// A table of its own: the advancer serves every organization, and must not touch other test files' schedules.
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-ramp-end-to-end';

let api: Api;
let org: TestOrg;
let clientKey: string;

const FEATURE = 'new-checkout';

beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  api = await startApi();
  org = await createTestOrg('Ramp end to end');
});

afterAll(async () => {
  clearCache();
  await api.close();
  process.env.TABLE_NAME = sharedTable;
});

/** Every ramp-schedule answer is checked against GrowthBook 5.0.1's `RampSchedule` as it is answered. */
async function ok(method: string, path: string, body?: unknown, key = org.keys.admin) {
  const answer = await requestOk(api, key, method, path, body);
  if (path.startsWith('/ramp-schedules')) expectReferenceRampSchedules(answer);
  return answer;
}

/** The coverage and condition of the ramped rule, as GET /features/{id} shows it. */
async function ruleNow() {
  const { feature } = await ok('GET', `/features/${FEATURE}`);
  const { coverage, condition, enabled } = feature.environments.production.rules[0];
  return { coverage, condition, enabled };
}

/** The share of 2,000 Dutch users, and of 2,000 others, the SDK turns the feature on for. */
async function sdkShares() {
  const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
  const share = (country: string) => {
    const users = Array.from({ length: 2000 }, (_, i) => ({ id: `user-${i}`, country }));
    return users.filter((attributes) => new GrowthBook({ attributes }).initSync({ payload }).isOn(FEATURE)).length / users.length;
  };
  return { dutch: share('NL'), others: share('FR') };
}

/** Runs the advancer at the moment the schedule is due next. */
async function advanceWhenDue(scheduleId: string) {
  const { rampSchedule } = await ok('GET', `/ramp-schedules/${scheduleId}`);
  return advanceDueSchedules({ now: new Date(rampSchedule.nextProcessAt) });
}

it('ramps a rollout rule step by step, waits for a reviewer, and completes', async () => {
  await ok('POST', '/features', {
    id: FEATURE,
    valueType: 'boolean',
    defaultValue: 'false',
    environments: {
      production: {
        enabled: true,
        rules: [{ type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id', condition: '{"country":"NL"}' }],
      },
    },
  });
  clientKey = (await ok('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
  const ruleId = (await ok('GET', `/features/${FEATURE}`)).feature.environments.production.rules[0].id;
  const { rampSchedule: created } = await ok('POST', '/ramp-schedules', {
    name: 'New checkout for everyone',
    featureId: FEATURE,
    ruleId,
    steps: [
      { interval: 1, actions: [{ patch: { coverage: 0.1 } }] },
      { interval: null, holdConditions: { requiresApproval: true }, actions: [{ patch: { coverage: 0.5 } }], approvalNotes: 'Check the error rate first' },
      { interval: 1, actions: [{ patch: { coverage: 1 } }] },
    ],
    endActions: [{ patch: { condition: null } }],
  });
  const id = created.id;
  const atStart = { rule: await ruleNow(), sdk: await sdkShares() };

  // Step 1: 10% of Dutch users.
  const started = (await ok('POST', `/ramp-schedules/${id}/actions/start`)).rampSchedule;
  const atStep1 = { rule: await ruleNow(), sdk: await sdkShares() };

  // Step 2: 50%, then it waits for approval however long the advancer runs.
  const firstAdvance = await advanceWhenDue(id);
  const waiting = (await ok('GET', `/ramp-schedules/${id}`)).rampSchedule;
  const atStep2 = { rule: await ruleNow(), sdk: await sdkShares() };
  const idleAdvance = await advanceDueSchedules({ now: new Date(Date.now() + 24 * 3600 * 1000) });

  // An engineer may not approve; an experimenter (review permission) may.
  const byEngineer = await api.request('POST', `/api/v1/ramp-schedules/${id}/actions/approve-step`, { key: org.keys.engineer });
  const afterRefusal = { schedule: (await ok('GET', `/ramp-schedules/${id}`)).rampSchedule, rule: await ruleNow() };
  const byExperimenter = await api.request('POST', `/api/v1/ramp-schedules/${id}/actions/approve-step`, { key: org.keys.experimenter });
  const atStep3 = { rule: await ruleNow(), sdk: await sdkShares() };

  // Leaving the last step applies the end action (no condition) and completes.
  const lastAdvance = await advanceWhenDue(id);
  const completed = (await ok('GET', `/ramp-schedules/${id}`)).rampSchedule;
  const atEnd = { rule: await ruleNow(), sdk: await sdkShares() };
  const { feature } = await ok('GET', `/features/${FEATURE}?withRevisions=all`);

  expect(atStart).toEqual({ rule: { coverage: 0, condition: '{"country":"NL"}', enabled: true }, sdk: { dutch: 0, others: 0 } });

  expect(started).toMatchObject({ status: 'running', currentStepIndex: 0 });
  expect(atStep1.rule.coverage).toBe(0.1);
  expect(atStep1.sdk.dutch).toBeGreaterThan(0.07);
  expect(atStep1.sdk.dutch).toBeLessThan(0.13);
  expect(atStep1.sdk.others).toBe(0);

  expect(firstAdvance).toEqual({ advanced: 1, skipped: 0, failed: 0 });
  expect(waiting).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 1, nextStepAt: null });
  expect(atStep2.rule.coverage).toBe(0.5);
  expect(atStep2.sdk.dutch).toBeGreaterThan(0.45);
  expect(atStep2.sdk.dutch).toBeLessThan(0.55);
  expect(idleAdvance.advanced).toBe(0);

  expect(byEngineer.status).toBe(403);
  expect(afterRefusal.schedule).toMatchObject({ status: 'running', awaitingApproval: true, currentStepIndex: 1 });
  expect(afterRefusal.rule.coverage).toBe(0.5);
  expect(byExperimenter.status).toBe(200);
  expect(byExperimenter.body.rampSchedule).toMatchObject({ status: 'running', awaitingApproval: false, currentStepIndex: 2 });
  expectReferenceRampSchedules(byExperimenter.body);
  expect(atStep3).toEqual({ rule: { coverage: 1, condition: '{"country":"NL"}', enabled: true }, sdk: { dutch: 1, others: 0 } });

  expect(lastAdvance).toEqual({ advanced: 1, skipped: 0, failed: 0 });
  expect(completed).toMatchObject({ status: 'completed', currentStepIndex: 2, nextStepAt: null, nextProcessAt: null });
  expect(atEnd).toEqual({ rule: { coverage: 1, condition: '', enabled: true }, sdk: { dutch: 1, others: 1 } });
  expect(feature.revisions.map((revision: { comment: string }) => revision.comment).reverse().slice(1)).toEqual([
    'Ramp step 1 of 3',
    'Ramp step 2 of 3',
    'Ramp step 3 of 3',
    'Ramp completed',
  ]);
});
