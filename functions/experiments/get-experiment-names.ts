import { endpoint } from '../../shared/api/endpoint';
import { getExperimentNames } from '../../shared/contracts/experiment-status';
import { experiments } from '../../shared/store/experiments';

export const handler = endpoint(getExperimentNames, async ({ query, auth }) => {
  const found = await experiments.allTagged(auth.orgId, query.projectId ? [`project:${query.projectId}`] : []);
  return { experiments: found.filter((e) => !e.archived).map((e) => ({ id: e.id, name: e.name })) };
});
