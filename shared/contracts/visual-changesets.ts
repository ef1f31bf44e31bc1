import type { EndpointSpec } from './spec';

export const visualChangesetEndpoints: EndpointSpec[] = [];
