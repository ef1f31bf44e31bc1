import { endpoint } from '../../shared/api/endpoint';
import { listExperimentTemplates } from '../../shared/contracts/experiment-templates';
import * as experimentTemplates from '../../shared/use-cases/experiment-templates';

export const handler = endpoint(listExperimentTemplates, experimentTemplates.listExperimentTemplates);
