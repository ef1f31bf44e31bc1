import { endpoint } from '../../shared/api/endpoint';
import { postExperimentStop } from '../../shared/contracts/experiment-status';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(postExperimentStop, experiments.postExperimentStop);
