import { endpoint } from '../../shared/api/endpoint';
import { setAutoUpdateRampSchedule } from '../../shared/contracts/ramp-monitoring-endpoints';
import * as rampMonitoring from '../../shared/use-cases/ramp-monitoring';

export const handler = endpoint(setAutoUpdateRampSchedule, rampMonitoring.setAutoUpdateRampSchedule);
