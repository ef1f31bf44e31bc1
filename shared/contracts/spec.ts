import type * as z from 'zod/mini';
import type { Permission, Principal } from '../permissions';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Everything the platform needs to know about one endpoint; its handler adds only the behaviour. */
export interface EndpointSpec<
  P extends z.core.$ZodType = z.core.$ZodType,
  Q extends z.core.$ZodType = z.core.$ZodType,
  B extends z.core.$ZodType = z.core.$ZodType,
  R extends z.core.$ZodType = z.core.$ZodType,
> {
  operationId: string;
  method: HttpMethod;
  /** Path under `basePath`, with `{name}` placeholders. */
  path: string;
  /** Defaults to `/api/v1`; GrowthBook 5's revision endpoints live under `/api/v2`, the public SDK payload lives under `/api`, GrowthBook's health check at the root (`''`). */
  basePath?: '/api/v1' | '/api/v2' | '/api' | '';
  summary: string;
  /** OpenAPI tag, e.g. `saved-groups`. */
  tag: string;
  /**
   * What the caller's role must grant: GrowthBook's permission name (`'manageFeatures'`, `'createSegments'`,
   * `'manageTeam'`, ... see `permissions` in `shared/permissions.ts`), or `'public'`. The coarse levels
   * `'read' | 'write' | 'review' | 'manage'` remain the default for an endpoint GrowthBook has no permission
   * for: they give BEHAVIOR.md's table (engineer and up write, experimenter and up review, admin manages).
   */
  permission: Permission;
  /**
   * The permission may come from a per-project role; the handler then checks the resource's
   * projects with `assertCan(auth, spec.permission, projects)`. Without this, the caller's global roles must grant it.
   */
  projectScoped?: boolean;
  /**
   * `false` leaves the endpoint out of the OpenAPI document: it serves the API reference page (HTML, scripts),
   * not the API, and would only add noise to the reference and to clients generated from it.
   */
  openApi?: false;
  /** The largest body accepted, in bytes, when not every endpoint's 2 MB: less for a public route anyone can call, more for a screenshot upload. */
  maxBodyBytes?: number;
  params?: P;
  query?: Q;
  body?: B;
  response: R;
}

/** Declares an endpoint; keeps the literal types so handlers see typed params, query and body. */
export function defineEndpoint<
  P extends z.core.$ZodType = z.core.$ZodUndefined,
  Q extends z.core.$ZodType = z.core.$ZodUndefined,
  B extends z.core.$ZodType = z.core.$ZodUndefined,
  R extends z.core.$ZodType = z.core.$ZodType,
>(spec: EndpointSpec<P, Q, B, R>): EndpointSpec<P, Q, B, R> {
  return spec;
}

/** The full path of an endpoint, e.g. `/api/v1/saved-groups/{id}`. */
export const fullPath = (spec: Pick<EndpointSpec, 'path' | 'basePath'>) => `${spec.basePath ?? '/api/v1'}${spec.path}`;

type Input<S> = S extends z.core.$ZodUndefined ? undefined : S extends z.core.$ZodType ? z.output<S> : undefined;

/** What a use case receives for an endpoint: the validated params, query and body, and the caller. */
export interface UseCaseInput<Spec extends EndpointSpec> {
  params: Spec extends EndpointSpec<infer P, z.core.$ZodType, z.core.$ZodType, z.core.$ZodType> ? Input<P> : never;
  query: Spec extends EndpointSpec<z.core.$ZodType, infer Q, z.core.$ZodType, z.core.$ZodType> ? Input<Q> : never;
  body: Spec extends EndpointSpec<z.core.$ZodType, z.core.$ZodType, infer B, z.core.$ZodType> ? Input<B> : never;
  auth: Principal;
}

/** What a use case answers for an endpoint: the response body (before its schema's defaults and transforms). */
export type UseCaseOutput<Spec extends EndpointSpec> = Promise<z.input<Spec['response']>>;
