import { endpoint } from '../../shared/api/endpoint';
import { listExperimentTemplates } from '../../shared/contracts/experiment-templates';
import { experimentTemplates } from '../../shared/store/experiment-templates';

export const handler = endpoint(listExperimentTemplates, async ({ query, auth }) => {
  const all = await experimentTemplates.all(auth.orgId);
  return { experimentTemplates: query.projectId ? all.filter((t) => t.project === query.projectId) : all };
});
