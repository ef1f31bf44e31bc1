import { endpoint } from '../../shared/api/endpoint';
import { listTeams } from '../../shared/contracts/teams';
import { teams } from '../../shared/store/teams';

export const handler = endpoint(listTeams, async ({ auth }) => ({ teams: await teams.all(auth.orgId) }));
