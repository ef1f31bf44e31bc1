import { endpoint } from '../../shared/api/endpoint';
import { getExperimentNames } from '../../shared/contracts/experiment-status';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(getExperimentNames, experiments.getExperimentNames);
