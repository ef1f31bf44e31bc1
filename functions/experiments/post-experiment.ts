import { endpoint } from '../../shared/api/endpoint';
import { postExperiment } from '../../shared/contracts/experiments';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(postExperiment, experiments.postExperiment);
