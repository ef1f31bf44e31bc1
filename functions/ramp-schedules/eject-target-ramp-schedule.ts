import { endpoint } from '../../shared/api/endpoint';
import { ejectTargetRampSchedule } from '../../shared/contracts/ramp-schedules';
import { ejectTarget } from '../../shared/domain/ramp-definition';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { changeRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

// The rule keeps its current state. Ejecting the last target deletes the schedule.
export const handler = endpoint(ejectTargetRampSchedule, async ({ params, body, auth }) => {
  const updated = await changeRampSchedule(auth.orgId, params.id, rampActor(auth, ejectTargetRampSchedule.permission), (schedule) => {
    const result = ejectTarget(schedule, body);
    return 'deleted' in result ? result : { schedule: result.schedule, writes: [], comment: '' };
  });
  return updated ? { rampSchedule: toApiRampSchedule(updated, new Date()) } : { deleted: true, rampScheduleId: params.id };
});
