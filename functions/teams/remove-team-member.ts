import { endpoint } from '../../shared/api/endpoint';
import { removeTeamMember } from '../../shared/contracts/teams';
import { teams } from '../../shared/store/teams';

// Ids are not checked against the organization: a member who left it must still be removable.
export const handler = endpoint(removeTeamMember, async ({ params, body, auth }) => {
  const leaving = new Set(body.members);
  await teams.update(auth.orgId, params.id, (team) => ({
    ...team,
    members: team.members.filter((member) => !leaving.has(member)),
  }));
  return { status: 200 };
});
