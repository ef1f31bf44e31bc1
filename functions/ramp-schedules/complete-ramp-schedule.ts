import { endpoint } from '../../shared/api/endpoint';
import { completeRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { actOnRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(completeRampSchedule, async ({ params, auth }) => {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, completeRampSchedule.permission), { type: 'complete' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
});
