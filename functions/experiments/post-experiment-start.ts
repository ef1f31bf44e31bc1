import { endpoint } from '../../shared/api/endpoint';
import { postExperimentStart } from '../../shared/contracts/experiment-status';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(postExperimentStart, experiments.postExperimentStart);
