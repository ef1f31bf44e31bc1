import { clearAuthCache } from '../../shared/api/auth';
import { newId } from '../../shared/ids';
import type { Role } from '../../shared/permissions';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { createTestOrg, startApi, type Api, type ApiResponse, type TestOrg } from '../support/api';

// Issue 22's permission matrix, over HTTP: kinds of caller (global role, a role only through a project, a project
// taken away, a role limited to one environment) against representative reads and writes, each cell the status
// GrowthBook gives. A read of what the caller may not read is a 404, as GrowthBook's models hide it; a list leaves
// it out before paginating.

let api: Api;
let org: TestOrg;
const v1 = '/api/v1';
const unique = () => newId('').slice(1, 9).toLowerCase();
const asAdmin = async (method: string, path: string, body?: unknown) => {
  const response = await api.request(method, `${v1}${path}`, { key: org.keys.admin, body });
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
};

/** What the admin sets up: two projects, and a feature, an experiment and a saved group in each (features in none too). */
const made = { projectA: '', projectB: '', featureA: '', featureB: '', featureNone: '', experimentB: '', savedGroupB: '' };

const rule = { type: 'force', value: 'true', condition: '{"beta":true}' };
const feature = async (project?: string) =>
  (
    await asAdmin('POST', '/features', {
      id: `m-${unique()}`,
      valueType: 'boolean',
      defaultValue: 'false',
      ...(project ? { project } : {}),
      environments: { production: { enabled: true, rules: [rule] }, dev: { enabled: true, rules: [rule] } },
    })
  ).feature.id as string;
const experimentBody = (project?: string) => ({
  trackingKey: `m-${unique()}`,
  name: 'Matrix',
  datasourceId: 'ds_main',
  assignmentQueryId: 'user_id',
  variations: [
    { key: '0', name: 'Control' },
    { key: '1', name: 'Treatment' },
  ],
  ...(project ? { project } : {}),
});
const experiment = async (project?: string) => (await asAdmin('POST', '/experiments', experimentBody(project))).experiment.id as string;

/** A member with a personal access token: a global role (limited to `environments` when given) and project roles. */
async function member(role: Role, projectRoles: Array<{ project: string; role: Role }> = [], environments: string[] = []) {
  const created = await addMember(org.orgId, {
    name: 'M',
    email: `m-${unique()}@example.com`,
    role,
    projectRoles: projectRoles.map((entry) => ({ ...entry, environments: [], limitAccessByEnvironment: false })),
    ...(environments.length ? { environments, limitAccessByEnvironment: true } : {}),
  } as Parameters<typeof addMember>[1]);
  return (await createApiKey({ orgId: org.orgId, role: 'user', memberId: created.id, description: 'matrix' })).secret;
}

/** The callers, one a column of the matrix (as rows below, for reading). */
const callers: Record<string, () => Promise<string>> = {
  'readonly (global)': () => member('readonly'),
  'engineer (global)': () => member('engineer'),
  'engineer limited to production': () => member('engineer', [], ['production']),
  'readonly, noaccess in B': () => member('readonly', [{ project: made.projectB, role: 'noaccess' }]),
  'noaccess, engineer in A only': () => member('noaccess', [{ project: made.projectA, role: 'engineer' }]),
  'noaccess, no project role': () => member('noaccess'),
};
const tokens: Record<string, string> = {};

type Request = (key: string) => Promise<ApiResponse>;
const call = (method: string, path: string, body?: unknown): Request => (key) => api.request(method, `${v1}${path}`, { key, body });
const later = (make: () => Request): Request => (key) => make()(key);

/** The requests, in matrix order; each that changes a project makes its resource fresh, so the order of callers does not matter. */
const requests: Array<[string, Request]> = [
  ['GET feature in A', later(() => call('GET', `/features/${made.featureA}`))],
  ['GET feature in B', later(() => call('GET', `/features/${made.featureB}`))],
  ['GET feature in no project', later(() => call('GET', `/features/${made.featureNone}`))],
  ['GET experiment in B', later(() => call('GET', `/experiments/${made.experimentB}`))],
  ['GET saved group in B', later(() => call('GET', `/saved-groups/${made.savedGroupB}`))],
  ['GET project B', later(() => call('GET', `/projects/${made.projectB}`))],
  ['toggle feature in A, dev', later(() => call('POST', `/features/${made.featureA}/toggle`, { environments: { dev: true } }))],
  ['toggle feature in A, production', later(() => call('POST', `/features/${made.featureA}/toggle`, { environments: { production: true } }))],
  ['update feature in B (description)', later(() => call('POST', `/features/${made.featureB}`, { description: 'changed' }))],
  ['create experiment in A', later(() => call('POST', '/experiments', experimentBody(made.projectA)))],
  ['move experiment in A to no project', async (key) => call('POST', `/experiments/${await experiment(made.projectA)}`, { project: '' })(key)],
];

// One row per caller, one column per request above.
//                                        GET: fA   fB   f-   xB   sgB  pB | toggle dev, prod | upd fB | new xA | move xA
const expected: Record<string, number[]> = {
  'readonly (global)':                    [200, 200, 200, 200, 200, 200,     403, 403,          403,     403,     403],
  'engineer (global)':                    [200, 200, 200, 200, 200, 200,     200, 200,          200,     200,     200],
  'engineer limited to production':       [200, 200, 200, 200, 200, 200,     403, 200,          200,     200,     200],
  'readonly, noaccess in B':              [200, 404, 200, 404, 404, 404,     403, 403,          403,     403,     403],
  'noaccess, engineer in A only':         [200, 404, 200, 404, 404, 404,     200, 200,          403,     200,     403],
  'noaccess, no project role':            [403, 403, 403, 403, 403, 403,     403, 403,          403,     403,     403],
};

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Permission matrix org', { dataSources: ['ds_main'] });
  made.projectA = (await asAdmin('POST', '/projects', { name: 'A' })).project.id;
  made.projectB = (await asAdmin('POST', '/projects', { name: 'B' })).project.id;
  [made.featureA, made.featureB, made.featureNone, made.experimentB] = await Promise.all([
    feature(made.projectA),
    feature(made.projectB),
    feature(),
    experiment(made.projectB),
  ]);
  made.savedGroupB = (await asAdmin('POST', '/saved-groups', { name: 'g', attributeKey: 'id', values: ['a'], projects: [made.projectB] })).savedGroup.id;
  clearAuthCache();
  for (const [name, make] of Object.entries(callers)) tokens[name] = await make();
});
afterAll(() => api.close());

describe('the permission matrix', () => {
  it.each(Object.keys(expected))('%s', async (caller) => {
    const statuses: Record<string, number> = {};
    for (const [name, request] of requests) statuses[name] = (await request(tokens[caller]!)).status;

    expect(statuses).toEqual(Object.fromEntries(requests.map(([name], i) => [name, expected[caller]![i]])));
  });
});

describe('lists leave out what the caller may not read, before paginating', () => {
  // Which of the admin's three features each caller lists (the org holds no other features).
  const listed: Record<string, Array<keyof typeof made>> = {
    'readonly (global)': ['featureA', 'featureB', 'featureNone'],
    'readonly, noaccess in B': ['featureA', 'featureNone'],
    'noaccess, engineer in A only': ['featureA', 'featureNone'],
  };

  it.each(Object.keys(listed))('GET /features as %s', async (caller) => {
    const response = await api.request('GET', `${v1}/features?limit=100`, { key: tokens[caller] });

    expect(response.status).toBe(200);
    expect(response.body.features.map((f: { id: string }) => f.id).sort()).toEqual(listed[caller]!.map((name) => made[name]).sort());
    expect(response.body.total).toBe(listed[caller]!.length);
  });

  it('counts and pages only the readable: the second page of one holds the last readable feature', async () => {
    const caller = tokens['readonly, noaccess in B']!;
    const first = await api.request('GET', `${v1}/features?limit=1&offset=0`, { key: caller });
    const second = await api.request('GET', `${v1}/features?limit=1&offset=1`, { key: caller });

    expect([first.body.total, first.body.hasMore, second.body.hasMore]).toEqual([2, true, false]);
    expect([first.body.features[0].id, second.body.features[0].id].sort()).toEqual([made.featureA, made.featureNone].sort());
  });

  it('lists experiments, saved groups and projects the same way', async () => {
    const caller = tokens['readonly, noaccess in B']!;
    const [experiments, groups, projects, keys] = await Promise.all(
      ['/experiments?limit=100', '/saved-groups?limit=100', '/projects?limit=100', '/feature-keys'].map((path) => api.request('GET', `${v1}${path}`, { key: caller })),
    );

    expect(experiments.body.experiments.map((e: { id: string }) => e.id)).not.toContain(made.experimentB);
    expect(experiments.body.total).toBe(experiments.body.experiments.length);
    expect(groups.body.savedGroups).toEqual([]);
    expect(groups.body.total).toBe(0);
    expect(projects.body.projects.map((p: { id: string }) => p.id)).toEqual([made.projectA]);
    expect([...keys.body].sort()).toEqual([made.featureA, made.featureNone].sort());
  });
});
