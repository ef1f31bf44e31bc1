import { endpoint } from '../../shared/api/endpoint';
import { updateRampSchedule } from '../../shared/contracts/ramp-schedules';
import { assertForcedValuesFit, updateDefinition } from '../../shared/domain/ramp-definition';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { changeRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(updateRampSchedule, async ({ params, body, auth }) => {
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, updateRampSchedule.permission), (schedule, feature) => {
    const next = updateDefinition(schedule, body, feature ? [feature] : []);
    if (feature) assertForcedValuesFit(next, feature.valueType);
    return { schedule: next, writes: [], comment: '' };
  });
  return { rampSchedule: toApiRampSchedule(updated!, new Date()) };
});
