import { endpoint } from '../../shared/api/endpoint';
import { createTeam } from '../../shared/contracts/teams';
import * as teams from '../../shared/use-cases/teams';

export const handler = endpoint(createTeam, teams.createTeam);
