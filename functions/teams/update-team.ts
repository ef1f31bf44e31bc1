import { endpoint } from '../../shared/api/endpoint';
import { updateTeam } from '../../shared/contracts/teams';
import { assertTeamReferences, teams } from '../../shared/store/teams';

export const handler = endpoint(updateTeam, async ({ params, body, auth }) => {
  await assertTeamReferences(auth.orgId, body);
  const team = await teams.update(auth.orgId, params.id, (current) => ({ ...current, ...body }));
  return { team };
});
