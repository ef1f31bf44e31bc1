import { endpoint } from '../../shared/api/endpoint';
import { updateExperiment } from '../../shared/contracts/experiments';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(updateExperiment, experiments.updateExperiment);
