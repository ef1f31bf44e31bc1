import { endpoint } from '../../shared/api/endpoint';
import { getDashboard } from '../../shared/contracts/dashboards';
import * as dashboards from '../../shared/use-cases/dashboards';

export const handler = endpoint(getDashboard, dashboards.getDashboard);
