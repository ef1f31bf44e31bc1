import { endpoint } from '../../shared/api/endpoint';
import { getTeam } from '../../shared/contracts/teams';
import { teams } from '../../shared/store/teams';

export const handler = endpoint(getTeam, async ({ params, auth }) => ({ team: await teams.get(auth.orgId, params.id) }));
