import type { EndpointSpec } from './spec';

export const segmentEndpoints: EndpointSpec[] = [];
