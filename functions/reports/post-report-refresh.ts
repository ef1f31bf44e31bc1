import { endpoint } from '../../shared/api/endpoint';
import { postReportRefresh } from '../../shared/contracts/reports';
import * as reports from '../../shared/use-cases/reports';

export const handler = endpoint(postReportRefresh, reports.postReportRefresh);
