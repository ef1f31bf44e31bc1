import { endpoint } from '../../shared/api/endpoint';
import { pauseRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { actOnRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(pauseRampSchedule, async ({ params, auth }) => {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, pauseRampSchedule.permission), { type: 'pause' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
});
