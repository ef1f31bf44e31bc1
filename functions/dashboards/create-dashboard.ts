import { endpoint } from '../../shared/api/endpoint';
import { createDashboard } from '../../shared/contracts/dashboards';
import * as dashboards from '../../shared/use-cases/dashboards';

export const handler = endpoint(createDashboard, dashboards.createDashboard);
