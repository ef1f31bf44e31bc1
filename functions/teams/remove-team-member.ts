import { endpoint } from '../../shared/api/endpoint';
import { removeTeamMember } from '../../shared/contracts/teams';
import * as teams from '../../shared/use-cases/teams';

export const handler = endpoint(removeTeamMember, teams.removeTeamMember);
