import { endpoint } from '../../shared/api/endpoint';
import { listExperimentResults } from '../../shared/contracts/experiment-results';
import * as results from '../../shared/use-cases/experiment-results';

export const handler = endpoint(listExperimentResults, results.listExperimentResults);
