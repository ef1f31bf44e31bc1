import { endpoint } from '../../shared/api/endpoint';
import { listExperiments } from '../../shared/contracts/experiments';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(listExperiments, experiments.listExperiments);
