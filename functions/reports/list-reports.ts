import { endpoint } from '../../shared/api/endpoint';
import { listReports } from '../../shared/contracts/reports';
import * as reports from '../../shared/use-cases/reports';

export const handler = endpoint(listReports, reports.listReports);
