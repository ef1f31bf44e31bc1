import type { EndpointSpec } from './spec';

export const experimentTemplateEndpoints: EndpointSpec[] = [];
