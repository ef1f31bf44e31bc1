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

describe('every kind of project-owned resource is hidden from a caller who may not read its project', () => {
  /** How to make one in project B (as the admin), read it, and list its kind (`list` answers `field`). */
  interface Kind {
    make: () => Promise<string>;
    get?: (id: string) => string;
    list?: { path: string; field: string };
  }
  const inB = () => [made.projectB];
  let factTableB = '';
  let factMetricB = '';
  const kinds: Record<string, Kind> = {
    segment: {
      make: async () =>
        (await asAdmin('POST', '/segments', { name: 's', datasourceId: 'ds_main', identifierType: 'user_id', type: 'SQL', query: 'SELECT user_id FROM subs', projects: inB() })).segment.id,
      get: (id) => `/segments/${id}`,
      list: { path: '/segments?limit=100', field: 'segments' },
    },
    'fact table': {
      make: async () => factTableB,
      get: (id) => `/fact-tables/${id}`,
      list: { path: '/fact-tables?limit=100', field: 'factTables' },
    },
    "fact table's filters": { make: async () => factTableB, get: (id) => `/fact-tables/${id}/filters` },
    'fact metric': {
      make: async () => factMetricB,
      get: (id) => `/fact-metrics/${id}`,
      list: { path: '/fact-metrics?limit=100', field: 'factMetrics' },
    },
    'metric group': {
      make: async () => (await asAdmin('POST', '/metric-groups', { name: 'g', description: '', projects: inB(), metrics: [factMetricB], datasource: 'ds_main' })).metricGroup.id,
      get: (id) => `/metric-groups/${id}`,
      list: { path: '/metric-groups', field: 'metricGroups' },
    },
    'SDK connection': {
      make: async () => (await asAdmin('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production', projects: inB() })).sdkConnection.id,
      get: (id) => `/sdk-connections/${id}`,
      list: { path: '/sdk-connections?limit=100', field: 'connections' },
    },
    'experiment template': {
      make: async () =>
        (
          await asAdmin('POST', '/experiment-templates', {
            templateMetadata: { name: 't' },
            type: 'standard',
            datasource: 'ds_main',
            exposureQueryId: 'user_id',
            statsEngine: 'bayesian',
            targeting: { coverage: 1, condition: '{}' },
            project: made.projectB,
          })
        ).experimentTemplate.id,
      get: (id) => `/experiment-templates/${id}`,
      list: { path: '/experiment-templates', field: 'experimentTemplates' },
    },
    dashboard: {
      make: async () =>
        (await asAdmin('POST', '/dashboards', { title: 'd', editLevel: 'published', shareLevel: 'published', enableAutoUpdates: false, blocks: [], projects: inB() })).dashboard.id,
      get: (id) => `/dashboards/${id}`,
      list: { path: '/dashboards', field: 'dashboards' },
    },
    "experiment's dashboards": { make: async () => made.experimentB, get: (id) => `/dashboards/by-experiment/${id}` },
    holdout: {
      make: async () => (await asAdmin('POST', '/holdouts', { name: 'h', projects: inB() })).holdout.id,
      get: (id) => `/holdouts/${id}`,
      list: { path: '/holdouts?limit=100', field: 'holdouts' },
    },
    'ramp schedule (its feature in B)': {
      make: async () => (await asAdmin('POST', '/ramp-schedules', { name: 'r', featureId: made.featureB })).rampSchedule.id,
      get: (id) => `/ramp-schedules/${id}`,
      list: { path: '/ramp-schedules?limit=100', field: 'rampSchedules' },
    },
    'visual changeset (its experiment in B)': {
      make: async () =>
        (
          await asAdmin('POST', `/experiments/${made.experimentB}/visual-changesets`, {
            editorUrl: 'https://example.com/',
            urlPatterns: [{ type: 'simple', pattern: '/', include: true }],
          })
        ).visualChangeset.id,
      get: (id) => `/visual-changesets/${id}`,
    },
    "experiment's visual changesets": { make: async () => made.experimentB, get: (id) => `/experiments/${id}/visual-changesets` },
    'URL redirect (its experiment in B)': {
      make: async () => {
        const { experiment: exp } = await asAdmin('GET', `/experiments/${made.experimentB}`);
        const origin = `https://${unique()}.example.com/pricing`;
        const destinationURLs = [
          { variation: exp.variations[0].variationId, url: '' },
          { variation: exp.variations[1].variationId, url: `${origin}-new` },
        ];
        return (await asAdmin('POST', '/url-redirects', { experiment: exp.id, urlPattern: origin, destinationURLs })).urlRedirect.id;
      },
      get: (id) => `/url-redirects/${id}`,
      list: { path: '/url-redirects', field: 'urlRedirects' },
    },
    "experiment's results": { make: async () => made.experimentB, get: (id) => `/experiments/${id}/results` },
    archetype: {
      make: async () => (await asAdmin('POST', '/archetypes', { name: 'a', isPublic: true, attributes: {}, projects: inB() })).archetype.id,
      get: (id) => `/archetypes/${id}`,
      list: { path: '/archetypes', field: 'archetypes' },
    },
    'data source': {
      make: async () =>
        (
          await asAdmin('POST', '/data-sources', {
            name: 'Local files',
            type: 'duckdb',
            identifierTypes: [{ id: 'user_id' }],
            assignmentQueries: [{ id: 'user_id', name: 'Users', identifierType: 'user_id', sql: "SELECT * FROM read_csv('exposures.csv')" }],
            projectIds: inB(),
          })
        ).dataSource.id,
      get: (id) => `/data-sources/${id}`,
      list: { path: '/data-sources?limit=100', field: 'dataSources' },
    },
    attribute: {
      make: async () => (await asAdmin('POST', '/attributes', { property: `attr_${unique()}`, datatype: 'string', projects: inB() })).attribute.property,
      list: { path: '/attributes', field: 'attributes' },
    },
  };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    factTableB = (await asAdmin('POST', '/fact-tables', { name: 't', datasource: 'ds_main', userIdTypes: ['user_id'], sql: 'SELECT 1', projects: inB() })).factTable.id;
    factMetricB = (await asAdmin('POST', '/fact-metrics', { name: 'm', metricType: 'proportion', numerator: { factTableId: factTableB }, projects: inB() })).factMetric.id;
    for (const [name, kind] of Object.entries(kinds)) ids[name] = await kind.make();
  });

  const read = (caller: string, path: string) => api.request('GET', `${v1}${path}`, { key: tokens[caller] });

  it.each(Object.keys(kinds))('%s', async (name) => {
    const kind = kinds[name]!;
    const id = ids[name]!;
    if (kind.get) {
      const path = kind.get(id);
      const [reader, hidden, hiddenToProjectRole] = await Promise.all(
        ['readonly (global)', 'readonly, noaccess in B', 'noaccess, engineer in A only'].map((caller) => read(caller, path)),
      );

      // The results of an experiment never analysed are a 404 for any reader; what differs is the message.
      const readable = name === "experiment's results" ? 404 : 200;
      expect([reader.status, hidden.status, hiddenToProjectRole.status]).toEqual([readable, 404, 404]);
      expect(hidden.body.message).toMatch(/not found/);
    }
    if (!kind.list) return;
    const { path, field } = kind.list;
    const [all, filtered] = await Promise.all([read('readonly (global)', path), read('readonly, noaccess in B', path)]);
    const listedIds = (response: ApiResponse) => response.body[field].map((item: { id?: string; property?: string }) => item.id ?? item.property);
    expect(listedIds(all)).toContain(id);
    expect(listedIds(filtered)).not.toContain(id);
    if ('total' in filtered.body) expect(filtered.body.total).toBe(filtered.body[field].length);
  });
});

describe('environment limits on writes that change what a feature serves, beyond feature writes', () => {
  const production = 'engineer limited to production';
  const rollout = (id: string) => ({ id, type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' });
  /** A feature (no project) with rollout rule `fr_dev` in dev and `fr_prod` in production. */
  const rampable = async () =>
    (
      await asAdmin('POST', '/features', {
        id: `ramp-${unique()}`,
        valueType: 'boolean',
        defaultValue: 'false',
        environments: { production: { enabled: true, rules: [rollout('fr_prod')] }, dev: { enabled: true, rules: [rollout('fr_dev')] } },
      })
    ).feature.id as string;
  const steps = [{ trigger: { type: 'interval', seconds: 3600 }, actions: [{ patch: { coverage: 0.5 } }] }];
  const as = (caller: string, method: string, path: string, body?: unknown) => api.request(method, `${v1}${path}`, { key: tokens[caller], body });

  it('ramp schedules: create, start and roll back only on rules in publishable environments', async () => {
    const featureId = await rampable();
    const schedule = (ruleId: string, environment: string) => ({ name: 'r', featureId, ruleId, environment, steps });

    const createDev = await as(production, 'POST', '/ramp-schedules', schedule('fr_dev', 'dev'));
    const createProduction = await as(production, 'POST', '/ramp-schedules', schedule('fr_prod', 'production'));
    const devByAdmin = (await asAdmin('POST', '/ramp-schedules', schedule('fr_dev', 'dev'))).rampSchedule.id;
    const startDev = await as(production, 'POST', `/ramp-schedules/${devByAdmin}/actions/start`);
    const startProduction = await as(production, 'POST', `/ramp-schedules/${createProduction.body.rampSchedule.id}/actions/start`);
    await asAdmin('POST', `/ramp-schedules/${devByAdmin}/actions/start`);
    const rollbackDev = await as(production, 'POST', `/ramp-schedules/${devByAdmin}/actions/rollback`);
    const pauseDev = await as(production, 'POST', `/ramp-schedules/${devByAdmin}/actions/pause`);

    expect([createDev.status, createProduction.status, startDev.status, startProduction.status, rollbackDev.status, pauseDev.status]).toEqual([
      403, 200, 403, 200, 403, 200,
    ]);
    expect(startDev.body.message).toMatch(/publishFeatures permission for environments dev/);
    const { feature } = await asAdmin('GET', `/features/${featureId}`);
    // The refused rollback left the admin's step in dev; the allowed start applied production's first step.
    expect([feature.environments.dev.rules[0].coverage, feature.environments.production.rules[0].coverage]).toEqual([0.5, 0.5]);
  });

  it("ramp schedules: approving a step needs publishing in every environment of the feature, as GrowthBook's approveAndPublishStep", async () => {
    const featureId = await rampable();
    const approvalFirst = [{ trigger: { type: 'approval' }, actions: [{ patch: { coverage: 0.2 } }] }];
    const waiting = async () => {
      const id = (await asAdmin('POST', '/ramp-schedules', { name: 'r', featureId, ruleId: 'fr_prod', environment: 'production', steps: approvalFirst })).rampSchedule.id;
      expect((await asAdmin('POST', `/ramp-schedules/${id}/actions/start`)).rampSchedule).toMatchObject({ status: 'running', awaitingApproval: true });
      return id;
    };
    clearAuthCache();
    const limited = await member('experimenter', [], ['production']);
    const unlimited = await member('experimenter');

    const refused = await api.request('POST', `${v1}/ramp-schedules/${await waiting()}/actions/approve-step`, { key: limited });
    await asAdmin('POST', `/ramp-schedules/${(await asAdmin('GET', `/ramp-schedules?featureId=${featureId}`)).rampSchedules[0].id}/actions/rollback`);
    const approved = await api.request('POST', `${v1}/ramp-schedules/${await waiting()}/actions/approve-step`, { key: unlimited });

    expect([refused.status, approved.status]).toEqual([403, 200]);
    expect(refused.body.message).toMatch(/publishFeatures permission for environments production, dev/);
  });

  it('experiments: start and stop need runExperiments in every environment a linked feature serves it in', async () => {
    const start = async (caller: string, environment: string) => {
      const { experiment: exp } = await asAdmin('POST', '/experiments', experimentBody());
      const [v0, v1] = exp.variations.map((v: { variationId: string }) => v.variationId);
      await asAdmin('POST', '/features', {
        id: `linked-${unique()}`,
        valueType: 'string',
        defaultValue: 'a',
        environments: {
          [environment]: {
            enabled: true,
            rules: [{ type: 'experiment-ref', experimentId: exp.id, variations: [{ variationId: v0, value: 'a' }, { variationId: v1, value: 'b' }] }],
          },
        },
      });
      return { id: exp.id as string, response: await as(caller, 'POST', `/experiments/${exp.id}/start`, { skipChecklist: true }) };
    };

    const inDev = await start(production, 'dev');
    const inProduction = await start(production, 'production');
    const byEngineer = await start('engineer (global)', 'dev');
    const stopDev = await as(production, 'POST', `/experiments/${byEngineer.id}/stop`, { results: 'dnf' });

    expect([inDev.response.status, inProduction.response.status, byEngineer.response.status, stopDev.status]).toEqual([403, 200, 200, 403]);
    expect(inDev.response.body.message).toMatch(/runExperiments permission for environments dev/);
    expect((await asAdmin('GET', `/experiments/${inDev.id}`)).experiment.status).toBe('draft');
  });
});

describe('moving a resource out of its project needs the permission outside any project', () => {
  const inA = 'noaccess, engineer in A only';
  const as = (method: string, path: string, body?: unknown) => api.request(method, `${v1}${path}`, { key: tokens[inA], body });

  it.each([
    ['an experiment', async () => `/experiments/${await experiment(made.projectA)}`, 'POST', { description: 'mine' }, { project: '' }],
    [
      'an experiment template',
      async () =>
        `/experiment-templates/${
          (
            await asAdmin('POST', '/experiment-templates', {
              templateMetadata: { name: 't' },
              type: 'standard',
              datasource: 'ds_main',
              exposureQueryId: 'user_id',
              statsEngine: 'bayesian',
              targeting: { coverage: 1, condition: '{}' },
              project: made.projectA,
            })
          ).experimentTemplate.id
        }`,
      'PUT',
      { templateMetadata: { name: 'mine' } },
      { project: '' },
    ],
    [
      'a saved group',
      async () => `/saved-groups/${(await asAdmin('POST', '/saved-groups', { name: 'g', attributeKey: 'id', values: ['a'], projects: [made.projectA] })).savedGroup.id}`,
      'POST',
      { name: 'mine' },
      { projects: [] },
    ],
    [
      'a segment',
      async () =>
        `/segments/${
          (
            await asAdmin('POST', '/segments', {
              name: 's',
              datasourceId: 'ds_main',
              identifierType: 'user_id',
              type: 'SQL',
              query: 'SELECT user_id FROM subs',
              projects: [made.projectA],
            })
          ).segment.id
        }`,
      'POST',
      { name: 'mine' },
      { projects: [] },
    ],
  ] as const)('%s', async (_kind, make, method, change, move) => {
    const path = await make();

    const inProject = await as(method, path, change);
    const moved = await as(method, path, move);

    expect([inProject.status, moved.status]).toEqual([200, 403]);
  });
});
