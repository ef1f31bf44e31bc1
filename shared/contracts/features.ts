import type { EndpointSpec } from './spec';

export const featureEndpoints: EndpointSpec[] = [];
