import { endpoint } from '../../shared/api/endpoint';
import { startRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { actOnRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(startRampSchedule, async ({ params, auth }) => {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, startRampSchedule.permission), { type: 'start' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
});
