import * as contract from '../../shared/contracts/teams';
import { clearAuthCache } from '../../shared/api/auth';
import type { Role } from '../../shared/permissions';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  await Promise.all([
    ...['prj_a', 'prj_b', 'prj_team', 'prj_elsewhere'].map((id) => projects.create(org.orgId, { id, name: id })),
    projects.create(other.orgId, { id: 'prj_other', name: 'Other project' }),
  ]);
});
afterAll(() => api.close());

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/teams', { key, body });
/** A project role entry with everything but the project and role left open. */
const projectRoleFor = (project: string, role = 'admin', environments: string[] = []) => ({
  project,
  role,
  limitAccessByEnvironment: environments.length > 0,
  environments,
});
const withRoles = (...projectRoles: unknown[]) => ({ name: 'x', description: '', role: 'admin', projectRoles });
const newTeam = async (body: Record<string, unknown> = {}, key = org.keys.admin) =>
  (await create({ name: 'Team', description: '', role: 'readonly', ...body }, key)).body.team;
const teamMembers = (id: string, method: 'POST' | 'DELETE', members: unknown, key = org.keys.admin) =>
  api.request(method, `/api/v1/teams/${id}/members`, { key, body: { members } });
const getTeam = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/teams/${id}`, { key });

let memberCount = 0;
/** A member of `target` with the given own role and a personal access token of their own. */
async function memberWithToken(role: Role, target = org) {
  const email = `m${++memberCount}-${target.orgId}@example.com`;
  const member = await addMember(target.orgId, { name: 'M', email, role, projectRoles: [] });
  const token = (await createApiKey({ orgId: target.orgId, role: 'user', memberId: member.id, description: 'test' })).secret;
  return { id: member.id, token };
}

describe('POST /teams', () => {
  it('creates a team with defaults for the fields not given', async () => {
    const response = await create({ name: 'Engineers', description: 'Build things', role: 'engineer' });

    expect(response.status).toBe(200);
    expectShape(contract.createTeam, response.body);
    expect(response.body.team).toEqual({
      id: expect.stringMatching(/^team_/),
      dateCreated: expect.any(String),
      dateUpdated: response.body.team.dateCreated,
      name: 'Engineers',
      createdBy: '',
      description: 'Build things',
      role: 'engineer',
      limitAccessByEnvironment: false,
      environments: [],
      projectRoles: [],
      members: [],
      managedByIdp: false,
    });
  });

  it('stores every documented field', async () => {
    const body = {
      name: 'Full',
      createdBy: 'Jane',
      description: 'All fields',
      role: 'experimenter',
      limitAccessByEnvironment: true,
      environments: ['production'],
      projectRoles: [{ project: 'prj_a', role: 'admin', limitAccessByEnvironment: true, environments: ['dev'], teams: [] }],
      managedBy: { type: 'vercel', resourceId: 'res_1' },
      defaultProject: 'prj_a',
    };

    const response = await create(body);

    expect(response.status).toBe(200);
    expectShape(contract.createTeam, response.body);
    expect(response.body.team).toMatchObject(body);
  });

  it("records the caller's member id as createdBy for a personal access token", async () => {
    const response = await create({ name: 'Mine', description: '', role: 'readonly' }, org.admin.token);

    expect(response.body.team.createdBy).toBe(org.admin.memberId);
  });

  it.each([
    ['a missing name', { description: '', role: 'admin' }, /\[name\]/],
    ['a blank name', { name: '  ', description: '', role: 'admin' }, /\[name\]/],
    ['a missing description', { name: 'x', role: 'admin' }, /\[description\]/],
    ['a missing role', { name: 'x', description: '' }, /\[role\]/],
    ['an unknown role', { name: 'x', description: '', role: 'owner' }, /\[role\]/],
    ['an unknown environment', { name: 'x', description: '', role: 'admin', environments: ['staging'] }, /\[environments\.0\]/],
    ['an unknown environment in a project role', withRoles(projectRoleFor('p', 'admin', ['dev', 'qa'])), /\[projectRoles\.0\.environments\.1\]/],
    [
      'a project role without limitAccessByEnvironment',
      withRoles({ project: 'p', role: 'admin', environments: [] }),
      /\[projectRoles\.0\.limitAccessByEnvironment\]/,
    ],
    ['two roles for the same project', withRoles(projectRoleFor('p'), projectRoleFor('p', 'readonly')), /\[projectRoles\.1\.project\]/],
    ['an unknown project in a project role', withRoles(projectRoleFor('prj_missing')), /\[projectRoles\.0\.project\] .*prj_missing/],
    ["another organization's project as defaultProject", { ...withRoles(), defaultProject: 'prj_other' }, /\[defaultProject\]/],
    ['a managedBy of another type', { ...withRoles(), managedBy: { type: 'okta', resourceId: 'r' } }, /\[managedBy\.type\]/],
    ['members, which are changed through /members', { name: 'x', description: '', role: 'admin', members: [] }, /members/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const fresh = await createTestOrg();

    const response = await create(body, fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    const after = await api.request('GET', '/api/v1/teams', { key: fresh.keys.admin });
    expect(after.body.teams).toEqual([]);
  });

  it('answers 403 for an experimenter key, since teams need the manage permission', async () => {
    const response = await create({ name: 'x', description: '', role: 'admin' }, org.keys.experimenter);

    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
  });
});

describe('GET /teams', () => {
  it('lists every team of the organization in creation order, without pagination', async () => {
    const fresh = await createTestOrg();
    const first = await newTeam({ name: 'first' }, fresh.keys.admin);
    const second = await newTeam({ name: 'second' }, fresh.keys.admin);

    const response = await api.request('GET', '/api/v1/teams', { key: fresh.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.listTeams, response.body);
    expect(response.body).toEqual({ teams: [first, second] });
  });

  it('answers 403 for a noaccess key', async () => {
    const response = await api.request('GET', '/api/v1/teams', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});

describe('GET /teams/{id}', () => {
  it('returns the team to a readonly key', async () => {
    const team = await newTeam({ name: 'Readable' });

    const response = await getTeam(team.id, org.keys.readonly);

    expect(response.status).toBe(200);
    expectShape(contract.getTeam, response.body);
    expect(response.body).toEqual({ team });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await getTeam('team_missing');

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('team_missing') });
  });

  it('answers 404 when the team belongs to another organization', async () => {
    const team = await newTeam();

    const response = await getTeam(team.id, other.keys.admin);

    expect(response.status).toBe(404);
  });

  it('answers 403 for a noaccess key', async () => {
    const team = await newTeam();

    const response = await getTeam(team.id, org.keys.noaccess);

    expect(response.status).toBe(403);
  });
});

describe('PUT /teams/{id}', () => {
  it('changes only the given fields and bumps dateUpdated', async () => {
    const team = await newTeam({ name: 'Before', description: 'kept', environments: ['dev'] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const change = {
      name: 'After',
      createdBy: 'Someone',
      role: 'admin',
      limitAccessByEnvironment: true,
      environments: [],
      projectRoles: [{ project: 'prj_b', role: 'engineer', limitAccessByEnvironment: false, environments: [] }],
      managedBy: { type: 'vercel', resourceId: 'res_2' },
      defaultProject: 'prj_b',
    };

    const response = await api.request('PUT', `/api/v1/teams/${team.id}`, { key: org.keys.admin, body: change });

    expect(response.status).toBe(200);
    expectShape(contract.updateTeam, response.body);
    expect(response.body.team).toMatchObject({ ...change, description: 'kept', members: [], dateCreated: team.dateCreated });
    expect(response.body.team.dateUpdated > team.dateUpdated).toBe(true);
  });

  it.each([
    ['an unknown role', { role: 'owner' }, /\[role\]/],
    ['an unknown environment', { environments: ['nowhere'] }, /\[environments\.0\]/],
    ['a name that is not a string', { name: 5 }, /\[name\]/],
    ['an unknown defaultProject', { defaultProject: 'prj_missing' }, /\[defaultProject\]/],
    ["another organization's project in a project role", { projectRoles: [projectRoleFor('prj_other')] }, /\[projectRoles\.0\.project\]/],
    ['an unknown field', { colour: 'red' }, /colour/],
  ])('answers 400 for %s and leaves the team unchanged', async (_case, body, message) => {
    const team = await newTeam();

    const response = await api.request('PUT', `/api/v1/teams/${team.id}`, { key: org.keys.admin, body });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await getTeam(team.id)).body).toEqual({ team });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('PUT', '/api/v1/teams/team_missing', { key: org.keys.admin, body: { name: 'x' } });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's team and leaves it unchanged", async () => {
    const team = await newTeam();

    const response = await api.request('PUT', `/api/v1/teams/${team.id}`, { key: other.keys.admin, body: { name: 'taken' } });

    expect(response.status).toBe(404);
    expect((await getTeam(team.id)).body.team.name).toBe(team.name);
  });

  it('answers 403 for an experimenter key', async () => {
    const team = await newTeam();

    const response = await api.request('PUT', `/api/v1/teams/${team.id}`, { key: org.keys.experimenter, body: { name: 'x' } });

    expect(response.status).toBe(403);
  });

  it('loses no write when many clients update different fields at once', async () => {
    const team = await newTeam({ name: 'Busy' });

    const responses = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) =>
        api.request('PUT', `/api/v1/teams/${team.id}`, { key: org.keys.admin, body: { name: `name ${i}` } }),
      ),
      api.request('PUT', `/api/v1/teams/${team.id}`, { key: org.keys.admin, body: { description: 'described' } }),
      api.request('PUT', `/api/v1/teams/${team.id}`, { key: org.keys.admin, body: { role: 'engineer' } }),
      api.request('PUT', `/api/v1/teams/${team.id}`, { key: org.keys.admin, body: { environments: ['dev'] } }),
    ]);

    expect(responses.map((r) => r.status)).toEqual(Array(7).fill(200));
    const final = (await getTeam(team.id)).body.team;
    expect(final).toMatchObject({ description: 'described', role: 'engineer', environments: ['dev'] });
    expect(final.name).toMatch(/^name [0-3]$/);
  });
});

describe('DELETE /teams/{id}', () => {
  it('deletes an empty team and answers with its id', async () => {
    const team = await newTeam();

    const response = await api.request('DELETE', `/api/v1/teams/${team.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.deleteTeam, response.body);
    expect(response.body).toEqual({ deletedId: team.id });
    expect((await getTeam(team.id)).status).toBe(404);
  });

  it('answers 409 for a team with members unless deleteMembers=true is passed', async () => {
    const team = await newTeam();
    await teamMembers(team.id, 'POST', [org.admin.memberId]);

    const refused = await api.request('DELETE', `/api/v1/teams/${team.id}`, { key: org.keys.admin });
    const stillThere = await getTeam(team.id);
    const allowed = await api.request('DELETE', `/api/v1/teams/${team.id}?deleteMembers=true`, { key: org.keys.admin });

    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('invalid_status');
    expect(stillThere.status).toBe(200);
    expect(allowed.status).toBe(200);
    expect((await getTeam(team.id)).status).toBe(404);
  });

  it('answers 400 for a deleteMembers value that is not a boolean', async () => {
    const team = await newTeam();

    const response = await api.request('DELETE', `/api/v1/teams/${team.id}?deleteMembers=yes`, { key: org.keys.admin });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Querystring: \[deleteMembers\]/);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('DELETE', '/api/v1/teams/team_missing', { key: org.keys.admin });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's team and keeps it", async () => {
    const team = await newTeam();

    const response = await api.request('DELETE', `/api/v1/teams/${team.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect((await getTeam(team.id)).status).toBe(200);
  });

  it('answers 403 for an experimenter key and keeps the team', async () => {
    const team = await newTeam();

    const response = await api.request('DELETE', `/api/v1/teams/${team.id}`, { key: org.keys.experimenter });

    expect(response.status).toBe(403);
    expect((await getTeam(team.id)).status).toBe(200);
  });
});

describe('POST /teams/{id}/members', () => {
  it('adds members once each and answers {status: 200}', async () => {
    const team = await newTeam();
    const member = await memberWithToken('readonly');
    await teamMembers(team.id, 'POST', [org.admin.memberId]);

    const response = await teamMembers(team.id, 'POST', [member.id, org.admin.memberId]);

    expect(response.status).toBe(200);
    expectShape(contract.addTeamMembers, response.body);
    expect(response.body).toEqual({ status: 200 });
    expect((await getTeam(team.id)).body.team.members).toEqual([org.admin.memberId, member.id]);
  });

  it('shows the team in the member list of the organization', async () => {
    const team = await newTeam();
    const member = await memberWithToken('readonly');

    await teamMembers(team.id, 'POST', [member.id]);

    const { body } = await api.request('GET', '/api/v1/members?limit=100', { key: org.keys.admin });
    expect(body.members.find((m: { id: string }) => m.id === member.id).teams).toEqual([team.id]);
  });

  it.each([
    ['an unknown member id', () => ['u_missing'], /\[members\.0\] .*u_missing/],
    ["another organization's member", () => [org.admin.memberId, other.admin.memberId], /\[members\.1\]/],
    ['members that are not strings', () => [1], /\[members\.0\]/],
  ])('answers 400 for %s and adds nobody', async (_case, members, message) => {
    const team = await newTeam();

    const response = await teamMembers(team.id, 'POST', members());

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await getTeam(team.id)).body.team.members).toEqual([]);
  });

  it('answers 400 when members is missing', async () => {
    const team = await newTeam();

    const response = await api.request('POST', `/api/v1/teams/${team.id}/members`, { key: org.keys.admin, body: {} });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[members\]/);
  });

  it('answers 404 for an unknown team', async () => {
    const response = await teamMembers('team_missing', 'POST', [org.admin.memberId]);

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's team", async () => {
    const team = await newTeam();

    const response = await teamMembers(team.id, 'POST', [other.admin.memberId], other.keys.admin);

    expect(response.status).toBe(404);
    expect((await getTeam(team.id)).body.team.members).toEqual([]);
  });

  it('answers 403 for an experimenter key', async () => {
    const team = await newTeam();

    const response = await teamMembers(team.id, 'POST', [org.admin.memberId], org.keys.experimenter);

    expect(response.status).toBe(403);
  });

  it('loses no member when many clients add members at once', async () => {
    const team = await newTeam();
    const added = await Promise.all(Array.from({ length: 6 }, () => memberWithToken('readonly')));

    const responses = await Promise.all(added.map((member) => teamMembers(team.id, 'POST', [member.id])));

    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
    const { members } = (await getTeam(team.id)).body.team;
    expect([...members].sort()).toEqual(added.map((member) => member.id).sort());
  });
});

describe('DELETE /teams/{id}/members', () => {
  it('removes the given members and ignores ids that are not in the team', async () => {
    const team = await newTeam();
    const member = await memberWithToken('readonly');
    await teamMembers(team.id, 'POST', [org.admin.memberId, member.id]);

    const response = await teamMembers(team.id, 'DELETE', [member.id, 'u_never_there']);

    expect(response.status).toBe(200);
    expectShape(contract.removeTeamMember, response.body);
    expect(response.body).toEqual({ status: 200 });
    expect((await getTeam(team.id)).body.team.members).toEqual([org.admin.memberId]);
  });

  it('answers 400 when members is not a list', async () => {
    const team = await newTeam();

    const response = await teamMembers(team.id, 'DELETE', 'u_1');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[members\]/);
  });

  it('answers 404 for an unknown team', async () => {
    const response = await teamMembers('team_missing', 'DELETE', [org.admin.memberId]);

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's team and keeps its members", async () => {
    const team = await newTeam();
    await teamMembers(team.id, 'POST', [org.admin.memberId]);

    const response = await teamMembers(team.id, 'DELETE', [org.admin.memberId], other.keys.admin);

    expect(response.status).toBe(404);
    expect((await getTeam(team.id)).body.team.members).toEqual([org.admin.memberId]);
  });

  it('answers 403 for an experimenter key', async () => {
    const team = await newTeam();

    const response = await teamMembers(team.id, 'DELETE', [org.admin.memberId], org.keys.experimenter);

    expect(response.status).toBe(403);
  });

  it('loses no removal when many clients remove members at once', async () => {
    const team = await newTeam();
    const joined = await Promise.all(Array.from({ length: 6 }, () => memberWithToken('readonly')));
    await teamMembers(team.id, 'POST', joined.map((member) => member.id));

    const responses = await Promise.all(joined.slice(1).map((member) => teamMembers(team.id, 'DELETE', [member.id])));

    expect(responses.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect((await getTeam(team.id)).body.team.members).toEqual([joined[0].id]);
  });
});

describe("a team's roles and a personal access token", () => {
  const createGroup = (token: string, projects?: string[]) =>
    api.request('POST', '/api/v1/saved-groups', { key: token, body: { name: 'g', condition: '{"id":"1"}', projects } });

  beforeEach(() => clearAuthCache());

  it('lets a readonly member of an engineer team write', async () => {
    const member = await memberWithToken('readonly');
    const team = await newTeam({ role: 'engineer' });
    const before = await createGroup(member.token);

    await teamMembers(team.id, 'POST', [member.id]);
    clearAuthCache();
    const after = await createGroup(member.token);

    expect(before.status).toBe(403);
    expect(after.status).toBe(200);
  });

  it('takes the write permission away again when the member leaves the team', async () => {
    const member = await memberWithToken('readonly');
    const team = await newTeam({ role: 'engineer' });
    await teamMembers(team.id, 'POST', [member.id]);
    const asMember = await createGroup(member.token);

    await teamMembers(team.id, 'DELETE', [member.id]);
    clearAuthCache();
    const afterLeaving = await createGroup(member.token);

    expect(asMember.status).toBe(200);
    expect(afterLeaving.status).toBe(403);
  });

  it("applies a team's project role to that project only", async () => {
    const member = await memberWithToken('readonly');
    const team = await newTeam({
      role: 'readonly',
      projectRoles: [{ project: 'prj_team', role: 'engineer', limitAccessByEnvironment: false, environments: [] }],
    });
    await teamMembers(team.id, 'POST', [member.id]);

    const inProject = await createGroup(member.token, ['prj_team']);
    const inOtherProject = await createGroup(member.token, ['prj_elsewhere']);
    const inNoProject = await createGroup(member.token);

    expect(inProject.status).toBe(200);
    expect(inOtherProject.status).toBe(403);
    expect(inNoProject.status).toBe(403);
  });
});
