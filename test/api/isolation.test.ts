import { settle } from '../../bench/dynamo-cost';
import { SCENARIO_ASSIGNMENT_SQL, scenario, scenarioDataSourceId, type Ids, type Step } from '../../bench/scenarios';
import { dataSources } from '../../shared/store/data-sources';
import { routes, type Route } from '../../shared/contracts/registry';
import { fullPath } from '../../shared/contracts/spec';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { organizationSnapshot } from '../support/snapshot';

/**
 * Organization A holds one of everything (the bench scenario's steps before its deletes). Keys of
 * organization B, and keys of A without the permission, then try every route of the registry on
 * A's real ids: none may see or change A's data.
 */
let api: Api;
let a: TestOrg;
let b: TestOrg;
const idsA: Ids = {};

const stepOf = new Map(scenario.map((step) => [step.operationId, step]));
const step = (route: Route): Step => {
  const found = stepOf.get(route.spec.operationId);
  if (!found) throw new Error(`the bench scenario has no step for ${route.spec.operationId}`);
  return found;
};
const send = (route: Route, key?: string) => {
  const { method, path, body } = step(route);
  return api.request(method, path(idsA), { key, body: body?.(idsA) });
};

const named = (list: Route[]) => list.map((route) => [`${route.spec.method} ${fullPath(route.spec)}`, route] as const);
const isPublic = (route: Route) => route.spec.permission === 'public';
const withPathIds = routes.filter((route) => /\{\w+\}/.test(fullPath(route.spec)) && !isPublic(route));
const lists = routes.filter((route) => route.spec.method === 'GET' && !/\{\w+\}/.test(fullPath(route.spec)));
// Public POSTs (remote evaluation) write nothing and take no key.
const writes = routes.filter((route) => route.spec.method !== 'GET' && !isPublic(route));

/** Every value that identifies A's data or A's keys; none may appear in what B is shown. */
const secretsOfA = () => [
  ...Object.entries(idsA)
    .filter(([name]) => name !== 'run')
    .map(([, value]) => value),
  ...Object.values(a.keys),
  a.admin.token,
];

beforeAll(async () => {
  api = await startApi();
  [a, b] = await Promise.all([createTestOrg('Isolated A', { dataSources: [scenarioDataSourceId] }), createTestOrg('Isolated B')]);
  Object.assign(idsA, { memberId: a.admin.memberId, email: a.admin.email, memberToken: a.admin.token });
  // A's snapshot runs for real (inline rows) and has finished before B tries anything, so A's data stays still.
  await dataSources.update(a.orgId, scenarioDataSourceId, (ds) => ({
    ...ds,
    assignmentQueries: ds.assignmentQueries.map((q) => (q.id === 'user_id' ? { ...q, sql: SCENARIO_ASSIGNMENT_SQL } : q)),
  }));
  for (const creating of scenario.filter((s) => s.method !== 'DELETE')) {
    await settle(a.keys.admin, creating, idsA);
    const response = await api.request(creating.method, creating.path(idsA), { key: creating.key?.(idsA) ?? a.keys.admin, body: creating.body?.(idsA) });
    if (response.status >= 300) throw new Error(`${creating.operationId} answered ${response.status}: ${JSON.stringify(response.body)}`);
    creating.capture?.(response.body, idsA);
  }
}, 60_000);
afterAll(() => api.close());

describe("another organization's key", () => {
  it.each(named(withPathIds))("gets 404 from %s on the first organization's ids, which stay unchanged", async (_name, route) => {
    const before = await organizationSnapshot(a.orgId);

    const response = await send(route, b.keys.admin);

    expect([403, 404]).toContain(response.status);
    expect(await organizationSnapshot(a.orgId)).toBe(before);
  });

  it.each(named(lists))("never sees the first organization's data in %s", async (_name, route) => {
    const response = await send(route, b.keys.admin);

    expect(response.status).toBe(200);
    const text = JSON.stringify(response.body);
    expect(secretsOfA().filter((secret) => text.includes(secret))).toEqual([]);
  });

  it.each(['postFeature', 'postFactMetric', 'postExperiment', 'createDashboard', 'createRampSchedule'])(
    "cannot make %s refer to the first organization's resources",
    async (operationId) => {
      const route = routes.find((candidate) => candidate.spec.operationId === operationId)!;
      const before = await organizationSnapshot(b.orgId);

      const response = await send(route, b.keys.admin);

      expect(response.status).toBe(400);
      expect(await organizationSnapshot(b.orgId)).toBe(before);
    },
  );

  it("cannot filter the feature list by the first organization's SDK key", async () => {
    const response = await api.request('GET', `/api/v1/features?clientKey=${idsA.sdkKey}`, { key: b.keys.admin });

    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).not.toContain(idsA.featureId);
  });
});

describe('a readonly key', () => {
  it.each(named(writes))('is refused %s with 403, and nothing changes', async (_name, route) => {
    const before = await organizationSnapshot(a.orgId);

    const response = await send(route, a.keys.readonly);

    expect(response.status).toBe(403);
    expect(await organizationSnapshot(a.orgId)).toBe(before);
  });
});

describe('a noaccess key', () => {
  it.each(named(routes.filter((route) => !isPublic(route))))('is refused %s with 403, and nothing changes', async (_name, route) => {
    const before = await organizationSnapshot(a.orgId);

    const response = await send(route, a.keys.noaccess);

    expect(response.status).toBe(403);
    expect(await organizationSnapshot(a.orgId)).toBe(before);
  });
});

describe('a public route', () => {
  it.each(named(routes.filter(isPublic)))('answers %s without a key', async (_name, route) => {
    // The scenario leaves its connection on remote evaluation, which refuses a plain GET of the payload (as GrowthBook).
    const plainGet = route.spec.operationId === 'getFeaturesForSdk';
    const remoteEval = (on: boolean) =>
      api.request('PUT', `/api/v1/sdk-connections/${idsA.sdkConnectionId}`, { key: a.keys.admin, body: { remoteEvalEnabled: on } });
    if (plainGet) await remoteEval(false);
    const response = await send(route);
    if (plainGet) await remoteEval(true);

    expect(response.status).toBe(200);
  });
});
