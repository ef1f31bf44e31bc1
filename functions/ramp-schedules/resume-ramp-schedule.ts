import { endpoint } from '../../shared/api/endpoint';
import { resumeRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { actOnRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(resumeRampSchedule, async ({ params, auth }) => {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, resumeRampSchedule.permission), { type: 'resume' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
});
