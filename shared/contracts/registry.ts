import type { EndpointSpec } from './spec';
import { memberEndpoints } from './members';
import { systemEndpoints } from './system';

/** One endpoint and the file whose `handler` serves it. */
export interface Route {
  spec: EndpointSpec;
  /** Path from the repository root, e.g. `functions/saved-groups/delete-saved-group.ts`. */
  handler: string;
}

const kebab = (operationId: string) => operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The handler file of every endpoint is `functions/<folder>/<operationId in kebab case>.ts`. */
const inFolder = (folder: string, specs: EndpointSpec[]): Route[] =>
  specs.map((spec) => ({ spec, handler: `functions/${folder}/${kebab(spec.operationId)}.ts` }));

/**
 * Every endpoint of the service. The local server, the CDK stack, the OpenAPI document and the
 * tests read this list, so none of them can drift from the others.
 */
export const routes: Route[] = [
  ...inFolder('system', systemEndpoints),
  ...inFolder('members', memberEndpoints),
];

/** Answers requests no route matches, with 404 `{"message":"Unknown API endpoint"}`. */
export const unknownRouteHandler = 'functions/system/unknown-route.ts';
