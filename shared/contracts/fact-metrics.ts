import type { EndpointSpec } from './spec';

export const factMetricEndpoints: EndpointSpec[] = [];
