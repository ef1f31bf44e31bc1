import { endpoint } from '../../shared/api/endpoint';
import { addTeamMembers } from '../../shared/contracts/teams';
import { assertMembersExist, teams } from '../../shared/store/teams';

export const handler = endpoint(addTeamMembers, async ({ params, body, auth }) => {
  // Inside the update, so an unknown team is a 404 before the members are looked at.
  await teams.update(auth.orgId, params.id, async (team) => {
    await assertMembersExist(auth.orgId, body.members);
    return { ...team, members: [...new Set([...team.members, ...body.members])] };
  });
  return { status: 200 };
});
