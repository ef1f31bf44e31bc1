import { endpoint } from '../../shared/api/endpoint';
import { updateTeam } from '../../shared/contracts/teams';
import * as teams from '../../shared/use-cases/teams';

export const handler = endpoint(updateTeam, teams.updateTeam);
