import { endpoint } from '../../shared/api/endpoint';
import { updateMemberRole } from '../../shared/contracts/member-changes';
import { applyRoleUpdate, type RoledMember } from '../../shared/domain/member-roles';
import { members } from '../../shared/store/members';
import { assertTeamReferences } from '../../shared/store/teams';

export const handler = endpoint(updateMemberRole, async ({ params, body, auth }) => {
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
});
