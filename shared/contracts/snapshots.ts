import type { EndpointSpec } from './spec';

export const snapshotEndpoints: EndpointSpec[] = [];
