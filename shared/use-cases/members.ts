import * as contract from '../contracts/member-changes';
import * as membersContract from '../contracts/members';
import { type ApiMember, type StoredMember } from '../contracts/members';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { type RoledMember, applyRoleUpdate } from '../domain/member-roles';
import { paginated } from '../domain/pagination';
import { memberIdByEmail, members, removeMember } from '../store/members';
import { assertTeamReferences, teams } from '../store/teams';

/** The members a filtered list looks at: one by e-mail (its own item), else every member. */
async function candidates(orgId: string, query: { userEmail?: string }): Promise<StoredMember[]> {
  if (query.userEmail === undefined) return members.all(orgId);
  const id = await memberIdByEmail(orgId, query.userEmail);
  const member = id ? await members.find(orgId, id) : undefined;
  return member ? [member] : [];
}

/** `DELETE /members/{id}`: remove a member from the organization (and from its teams). */
export async function deleteMember({ params, auth }: UseCaseInput<typeof contract.deleteMember>): UseCaseOutput<typeof contract.deleteMember> {
  await removeMember(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /members`: list the members of the organization. */
export async function listMembers({
  query,
  auth,
}: UseCaseInput<typeof membersContract.listMembers>): UseCaseOutput<typeof membersContract.listMembers> {
  const { userName, userEmail, globalRole } = query;
  const filtered = userName !== undefined || userEmail !== undefined || globalRole !== undefined;
  const [page, orgTeams] = await Promise.all([
    filtered
      ? candidates(auth.orgId, query).then((all) => {
          // Each filter is an exact match, as GrowthBook applies them.
          const items = all.filter((m) => (userName === undefined || m.name === userName) && (globalRole === undefined || m.role === globalRole));
          return { items: items.slice(query.offset, query.offset + query.limit), total: items.length };
        })
      : members.list(auth.orgId, query),
    teams.all(auth.orgId),
  ]);
  const items = page.items.map(({ role, ...member }): ApiMember => ({
    ...member,
    globalRole: role,
    teams: orgTeams.filter((team) => team.members.includes(member.id)).map((team) => team.id),
    // Access is never limited by environment here, and no member is managed by an identity provider.
    environments: [],
    limitAccessByEnvironment: false,
    managedbyIdp: false,
  }));
  return paginated('members', { items, total: page.total }, query);
}

/** `POST /members/{id}/role`: change a member's global role (and the environments it is limited to) and, optionally, their project roles. */
export async function updateMemberRole({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateMemberRole>): UseCaseOutput<typeof contract.updateMemberRole> {
  const updated = (await members.update(auth.orgId, params.id, async (current) => {
    const next = applyRoleUpdate(current, body);
    // The same checks as a team's roles: every environment and project named exists.
    await assertTeamReferences(auth.orgId, { environments: body.member.environments, projectRoles: body.member.projectRoles }, 'member.');
    return next;
  })) as RoledMember;
  return {
    updatedMember: {
      id: updated.id,
      role: updated.role,
      environments: updated.environments ?? [],
      limitAccessByEnvironment: updated.limitAccessByEnvironment ?? false,
      projectRoles: updated.projectRoles,
    },
  };
}
