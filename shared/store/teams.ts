import { InvalidInputError } from '../errors';
import type { Team } from '../contracts/teams';
import { environments } from './environments';
import { unknownProjects } from './projects';
import { repository } from '../db/repository';

export const teams = repository<Team>({ type: 'TEAM', label: 'Team' });

/** The first of `ids` (with its index) that is not in `found`. */
export function firstMissing(ids: string[], found: { id: string }[]): [string, number] | undefined {
  const known = new Set(found.map((entity) => entity.id));
  const index = ids.findIndex((id) => !known.has(id));
  return index >= 0 ? [ids[index], index] : undefined;
}

/**
 * Raises 400 naming the field (after `prefix`) unless every environment and project a team names (its own and
 * those of its project roles) exists in the organization.
 */
export async function assertTeamReferences(
  orgId: string,
  team: { environments?: string[]; projectRoles?: { project: string; environments: string[] }[]; defaultProject?: string },
  prefix = '',
): Promise<void> {
  const environmentLists: [string, string[]][] = [
    ['environments', team.environments ?? []],
    ...(team.projectRoles ?? []).map((entry, i): [string, string[]] => [`projectRoles.${i}.environments`, entry.environments]),
  ];
  const projectFields: [string, string][] = [
    ...(team.projectRoles ?? []).map((entry, i): [string, string] => [`projectRoles.${i}.project`, entry.project]),
    // An empty defaultProject means none.
    ...(team.defaultProject ? [['defaultProject', team.defaultProject] as [string, string]] : []),
  ];
  const [foundEnvironments, unknown] = await Promise.all([
    environments.getMany(orgId, environmentLists.flatMap(([, ids]) => ids)),
    unknownProjects(orgId, projectFields.map(([, id]) => id)),
  ]);
  for (const [field, ids] of environmentLists) {
    const missing = firstMissing(ids, foundEnvironments);
    if (missing) throw new InvalidInputError(`Request body: [${prefix}${field}.${missing[1]}] no environment has the id ${missing[0]}`);
  }
  const unknownField = projectFields.find(([, id]) => unknown.includes(id));
  if (unknownField) throw new InvalidInputError(`Request body: [${prefix}${unknownField[0]}] unknown project ${unknownField[1]}`);
}
