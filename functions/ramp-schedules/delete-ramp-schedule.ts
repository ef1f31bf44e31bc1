import { endpoint } from '../../shared/api/endpoint';
import { deleteRampSchedule } from '../../shared/contracts/ramp-schedules';
import { assertDeletable } from '../../shared/domain/ramp-definition';
import { changeRampSchedule, rampActor } from '../../shared/store/ramp-schedules';

// The rules keep whatever state the schedule left them in; only the schedule and its rule locks go.
export const handler = endpoint(deleteRampSchedule, async ({ params, auth }) => {
  await changeRampSchedule(auth.orgId, params.id, rampActor(auth, deleteRampSchedule.permission), (schedule) => {
    assertDeletable(schedule);
    return { deleted: true };
  });
  return { deletedId: params.id };
});
