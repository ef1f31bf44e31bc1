import { endpoint } from '../../shared/api/endpoint';
import { updateExperimentTemplate } from '../../shared/contracts/experiment-templates';
import * as experimentTemplates from '../../shared/use-cases/experiment-templates';

export const handler = endpoint(updateExperimentTemplate, experimentTemplates.updateExperimentTemplate);
