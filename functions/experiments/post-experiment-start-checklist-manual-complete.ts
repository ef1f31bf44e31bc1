import { endpoint } from '../../shared/api/endpoint';
import { postExperimentStartChecklistManualComplete } from '../../shared/contracts/experiment-launch';
import * as launch from '../../shared/use-cases/experiment-launch';

export const handler = endpoint(postExperimentStartChecklistManualComplete, launch.postExperimentStartChecklistManualComplete);
