import { endpoint } from '../../shared/api/endpoint';
import { approveStepRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { actOnRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

// Review, not just write, on the project of the schedule's feature (BEHAVIOR.md).
export const handler = endpoint(approveStepRampSchedule, async ({ params, auth }) => {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, approveStepRampSchedule.permission), { type: 'approve-step' });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
});
