import { endpoint } from '../../shared/api/endpoint';
import { getDashboard } from '../../shared/contracts/dashboards';
import { dashboards } from '../../shared/store/dashboards';

export const handler = endpoint(getDashboard, async ({ params, auth }) => ({ dashboard: await dashboards.get(auth.orgId, params.id) }));
