import { endpoint } from '../../shared/api/endpoint';
import { getRampSchedule } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { rampSchedules } from '../../shared/store/ramp-schedules';

export const handler = endpoint(getRampSchedule, async ({ params, auth }) => ({
  rampSchedule: toApiRampSchedule(await rampSchedules.get(auth.orgId, params.id), new Date()),
}));
