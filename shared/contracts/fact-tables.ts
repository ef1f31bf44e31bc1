import type { EndpointSpec } from './spec';

export const factTableEndpoints: EndpointSpec[] = [];
