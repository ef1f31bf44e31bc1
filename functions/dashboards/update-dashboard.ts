import { endpoint } from '../../shared/api/endpoint';
import { updateDashboard } from '../../shared/contracts/dashboards';
import * as dashboards from '../../shared/use-cases/dashboards';

export const handler = endpoint(updateDashboard, dashboards.updateDashboard);
