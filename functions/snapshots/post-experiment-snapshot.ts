import { endpoint } from '../../shared/api/endpoint';
import { postExperimentSnapshot } from '../../shared/contracts/snapshots';
import * as snapshots from '../../shared/use-cases/snapshots';

export const handler = endpoint(postExperimentSnapshot, snapshots.postExperimentSnapshot);
