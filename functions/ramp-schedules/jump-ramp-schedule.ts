import { endpoint } from '../../shared/api/endpoint';
import { jumpRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { actOnRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

export const handler = endpoint(jumpRampSchedule, async ({ params, body, auth }) => {
  const schedule = await actOnRampSchedule(auth.orgId, params.id, rampActor(auth, jumpRampSchedule.permission), {
    type: 'jump',
    targetStepIndex: body.targetStepIndex,
  });
  return { rampSchedule: toApiRampSchedule(schedule, new Date()) };
});
