import { runAdmin, UsageError } from '../../scripts/admin';
import { clearAuthCache } from '../../shared/api/auth';
import { newId } from '../../shared/ids';
import { roles, type Role } from '../../shared/permissions';
import type { ProjectRole } from '../../shared/contracts/members';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { createTestOrg, startApi, type Api, type ApiResponse, type TestOrg } from '../support/api';

// GrowthBook's four roles beyond BEHAVIOR.md's five, over HTTP: what each may do, and what it is refused with 403.

let api: Api;
let org: TestOrg;
let projectA: string;
let projectB: string;
let featureId: string;

const v1 = '/api/v1';
const unique = () => newId('').slice(1, 9).toLowerCase();
const asAdmin = (method: string, path: string, body?: unknown) => api.request(method, `${v1}${path}`, { key: org.keys.admin, body });

/** A new experiment's body. */
const experiment = (project?: string) => ({
  trackingKey: `roles-${unique()}`,
  name: 'Roles',
  datasourceId: 'ds_main',
  assignmentQueryId: 'user_id',
  variations: [
    { key: '0', name: 'Control' },
    { key: '1', name: 'Treatment' },
  ],
  ...(project ? { project } : {}),
});

/** A draft experiment made by the admin, for the actions that need one. */
async function draftExperiment(project?: string): Promise<string> {
  const response = await asAdmin('POST', '/experiments', experiment(project));
  expect(response.status).toBe(200);
  return response.body.experiment.id;
}

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Roles org', { dataSources: ['ds_main'] });
  projectA = (await asAdmin('POST', '/projects', { name: 'Project A' })).body.project.id;
  projectB = (await asAdmin('POST', '/projects', { name: 'Project B' })).body.project.id;
  featureId = (await asAdmin('POST', '/features', { id: `roles-${unique()}`, valueType: 'boolean', defaultValue: 'false' })).body.feature.id;
});
afterAll(() => api.close());

type Action = (key: string) => Promise<ApiResponse>;

/** Representative requests, one per kind of permission; each makes what it needs fresh, so they run in any order. */
const actions: Record<string, Action> = {
  'GET /features (readData)': (key) => api.request('GET', `${v1}/features`, { key }),
  'POST /features (manageFeatures)': (key) =>
    api.request('POST', `${v1}/features`, { key, body: { id: `f-${unique()}`, valueType: 'boolean', defaultValue: 'false' } }),
  'POST /features/{id}/toggle (publishFeatures)': (key) =>
    api.request('POST', `${v1}/features/${featureId}/toggle`, { key, body: { environments: { dev: true } } }),
  'POST /saved-groups (manageSavedGroups)': (key) =>
    api.request('POST', `${v1}/saved-groups`, { key, body: { name: 'g', attributeKey: 'id', values: ['a'] } }),
  'POST /attributes (manageTargetingAttributes)': (key) =>
    api.request('POST', `${v1}/attributes`, { key, body: { property: `attr_${unique()}`, datatype: 'string' } }),
  'POST /segments (createSegments)': (key) =>
    api.request('POST', `${v1}/segments`, {
      key,
      body: { name: 's', datasourceId: 'ds_main', identifierType: 'user_id', type: 'SQL', query: 'SELECT user_id FROM subs' },
    }),
  'POST /fact-tables (manageFactTables)': (key) =>
    api.request('POST', `${v1}/fact-tables`, { key, body: { name: 't', datasource: 'ds_main', userIdTypes: ['user_id'], sql: 'SELECT 1' } }),
  'POST /dimensions (createDimensions)': (key) =>
    api.request('POST', `${v1}/dimensions`, {
      key,
      body: { name: 'd', datasourceId: 'ds_main', identifierType: 'user_id', query: 'SELECT user_id, country FROM users' },
    }),
  'POST /experiments (createAnalyses)': (key) => api.request('POST', `${v1}/experiments`, { key, body: experiment() }),
  'POST /experiments/{id}/start (runExperiments)': async (key) =>
    api.request('POST', `${v1}/experiments/${await draftExperiment()}/start`, { key, body: { skipChecklist: true } }),
  'POST /experiments/{id}/visual-changesets (manageVisualChanges)': async (key) =>
    api.request('POST', `${v1}/experiments/${await draftExperiment()}/visual-changesets`, {
      key,
      body: { editorUrl: 'https://example.com/', urlPatterns: [{ type: 'simple', pattern: 'https://example.com/*', include: true }] },
    }),
  'POST /experiment-templates (manageTemplates)': (key) =>
    api.request('POST', `${v1}/experiment-templates`, {
      key,
      body: {
        templateMetadata: { name: 't' },
        type: 'standard',
        datasource: 'ds_main',
        exposureQueryId: 'user_id',
        statsEngine: 'bayesian',
        targeting: { coverage: 1, condition: '{}' },
      },
    }),
  'POST /namespaces (manageNamespaces)': (key) =>
    api.request('POST', `${v1}/namespaces`, { key, body: { displayName: `n ${unique()}`, hashAttribute: 'id' } }),
  'POST /environments (manageEnvironments)': (key) => api.request('POST', `${v1}/environments`, { key, body: { id: `env-${unique()}` } }),
  'POST /sdk-connections (manageSDKConnections)': (key) =>
    api.request('POST', `${v1}/sdk-connections`, { key, body: { name: 'Web connection', language: 'javascript', environment: 'production' } }),
  'PUT /projects/{id} (manageProjects)': (key) => api.request('PUT', `${v1}/projects/${projectA}`, { key, body: { description: 'changed' } }),
  'POST /projects (createProjects)': (key) => api.request('POST', `${v1}/projects`, { key, body: { name: `p ${unique()}` } }),
  'POST /teams (manageTeam)': (key) => api.request('POST', `${v1}/teams`, { key, body: { name: `t ${unique()}`, description: '', role: 'readonly' } }),
  'GET /members (manageTeam)': (key) => api.request('GET', `${v1}/members`, { key }),
};

/** What GrowthBook's policies give each new role, as the actions above name them. */
const allowed: Record<'collaborator' | 'visualEditor' | 'analyst' | 'gbDefault_projectAdmin', string[]> = {
  collaborator: ['GET /features (readData)'],
  visualEditor: ['GET /features (readData)', 'POST /experiments/{id}/visual-changesets (manageVisualChanges)'],
  analyst: [
    'GET /features (readData)',
    'POST /segments (createSegments)',
    'POST /fact-tables (manageFactTables)',
    'POST /dimensions (createDimensions)',
    'POST /experiments (createAnalyses)',
    'POST /experiments/{id}/visual-changesets (manageVisualChanges)',
    'POST /experiment-templates (manageTemplates)',
  ],
  gbDefault_projectAdmin: Object.keys(actions).filter(
    (action) => !['POST /projects (createProjects)', 'POST /teams (manageTeam)', 'GET /members (manageTeam)'].includes(action),
  ),
};

const table = (Object.keys(allowed) as (keyof typeof allowed)[]).flatMap((role) =>
  Object.keys(actions).map((action) => [role, action, allowed[role].includes(action)] as const),
);

describe("GrowthBook's roles on representative endpoints", () => {
  it.each(table)('a %s key: %s is allowed: %s', async (role, action, expected) => {
    const response = await actions[action](org.keys[role]);

    if (expected) {
      expect(response.status).toBe(200);
    } else {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ code: 'forbidden', message: expect.stringMatching(/^This key's role does not grant the \w+ permission/) });
    }
  });
});

/** A member with a personal access token, their global role and project roles. */
async function memberWithToken(role: Role, projectRoles: Omit<ProjectRole, 'limitAccessByEnvironment'>[] = [], environments: string[] = []) {
  const member = await addMember(org.orgId, {
    name: 'M',
    email: `m-${unique()}@example.com`,
    role,
    projectRoles: projectRoles.map((entry) => ({ ...entry, limitAccessByEnvironment: entry.environments.length > 0 })),
    ...(environments.length ? { environments, limitAccessByEnvironment: true } : {}),
  } as Parameters<typeof addMember>[1]);
  const token = (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'test' })).secret;
  return { id: member.id, token };
}

describe('a project admin through a project role', () => {
  let token: string;
  beforeAll(async () => {
    clearAuthCache();
    ({ token } = await memberWithToken('readonly', [{ project: projectA, role: 'gbDefault_projectAdmin', environments: [] }]));
  });
  const as = (method: string, path: string, body?: unknown) => api.request(method, `${v1}${path}`, { key: token, body });

  it('manages its own project and no other', async () => {
    const own = await as('PUT', `/projects/${projectA}`, { description: 'mine' });
    const other = await as('PUT', `/projects/${projectB}`, { description: 'not mine' });

    expect(own.status).toBe(200);
    expect(own.body.project.description).toBe('mine');
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
    expect((await asAdmin('GET', `/projects/${projectB}`)).body.project.description).not.toBe('not mine');
  });

  it('neither creates nor deletes projects, which GrowthBook keeps for ProjectsFullAccess', async () => {
    const created = await as('POST', '/projects', { name: `p ${unique()}` });
    const deleted = await as('DELETE', `/projects/${projectA}`);

    expect([created.status, deleted.status]).toEqual([403, 403]);
    expect((await asAdmin('GET', `/projects/${projectA}`)).status).toBe(200);
  });

  it('writes features and segments in its project only', async () => {
    const feature = (project?: string) =>
      as('POST', '/features', { id: `f-${unique()}`, valueType: 'boolean', defaultValue: 'false', ...(project ? { project } : {}) });
    const segment = (projects: string[]) =>
      as('POST', '/segments', { name: 's', datasourceId: 'ds_main', identifierType: 'user_id', type: 'SQL', query: 'SELECT 1', projects });

    const statuses = [
      (await feature(projectA)).status,
      (await feature(projectB)).status,
      (await feature()).status,
      (await segment([projectA])).status,
      (await segment([projectB])).status,
      (await segment([projectA, projectB])).status,
    ];

    expect(statuses).toEqual([200, 403, 403, 200, 403, 403]);
  });

  it('starts an experiment in its project but not elsewhere', async () => {
    const mine = await as('POST', `/experiments/${await draftExperiment(projectA)}/start`, { skipChecklist: true });
    const theirs = await as('POST', `/experiments/${await draftExperiment(projectB)}/start`, { skipChecklist: true });

    expect([mine.status, theirs.status]).toEqual([200, 403]);
  });

  it('cannot manage members or teams', async () => {
    const members = await as('GET', '/members');
    const team = await as('POST', '/teams', { name: `t ${unique()}`, description: '', role: 'readonly' });

    expect([members.status, team.status]).toEqual([403, 403]);
  });
});

describe('roles that add up', () => {
  beforeEach(() => clearAuthCache());

  it("gives a visual editor in an analyst team the analyst's permissions too", async () => {
    const member = await memberWithToken('visualEditor');
    const team = await asAdmin('POST', '/teams', { name: `t ${unique()}`, description: '', role: 'analyst' });
    await asAdmin('POST', `/teams/${team.body.team.id}/members`, { members: [member.id] });

    const segment = await api.request('POST', `${v1}/segments`, {
      key: member.token,
      body: { name: 's', datasourceId: 'ds_main', identifierType: 'user_id', type: 'SQL', query: 'SELECT 1' },
    });
    const feature = await api.request('POST', `${v1}/features`, {
      key: member.token,
      body: { id: `f-${unique()}`, valueType: 'boolean', defaultValue: 'false' },
    });

    expect([segment.status, feature.status]).toEqual([200, 403]);
  });

  it('limits an engineer limited to production to toggling production', async () => {
    const member = await memberWithToken('engineer', [], ['production']);
    const toggle = (environment: string) =>
      api.request('POST', `${v1}/features/${featureId}/toggle`, { key: member.token, body: { environments: { [environment]: true } } });

    const production = await toggle('production');
    const dev = await toggle('dev');

    expect([production.status, dev.status]).toEqual([200, 403]);
    expect(dev.body.message).toMatch(/publishFeatures permission for environments dev/);
  });
});

describe('an engineer limited to production, on every write that publishes', () => {
  let token: string;
  let limitedFeature: string;
  beforeAll(async () => {
    clearAuthCache();
    ({ token } = await memberWithToken('engineer', [], ['production']));
    limitedFeature = (
      await asAdmin('POST', '/features', {
        id: `limited-${unique()}`,
        valueType: 'boolean',
        defaultValue: 'false',
        environments: { production: { enabled: true, rules: [] }, dev: { enabled: true, rules: [] } },
      })
    ).body.feature.id;
  });
  const rule = { type: 'force', value: 'true', condition: '{"country":"US"}' };
  const as = (method: string, path: string, body?: unknown) => api.request(method, `${v1}${path}`, { key: token, body });
  const stored = async () => (await asAdmin('GET', `/features/${limitedFeature}`)).body.feature;

  it('creates a feature with rules in production only, and is refused one with rules in dev', async () => {
    const inProduction = await as('POST', '/features', {
      id: `f-${unique()}`,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: { production: { enabled: true, rules: [rule] }, dev: { enabled: false, rules: [] } },
    });
    const inDev = await as('POST', '/features', {
      id: `f-${unique()}`,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: { production: { enabled: false, rules: [] }, dev: { enabled: true, rules: [rule] } },
    });

    expect([inProduction.status, inDev.status]).toEqual([200, 403]);
    expect(inDev.body.message).toMatch(/publishFeatures permission for environments dev/);
  });

  it('changes production rules, is refused dev rules, and leaves the feature unchanged when refused', async () => {
    const before = await stored();

    const dev = await as('POST', `/features/${limitedFeature}`, { environments: { dev: { rules: [rule] } } });
    const unchanged = await stored();
    const production = await as('POST', `/features/${limitedFeature}`, { environments: { production: { rules: [rule] } } });

    expect([dev.status, production.status]).toEqual([403, 200]);
    expect(unchanged.dateUpdated).toBe(before.dateUpdated);
    expect(production.body.feature.environments.production.rules).toHaveLength(1);
  });

  it('is refused a change of the default value, which every environment the feature is on in serves', async () => {
    const response = await as('POST', `/features/${limitedFeature}`, { defaultValue: 'true' });

    expect(response.status).toBe(403);
    expect(response.body.message).toMatch(/environments production, dev/);
  });

  it('is refused a revert or a delete of a feature on in dev', async () => {
    const changed = await asAdmin('POST', `/features/${limitedFeature}`, { defaultValue: 'true' });
    const version = changed.body.feature.revision.version;

    const revert = await as('POST', `/features/${limitedFeature}/revert`, { revision: version - 1 });
    const remove = await as('DELETE', `/features/${limitedFeature}`);

    expect([revert.status, remove.status]).toEqual([403, 403]);
    expect((await asAdmin('GET', `/features/${limitedFeature}`)).status).toBe(200);
  });
});

describe('moving a feature out of its project', () => {
  it('needs the permission outside any project: a project engineer is refused {"project": ""}', async () => {
    clearAuthCache();
    const member = await memberWithToken('noaccess', [{ project: projectA, role: 'engineer', environments: [] }]);
    const id = (await asAdmin('POST', '/features', { id: `moved-${unique()}`, valueType: 'boolean', defaultValue: 'false', project: projectA })).body.feature.id;

    const inProject = await api.request('POST', `${v1}/features/${id}`, { key: member.token, body: { description: 'mine' } });
    const moved = await api.request('POST', `${v1}/features/${id}`, { key: member.token, body: { project: '' } });

    expect([inProject.status, moved.status]).toEqual([200, 403]);
    expect((await asAdmin('GET', `/features/${id}`)).body.feature.project).toBe(projectA);
  });
});

describe('where a role is named', () => {
  it.each(['collaborator', 'visualEditor', 'analyst', 'gbDefault_projectAdmin'] as const)('sets a member to %s', async (role) => {
    const member = await memberWithToken('readonly');

    const response = await asAdmin('POST', `/members/${member.id}/role`, {
      member: { role, projectRoles: [{ project: projectA, role, environments: [] }] },
    });

    expect(response.status).toBe(200);
    expect(response.body.updatedMember).toMatchObject({ role, projectRoles: [expect.objectContaining({ project: projectA, role })] });
  });

  it('refuses an unknown member role with 400 naming the roles there are', async () => {
    const member = await memberWithToken('readonly');

    const response = await asAdmin('POST', `/members/${member.id}/role`, { member: { role: 'projectAdmin' } });

    expect(response.status).toBe(400);
    expect(response.body.message).toContain(`projectAdmin is not a valid role (one of ${roles.join(', ')})`);
  });

  it.each(['collaborator', 'visualEditor', 'analyst', 'gbDefault_projectAdmin'] as const)('gives a team the %s role', async (role) => {
    const response = await asAdmin('POST', '/teams', { name: `t ${unique()}`, description: '', role });

    expect(response.status).toBe(200);
    expect(response.body.team.role).toBe(role);
  });

  it('refuses an unknown team role with 400 naming the roles there are', async () => {
    const response = await asAdmin('POST', '/teams', { name: `t ${unique()}`, description: '', role: 'owner' });

    expect(response.status).toBe(400);
    for (const role of roles) expect(response.body.message).toContain(role);
  });

  it('creates an API key of a new role with the admin CLI, and the key acts with that role', async () => {
    const key = await runAdmin(['key', 'create', '--org', org.orgId, '--role', 'visualEditor']);

    const read = await api.request('GET', `${v1}/features`, { key });
    const write = await api.request('POST', `${v1}/features`, { key, body: { id: `f-${unique()}`, valueType: 'boolean', defaultValue: 'false' } });

    expect(key).toMatch(/^secret_visualEditor_/);
    expect([read.status, write.status]).toEqual([200, 403]);
  });

  it('refuses an unknown role in the admin CLI, naming the roles there are', async () => {
    await expect(runAdmin(['key', 'create', '--org', org.orgId, '--role', 'owner'])).rejects.toThrow(
      new UsageError(`--role must be one of ${roles.join(', ')}`),
    );
  });
});
