import { endpoint } from '../../shared/api/endpoint';
import { listDashboards } from '../../shared/contracts/dashboards';
import { dashboards } from '../../shared/store/dashboards';

export const handler = endpoint(listDashboards, async ({ auth }) => ({ dashboards: await dashboards.all(auth.orgId) }));
