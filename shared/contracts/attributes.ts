import type { EndpointSpec } from './spec';

export const attributeEndpoints: EndpointSpec[] = [];
