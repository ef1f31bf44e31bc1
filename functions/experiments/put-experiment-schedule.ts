import { endpoint } from '../../shared/api/endpoint';
import { putExperimentSchedule } from '../../shared/contracts/experiment-status';
import * as experiments from '../../shared/use-cases/experiments';

export const handler = endpoint(putExperimentSchedule, experiments.putExperimentSchedule);
