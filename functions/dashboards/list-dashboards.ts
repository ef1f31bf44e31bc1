import { endpoint } from '../../shared/api/endpoint';
import { listDashboards } from '../../shared/contracts/dashboards';
import * as dashboards from '../../shared/use-cases/dashboards';

export const handler = endpoint(listDashboards, dashboards.listDashboards);
