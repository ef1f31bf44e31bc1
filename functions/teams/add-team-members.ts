import { endpoint } from '../../shared/api/endpoint';
import { addTeamMembers } from '../../shared/contracts/teams';
import * as teams from '../../shared/use-cases/teams';

export const handler = endpoint(addTeamMembers, teams.addTeamMembers);
