import { endpoint } from '../../shared/api/endpoint';
import { putReportSettings } from '../../shared/contracts/reports';
import * as reports from '../../shared/use-cases/reports';

export const handler = endpoint(putReportSettings, reports.putReportSettings);
