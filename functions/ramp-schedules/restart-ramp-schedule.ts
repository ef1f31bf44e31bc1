import { endpoint } from '../../shared/api/endpoint';
import { restartRampSchedule } from '../../shared/contracts/ramp-schedule-ops';
import * as rampScheduleOps from '../../shared/use-cases/ramp-schedule-ops';

export const handler = endpoint(restartRampSchedule, rampScheduleOps.restartRampSchedule);
