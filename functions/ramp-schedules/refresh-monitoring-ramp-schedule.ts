import { endpoint } from '../../shared/api/endpoint';
import { refreshMonitoringRampSchedule } from '../../shared/contracts/ramp-monitoring-endpoints';
import * as rampMonitoring from '../../shared/use-cases/ramp-monitoring';

export const handler = endpoint(refreshMonitoringRampSchedule, rampMonitoring.refreshMonitoringRampSchedule);
