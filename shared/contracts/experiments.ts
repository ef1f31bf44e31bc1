import type { EndpointSpec } from './spec';

export const experimentEndpoints: EndpointSpec[] = [];
