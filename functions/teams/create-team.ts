import { endpoint } from '../../shared/api/endpoint';
import { createTeam } from '../../shared/contracts/teams';
import { newId } from '../../shared/ids';
import { assertTeamReferences, teams } from '../../shared/store/teams';

export const handler = endpoint(createTeam, async ({ body, auth }) => {
  await assertTeamReferences(auth.orgId, body);
  const team = await teams.create(auth.orgId, {
    id: newId('team_'),
    createdBy: auth.memberId ?? '',
    limitAccessByEnvironment: false,
    environments: [],
    projectRoles: [],
    ...body,
    members: [],
    managedByIdp: false,
  });
  return { team };
});
