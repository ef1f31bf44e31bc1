import type { ListVisibility } from '../db/repository';
import { projectsInTags } from '../domain/project-tags';
import { NotFoundError } from '../errors';
import { canRead, readsEverywhere, type Principal } from '../permissions';
import { experiments } from '../store/experiments';

// GrowthBook's models hide what the caller may not read (`canRead` of BaseModel, `getFeature`'s filter): a
// single read answers as if the resource did not exist, a list leaves it out before paginating.

/** The projects of a resource with one optional project. */
export const projectOf = (resource: { project?: string | null }): string[] => (resource.project ? [resource.project] : []);

/** The list-index filter for the caller: by the `project:` tags; undefined when it reads every project (nothing to hide). */
export function visibleTo(auth: Principal): ListVisibility | undefined {
  return readsEverywhere(auth) ? undefined : (tags) => canRead(auth, projectsInTags(tags));
}

/** The resources among `items` the caller may read. */
export function readableBy<T>(auth: Principal, items: T[], projectsOf: (item: T) => string[]): T[] {
  return readsEverywhere(auth) ? items : items.filter((item) => canRead(auth, projectsOf(item)));
}

/** `resource` when the caller may read it in `projects`; else the same 404 as a resource that does not exist. */
export function readableOr404<T>(auth: Principal, resource: T, projects: string[], label: string, id: string): T {
  if (!canRead(auth, projects)) throw new NotFoundError(`${label} ${id} not found`);
  return resource;
}

/** A page of a list read whole (resources without project list tags), filtered before paginating as GrowthBook does. */
export function readablePage<T>(auth: Principal, all: T[], projectsOf: (item: T) => string[], page: { limit: number; offset: number }) {
  const items = readableBy(auth, all, projectsOf);
  return { items: items.slice(page.offset, page.offset + page.limit), total: items.length };
}

/** The resources among `items` the caller may read, each in the project of its experiment (the experiments read once). */
export async function readableByExperiment<T>(auth: Principal, items: T[], experimentOf: (item: T) => string): Promise<T[]> {
  if (readsEverywhere(auth)) return items;
  const found = await experiments.getMany(auth.orgId, items.map(experimentOf));
  const projects = new Map(found.map((experiment) => [experiment.id, projectOf(experiment)]));
  return items.filter((item) => canRead(auth, projects.get(experimentOf(item)) ?? []));
}

/** `resource` of experiment `experimentId` when the caller may read it there; else the same 404 as a resource that does not exist. */
export async function readableOfExperimentOr404<T>(auth: Principal, resource: T, experimentId: string, label: string, id: string): Promise<T> {
  const [readable] = await readableByExperiment(auth, [resource], () => experimentId);
  if (!readable) throw new NotFoundError(`${label} ${id} not found`);
  return readable;
}
