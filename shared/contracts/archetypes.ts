import type { EndpointSpec } from './spec';

export const archetypeEndpoints: EndpointSpec[] = [];
