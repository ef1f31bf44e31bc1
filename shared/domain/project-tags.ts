/** The list tag of a resource that names no project: GrowthBook counts it in every project. */
export const ALL_PROJECTS_TAG = 'project:*';

/** The list tags of a resource's projects (`ALL_PROJECTS_TAG` for none). */
export const projectTags = (projects: string[] | undefined): string[] =>
  projects?.length ? projects.map((project) => `project:${project}`) : [ALL_PROJECTS_TAG];

/**
 * What `?projectId=` matches on a resource with a project list, as GrowthBook filters it: the
 * project, or no project at all (one any-of group of list tags).
 */
export const inProjectFilter = (projectId: string | undefined): string[][] =>
  projectId ? [[`project:${projectId}`, ALL_PROJECTS_TAG]] : [];

/** The projects a resource's list tags name (none for `project:` or `ALL_PROJECTS_TAG`, a resource in no project). */
export const projectsInTags = (tags: string[]): string[] =>
  tags.flatMap((tag) => (tag.startsWith('project:') && tag !== 'project:' && tag !== ALL_PROJECTS_TAG ? [tag.slice('project:'.length)] : []));
