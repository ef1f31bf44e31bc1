import { endpoint } from '../../shared/api/endpoint';
import { deleteDashboard } from '../../shared/contracts/dashboards';
import * as dashboards from '../../shared/use-cases/dashboards';

export const handler = endpoint(deleteDashboard, dashboards.deleteDashboard);
