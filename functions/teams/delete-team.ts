import { endpoint } from '../../shared/api/endpoint';
import { deleteTeam } from '../../shared/contracts/teams';
import * as teams from '../../shared/use-cases/teams';

export const handler = endpoint(deleteTeam, teams.deleteTeam);
