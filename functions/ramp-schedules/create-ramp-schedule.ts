import { endpoint } from '../../shared/api/endpoint';
import { createRampSchedule } from '../../shared/contracts/ramp-schedules';
import { assertForcedValuesFit, newRampSchedule } from '../../shared/domain/ramp-definition';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { features } from '../../shared/store/features';
import { newId } from '../../shared/ids';
import { insertRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(createRampSchedule, async ({ body, auth }) => {
  const feature = body.featureId === undefined ? undefined : await features.find(auth.orgId, body.featureId);
  rampActor(auth, createRampSchedule.permission).assertAllowed(feature);
  const schedule = newRampSchedule(body, { id: newId('rs_'), targetId: newId('rt_'), organization: auth.orgId, feature });
  if (feature) assertForcedValuesFit(schedule, feature.valueType);
  const created = await insertRampSchedule(auth.orgId, schedule);
  return { rampSchedule: toApiRampSchedule(created, new Date()) };
});
