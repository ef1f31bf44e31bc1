import type { EndpointSpec } from './spec';

export const dashboardEndpoints: EndpointSpec[] = [];
