import * as contract from '../../shared/contracts/member-changes';
import { clearAuthCache } from '../../shared/api/auth';
import { newId } from '../../shared/ids';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember, memberIdByEmail, members } from '../../shared/store/members';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  await projects.create(org.orgId, { id: 'prj_web', name: 'Web' });
});
afterAll(() => api.close());

const newMember = (testOrg = org, role: 'readonly' | 'engineer' = 'readonly') =>
  addMember(testOrg.orgId, { name: 'Someone', email: `m-${newId('')}@example.com`, role, projectRoles: [] });
const setRole = (id: string, body: unknown, key = org.keys.admin) => api.request('POST', `/api/v1/members/${id}/role`, { key, body });
const remove = (id: string, key = org.keys.admin) => api.request('DELETE', `/api/v1/members/${id}`, { key });

describe('POST /members/{id}/role', () => {
  it('changes the global role, limited to some environments, and keeps it stored', async () => {
    const member = await newMember();

    const response = await setRole(member.id, { member: { role: 'engineer', environments: ['production'] } });

    expect(response.status).toBe(200);
    expectShape(contract.updateMemberRole, response.body);
    expect(response.body.updatedMember).toEqual({
      id: member.id,
      role: 'engineer',
      environments: ['production'],
      limitAccessByEnvironment: true,
      projectRoles: [],
    });
    expect(await members.get(org.orgId, member.id)).toMatchObject({ role: 'engineer', environments: ['production'], limitAccessByEnvironment: true });
  });

  it('sets project roles, and an empty list removes them all', async () => {
    const member = await newMember();

    const set = await setRole(member.id, { member: { projectRoles: [{ project: 'prj_web', role: 'experimenter', environments: [] }] } });
    const cleared = await setRole(member.id, { member: { projectRoles: [] } });

    expect(set.status).toBe(200);
    expect(set.body.updatedMember).toMatchObject({
      role: 'readonly',
      projectRoles: [{ project: 'prj_web', role: 'experimenter', environments: [], limitAccessByEnvironment: false }],
    });
    expect(cleared.body.updatedMember.projectRoles).toEqual([]);
  });

  it('gives a personal access token the new role', async () => {
    const member = await newMember();
    const { secret } = await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'token' });
    const before = await api.request('POST', '/api/v1/projects', { key: secret, body: { name: `P ${newId('')}` } });

    await setRole(member.id, { member: { role: 'admin' } });
    clearAuthCache();
    const after = await api.request('POST', '/api/v1/projects', { key: secret, body: { name: `P ${newId('')}` } });

    expect(before.status).toBe(403);
    expect(after.status).toBe(200);
  });

  it.each([
    ['an unknown role', { member: { role: 'owner' } }, /\[member\.role\] owner is not a valid role/],
    ['an environment limit on a role without environment access', { member: { role: 'readonly', environments: ['production'] } }, /\[member\.environments\] readonly does not support/],
    ['an unknown environment', { member: { role: 'engineer', environments: ['staging-x'] } }, /\[member\.environments\.0\] no environment has the id staging-x/],
    ['an unknown project', { member: { projectRoles: [{ project: 'prj_nope', role: 'engineer', environments: [] }] } }, /\[member\.projectRoles\.0\.project\] unknown project/],
    ['a project named twice', { member: { projectRoles: [{ project: 'prj_web', role: 'engineer', environments: [] }, { project: 'prj_web', role: 'admin', environments: [] }] } }, /\[member\.projectRoles\.1\.project\]/],
    ['no member object', { role: 'admin' }, /member/],
    ['an unknown field', { member: { role: 'admin', teams: [] } }, /teams/],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const member = await newMember();

    const response = await setRole(member.id, body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await members.get(org.orgId, member.id)).toEqual(member);
  });

  it('answers 403 without the manage permission', async () => {
    const member = await newMember();

    const responses = await Promise.all([setRole(member.id, { member: { role: 'admin' } }, org.keys.experimenter), setRole(member.id, { member: { role: 'admin' } }, org.keys.readonly)]);

    expect(responses.map((r) => r.status)).toEqual([403, 403]);
    expect((await members.get(org.orgId, member.id)).role).toBe('readonly');
  });

  it("answers 404 for an unknown member and for another organization's member", async () => {
    const theirs = await newMember(other);

    const unknown = await setRole('u_missing', { member: { role: 'admin' } });
    const foreign = await setRole(theirs.id, { member: { role: 'admin' } });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect((await members.get(other.orgId, theirs.id)).role).toBe('readonly');
  });
});

describe('DELETE /members/{id}', () => {
  it('removes the member, its e-mail, and its place in every team; its token stops working', async () => {
    const member = await newMember(org, 'engineer');
    const { secret } = await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: 'token' });
    const team = (await api.request('POST', '/api/v1/teams', { key: org.keys.admin, body: { name: `Team ${newId('')}`, description: '', role: 'readonly' } })).body.team;
    await api.request('POST', `/api/v1/teams/${team.id}/members`, { key: org.keys.admin, body: { members: [member.id, org.admin.memberId] } });

    const response = await remove(member.id);
    clearAuthCache();

    expect(response.status).toBe(200);
    expectShape(contract.deleteMember, response.body);
    expect(response.body).toEqual({ deletedId: member.id });
    expect(await members.find(org.orgId, member.id)).toBeUndefined();
    expect(await memberIdByEmail(org.orgId, member.email)).toBeUndefined();
    expect((await api.request('GET', `/api/v1/teams/${team.id}`, { key: org.keys.admin })).body.team.members).toEqual([org.admin.memberId]);
    expect((await api.request('GET', '/api/v1/features', { key: secret })).status).toBe(401);
  });

  it('lets the e-mail be used again by a new member', async () => {
    const member = await newMember();
    await remove(member.id);

    const again = await addMember(org.orgId, { name: 'Back', email: member.email, role: 'readonly', projectRoles: [] });

    expect(again.email).toBe(member.email);
  });

  it('answers 403 without the manage permission and keeps the member', async () => {
    const member = await newMember();

    const response = await remove(member.id, org.keys.experimenter);

    expect(response.status).toBe(403);
    expect(await members.find(org.orgId, member.id)).toBeDefined();
  });

  it("answers 404 for an unknown member and for another organization's member, which stays", async () => {
    const theirs = await newMember(other);

    const unknown = await remove('u_missing');
    const foreign = await remove(theirs.id);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(await members.find(other.orgId, theirs.id)).toBeDefined();
  });
});
