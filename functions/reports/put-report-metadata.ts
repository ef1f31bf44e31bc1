import { endpoint } from '../../shared/api/endpoint';
import { putReportMetadata } from '../../shared/contracts/reports';
import * as reports from '../../shared/use-cases/reports';

export const handler = endpoint(putReportMetadata, reports.putReportMetadata);
