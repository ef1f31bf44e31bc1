import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { putExperimentSchedule } from '../../shared/contracts/experiment-status';
import { assertNotHoldout, rescheduledExperiment } from '../../shared/domain/experiment-status';
import { enhancedStatus } from '../../shared/domain/experiments';
import { changeExperiment } from '../../shared/store/experiment-schedule';

export const handler = endpoint(putExperimentSchedule, async ({ params, body, auth }) => {
  const experiment = await changeExperiment(auth.orgId, params.id, (current) => {
    assertCan(auth, putExperimentSchedule.permission, current.project ? [current.project] : []);
    assertNotHoldout(current);
    return rescheduledExperiment(current, body, new Date().toISOString());
  });
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) } };
});
