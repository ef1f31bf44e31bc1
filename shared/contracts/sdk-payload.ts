import type { EndpointSpec } from './spec';

export const sdkPayloadEndpoints: EndpointSpec[] = [];
