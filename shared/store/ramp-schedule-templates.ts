import type { RampScheduleTemplate } from '../contracts/ramp-schedule-templates';
import { repository } from '../db/repository';

/** GrowthBook 5's ramp schedule templates: reusable steps, end state, lockdown and monitoring settings. */
export const rampScheduleTemplates = repository<RampScheduleTemplate>({ type: 'RAMP_SCHEDULE_TEMPLATE', label: 'Ramp schedule template' });
