import { endpoint } from '../../shared/api/endpoint';
import { bulkImportExperimentTemplates } from '../../shared/contracts/experiment-templates';
import * as experimentTemplates from '../../shared/use-cases/experiment-templates';

export const handler = endpoint(bulkImportExperimentTemplates, experimentTemplates.bulkImportExperimentTemplates);
