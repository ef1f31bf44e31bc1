import type { Environment } from '../contracts/environments';
import type { FeatureContent } from '../domain/features';

/**
 * How environments shape what SDK connections are served, as GrowthBook does it:
 * - a child environment (`parent`) in which a feature has no settings of its own takes those of
 *   its nearest ancestor that has some (a feature created after the child has its own);
 * - an environment's `projects` limit what its connections serve.
 */

/** Each environment's parent, by id. */
export type EnvironmentParents = Map<string, string>;

/** The parents of some environments (those without a parent are left out). */
export function environmentParents(environments: Array<Pick<Environment, 'id' | 'parent'>>): EnvironmentParents {
  return new Map(environments.flatMap((environment) => (environment.parent ? [[environment.id, environment.parent] as const] : [])));
}

/**
 * A feature with the settings it inherits filled in: every environment of `parents` in which it has
 * none takes a copy of its nearest ancestor's. A cycle of parents inherits nothing.
 */
export function withInheritedSettings<T extends Pick<FeatureContent, 'environments'>>(feature: T, parents: EnvironmentParents): T {
  if (parents.size === 0) return feature;
  const environments = { ...feature.environments };
  for (const child of parents.keys()) {
    if (feature.environments[child]) continue;
    const seen = new Set([child]);
    let ancestor = parents.get(child);
    while (ancestor && !feature.environments[ancestor] && !seen.has(ancestor)) {
      seen.add(ancestor);
      ancestor = parents.get(ancestor);
    }
    if (ancestor && feature.environments[ancestor]) environments[child] = feature.environments[ancestor];
  }
  return { ...feature, environments };
}

/**
 * The projects a connection of an environment is served: the connection's, limited to the
 * environment's when it has some (the environment's when the connection has none). Null when
 * the two have none in common: such a connection is served nothing. An empty list means every project.
 */
export function servedProjects(connectionProjects: string[], environmentProjects: string[] | undefined): string[] | null {
  if (!environmentProjects?.length) return connectionProjects;
  if (connectionProjects.length === 0) return environmentProjects;
  const common = connectionProjects.filter((project) => environmentProjects.includes(project));
  return common.length ? common : null;
}
