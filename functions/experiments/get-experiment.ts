import { endpoint } from '../../shared/api/endpoint';
import { getExperiment } from '../../shared/contracts/experiments';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(getExperiment, experiments.getExperiment);
