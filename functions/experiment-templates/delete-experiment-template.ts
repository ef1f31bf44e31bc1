import { endpoint } from '../../shared/api/endpoint';
import { deleteExperimentTemplate } from '../../shared/contracts/experiment-templates';
import * as experimentTemplates from '../../shared/use-cases/experiment-templates';

export const handler = endpoint(deleteExperimentTemplate, experimentTemplates.deleteExperimentTemplate);
