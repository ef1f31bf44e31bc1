import { endpoint } from '../../shared/api/endpoint';
import { approveStepRampSchedule } from '../../shared/contracts/ramp-schedules';
import * as rampSchedules from '../../shared/use-cases/ramp-schedules';

export const handler = endpoint(approveStepRampSchedule, rampSchedules.approveStepRampSchedule);
