import { endpoint } from '../../shared/api/endpoint';
import { getExperimentTemplate } from '../../shared/contracts/experiment-templates';
import { experimentTemplates } from '../../shared/store/experiment-templates';

export const handler = endpoint(getExperimentTemplate, async ({ params, auth }) => ({
  experimentTemplate: await experimentTemplates.get(auth.orgId, params.id),
}));
