import { endpoint } from '../../shared/api/endpoint';
import { getExperimentSnapshot } from '../../shared/contracts/snapshots';
import * as snapshots from '../../shared/use-cases/snapshots';

export const handler = endpoint(getExperimentSnapshot, snapshots.getExperimentSnapshot);
