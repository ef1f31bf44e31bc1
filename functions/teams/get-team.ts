import { endpoint } from '../../shared/api/endpoint';
import { getTeam } from '../../shared/contracts/teams';
import * as teams from '../../shared/use-cases/teams';

export const handler = endpoint(getTeam, teams.getTeam);
