import { endpoint } from '../../shared/api/endpoint';
import { postReport } from '../../shared/contracts/reports';
import * as reports from '../../shared/use-cases/reports';

export const handler = endpoint(postReport, reports.postReport);
