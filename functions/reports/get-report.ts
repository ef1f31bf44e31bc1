import { endpoint } from '../../shared/api/endpoint';
import { getReport } from '../../shared/contracts/reports';
import * as reports from '../../shared/use-cases/reports';

export const handler = endpoint(getReport, reports.getReport);
