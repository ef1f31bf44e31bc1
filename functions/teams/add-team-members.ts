import { startEarly } from '../../shared/concurrency';
import { endpoint } from '../../shared/api/endpoint';
import { addTeamMembers } from '../../shared/contracts/teams';
import { assertMembersExist } from '../../shared/store/members';
import { teams } from '../../shared/store/teams';

export const handler = endpoint(addTeamMembers, async ({ params, body, auth }) => {
  // Read alongside the team, but awaited inside the update, so an unknown team is a 404 before an unknown member.
  const membersChecked = startEarly(assertMembersExist(auth.orgId, body.members));
  await teams.update(auth.orgId, params.id, async (team) => {
    await membersChecked;
    return { ...team, members: [...new Set([...team.members, ...body.members])] };
  });
  return { status: 200 };
});
