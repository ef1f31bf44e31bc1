import { endpoint } from '../../shared/api/endpoint';
import { listRampSchedules } from '../../shared/contracts/ramp-schedules';
import * as rampSchedules from '../../shared/use-cases/ramp-schedules';

export const handler = endpoint(listRampSchedules, rampSchedules.listRampSchedules);
