import { endpoint } from '../../shared/api/endpoint';
import { listTeams } from '../../shared/contracts/teams';
import * as teams from '../../shared/use-cases/teams';

export const handler = endpoint(listTeams, teams.listTeams);
