import { endpoint } from '../../shared/api/endpoint';
import { ConflictError } from '../../shared/errors';
import { deleteTeam } from '../../shared/contracts/teams';
import { teams } from '../../shared/store/teams';

export const handler = endpoint(deleteTeam, async ({ params, query, auth }) => {
  await teams.remove(auth.orgId, params.id, (team) => {
    // Deleting a team silently changes its members' roles, so it takes an explicit opt-in.
    if (team.members.length > 0 && !query.deleteMembers) {
      throw new ConflictError('invalid_status', `Team ${team.id} still has members; remove them first or pass deleteMembers=true`);
    }
  });
  return { deletedId: params.id };
});
