import { endpoint } from '../../shared/api/endpoint';
import { rollbackRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { actOnRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(rollbackRampSchedule, async ({ params, auth }) => {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, rollbackRampSchedule.permission), { type: 'rollback' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
});
