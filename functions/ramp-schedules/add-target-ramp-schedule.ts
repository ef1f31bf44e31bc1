import { endpoint } from '../../shared/api/endpoint';
import { addTargetRampSchedule } from '../../shared/contracts/ramp-schedules';
import { addTarget } from '../../shared/domain/ramp-definition';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { newId } from '../../shared/ids';
import { changeRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(addTargetRampSchedule, async ({ params, body, auth }) => {
  const actor = rampActor(auth, addTargetRampSchedule.permission);
  const targetId = newId('rt_');
  const updated = await changeRampSchedule(
    auth.orgId,
    params.id,
    actor,
    (schedule, feature) => {
      // The feature read is the one the body names: a schedule without a feature yet takes it on.
      actor.assertAllowed(feature);
      return addTarget(schedule, body, { targetId, feature });
    },
    { featureId: body.featureId },
  );
  return { rampSchedule: toApiRampSchedule(updated!, new Date()) };
});
