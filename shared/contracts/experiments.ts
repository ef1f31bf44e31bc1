import type { EndpointSpec } from './spec';

/** Placeholder until the experiments contract lands: the stored experiment record. */
export type Experiment = { id: string; dateCreated: string; dateUpdated: string } & Record<string, unknown>;

export const experimentEndpoints: EndpointSpec[] = [];
