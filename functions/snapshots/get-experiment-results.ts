import { endpoint } from '../../shared/api/endpoint';
import { getExperimentResults } from '../../shared/contracts/snapshots';
import * as snapshots from '../../shared/use-cases/snapshots';

export const handler = endpoint(getExperimentResults, snapshots.getExperimentResults);
