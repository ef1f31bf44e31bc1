import type { EndpointSpec } from './spec';

export const bulkImportEndpoints: EndpointSpec[] = [];
