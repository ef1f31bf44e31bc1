import { endpoint } from '../../shared/api/endpoint';
import { ConflictError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { postExperimentStart } from '../../shared/contracts/experiment-status';
import { assertNotHoldout, futureStart, incompleteChecklist, stagedStart, startedExperiment } from '../../shared/domain/experiment-status';
import { enhancedStatus } from '../../shared/domain/experiments';
import { changeExperiment } from '../../shared/store/experiment-schedule';
import { linkedFeatureCount } from '../../shared/store/features';
import { sdkConnections } from '../../shared/store/sdk-connections';

/** GrowthBook's wording for a staged start, e.g. "Jan 5, 2030 at 9:30 AM UTC". */
const utc = (date: string) => {
  const at = new Date(date);
  const day = at.toLocaleString('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric', year: 'numeric' });
  const time = at.toLocaleString('en-US', { timeZone: 'UTC', hour: 'numeric', minute: '2-digit', hour12: true });
  return `${day} at ${time} UTC`;
};

export const handler = endpoint(postExperimentStart, async ({ params, body, auth }) => {
  let message: string | undefined;
  const experiment = await changeExperiment(auth.orgId, params.id, async (current) => {
    assertCan(auth, postExperimentStart.permission, current.project ? [current.project] : []);
    assertNotHoldout(current);
    const now = new Date().toISOString();
    const startAt = futureStart(current, now);
    if (startAt) {
      message = `Experiment had a schedule set for a future date and was successfully staged to start on ${utc(startAt)}`;
      return stagedStart(current, startAt);
    }
    if (!body.skipChecklist && current.status === 'draft') {
      const [linkedFeatures, connections] = await Promise.all([
        linkedFeatureCount(auth.orgId, current.id),
        sdkConnections.list(auth.orgId, { limit: 1, offset: 0 }),
      ]);
      const missing = incompleteChecklist(current, { linkedFeatures, sdkConnections: connections.total });
      if (missing.length) {
        throw new ConflictError('invalid_status', `The start checklist is incomplete: ${missing.join(', ')} (send skipChecklist: true to start anyway)`);
      }
    }
    return startedExperiment(current, now);
  });
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) }, ...(message ? { message } : {}) };
});
