import { endpoint } from '../../shared/api/endpoint';
import { listRampScheduleTemplates } from '../../shared/contracts/ramp-schedule-templates';
import * as rampScheduleTemplates from '../../shared/use-cases/ramp-schedule-templates';

export const handler = endpoint(listRampScheduleTemplates, rampScheduleTemplates.listRampScheduleTemplates);
