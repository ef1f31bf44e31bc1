import { endpoint } from '../../shared/api/endpoint';
import { getExperiment } from '../../shared/contracts/experiments';
import { enhancedStatus } from '../../shared/domain/experiments';
import { experiments } from '../../shared/store/experiments';

export const handler = endpoint(getExperiment, async ({ params, auth }) => {
  const experiment = await experiments.get(auth.orgId, params.id);
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) } };
});
