import { endpoint } from '../../shared/api/endpoint';
import { getDashboardsForExperiment } from '../../shared/contracts/dashboards';
import * as dashboards from '../../shared/use-cases/dashboards';

export const handler = endpoint(getDashboardsForExperiment, dashboards.getDashboardsForExperiment);
