import type { EndpointSpec } from './spec';

export const sdkConnectionEndpoints: EndpointSpec[] = [];
