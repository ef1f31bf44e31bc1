import type { EndpointSpec } from './spec';

export const rampScheduleEndpoints: EndpointSpec[] = [];
