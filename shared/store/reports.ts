import type { StoredReport } from '../contracts/reports';
import { repository } from '../db/repository';

/** Reports; lists filter on the experiment they analyse. */
export const reports = repository<StoredReport>({ type: 'REPORT', label: 'Report', listTags: (report) => [`experiment:${report.experimentId}`] });
