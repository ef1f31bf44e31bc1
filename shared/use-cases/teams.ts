import * as contract from '../contracts/teams';
import { startEarly } from '../concurrency';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { ConflictError } from '../errors';
import { newId } from '../ids';
import { assertMembersExist } from '../store/members';
import { assertTeamReferences, teams } from '../store/teams';

/** `POST /teams/{id}/members`: add members to a team. */
export async function addTeamMembers({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.addTeamMembers>): UseCaseOutput<typeof contract.addTeamMembers> {
  // Read alongside the team, but awaited inside the update, so an unknown team is a 404 before an unknown member.
  const membersChecked = startEarly(assertMembersExist(auth.orgId, body.members));
  await teams.update(auth.orgId, params.id, async (team) => {
    await membersChecked;
    return { ...team, members: [...new Set([...team.members, ...body.members])] };
  });
  return { status: 200 };
}

/** `POST /teams`: create a team. */
export async function createTeam({ body, auth }: UseCaseInput<typeof contract.createTeam>): UseCaseOutput<typeof contract.createTeam> {
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
}

/** `DELETE /teams/{id}`: delete a team. */
export async function deleteTeam({ params, query, auth }: UseCaseInput<typeof contract.deleteTeam>): UseCaseOutput<typeof contract.deleteTeam> {
  await teams.remove(auth.orgId, params.id, (team) => {
    // Deleting a team silently changes its members' roles, so it takes an explicit opt-in.
    if (team.members.length > 0 && !query.deleteMembers) {
      throw new ConflictError('invalid_status', `Team ${team.id} still has members; remove them first or pass deleteMembers=true`);
    }
  });
  return { deletedId: params.id };
}

/** `GET /teams/{id}`: get a team. */
export async function getTeam({ params, auth }: UseCaseInput<typeof contract.getTeam>): UseCaseOutput<typeof contract.getTeam> {
  return { team: await teams.get(auth.orgId, params.id) };
}

/** `GET /teams`: list teams. */
export async function listTeams({ auth }: UseCaseInput<typeof contract.listTeams>): UseCaseOutput<typeof contract.listTeams> {
  return { teams: await teams.all(auth.orgId) };
}

// Ids are not checked against the organization: a member who left it must still be removable.
/** `DELETE /teams/{id}/members`: remove members from a team. */
export async function removeTeamMember({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.removeTeamMember>): UseCaseOutput<typeof contract.removeTeamMember> {
  const leaving = new Set(body.members);
  await teams.update(auth.orgId, params.id, (team) => ({
    ...team,
    members: team.members.filter((member) => !leaving.has(member)),
  }));
  return { status: 200 };
}

/** `PUT /teams/{id}`: partially update a team. */
export async function updateTeam({ params, body, auth }: UseCaseInput<typeof contract.updateTeam>): UseCaseOutput<typeof contract.updateTeam> {
  await assertTeamReferences(auth.orgId, body);
  const team = await teams.update(auth.orgId, params.id, (current) => ({ ...current, ...body }));
  return { team };
}
