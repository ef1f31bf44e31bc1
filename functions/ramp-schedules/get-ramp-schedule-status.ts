import { endpoint } from '../../shared/api/endpoint';
import { getRampScheduleStatus } from '../../shared/contracts/ramp-monitoring-endpoints';
import * as rampMonitoring from '../../shared/use-cases/ramp-monitoring';

export const handler = endpoint(getRampScheduleStatus, rampMonitoring.getRampScheduleStatus);
