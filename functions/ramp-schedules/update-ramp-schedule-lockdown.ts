import { endpoint } from '../../shared/api/endpoint';
import { updateRampScheduleLockdown } from '../../shared/contracts/ramp-schedule-ops';
import * as rampScheduleOps from '../../shared/use-cases/ramp-schedule-ops';

export const handler = endpoint(updateRampScheduleLockdown, rampScheduleOps.updateRampScheduleLockdown);
