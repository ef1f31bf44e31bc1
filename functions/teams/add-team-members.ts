import { endpoint } from '../../shared/api/endpoint';
import { addTeamMembers } from '../../shared/contracts/teams';
import { assertMembersExist, teams } from '../../shared/store/teams';

export const handler = endpoint(addTeamMembers, async ({ params, body, auth }) => {
  await assertMembersExist(auth.orgId, body.members);
  await teams.update(auth.orgId, params.id, (team) => ({
    ...team,
    members: [...new Set([...team.members, ...body.members])],
  }));
  return { status: 200 };
});
