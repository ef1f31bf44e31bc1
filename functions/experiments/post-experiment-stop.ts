import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postExperimentStop } from '../../shared/contracts/experiment-status';
import { assertNotHoldout, stoppedExperiment } from '../../shared/domain/experiment-status';
import { enhancedStatus } from '../../shared/domain/experiments';
import { changeExperiment } from '../../shared/store/experiment-schedule';

export const handler = endpoint(postExperimentStop, async ({ params, body, auth }) => {
  const experiment = await changeExperiment(auth.orgId, params.id, (current) => {
    assertCan(auth, postExperimentStop.permission, current.project ? [current.project] : []);
    assertNotHoldout(current);
    return stoppedExperiment(current, body, new Date().toISOString());
  });
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) } };
});
