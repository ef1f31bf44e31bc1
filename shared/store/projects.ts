import { BadRequestError, ConflictError } from '../api/errors';
import type { Project } from '../contracts/projects';
import { repository } from './repository';

export const projects = repository<Project>({ type: 'PROJECT', label: 'Project' });

/** The ids among `ids` that name no project of the organization. */
export async function unknownProjects(orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = new Set((await projects.getMany(orgId, ids)).map((project) => project.id));
  return [...new Set(ids)].filter((id) => !found.has(id));
}

/** Raises 400 naming `field` unless every id in `ids` is a project of the organization. */
export async function assertProjectsExist(orgId: string, ids: string[] | undefined, field = 'projects'): Promise<void> {
  const unknown = await unknownProjects(orgId, ids ?? []);
  if (unknown.length) throw new BadRequestError(`Request body: [${field}] unknown project ${unknown.join(', ')}`);
}

/** A URL-safe slug of a project name: lowercase letters, numbers and single dashes. */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '');
  return slug || 'project';
}

/**
 * The publicId a project gets: `wanted` when given (409 when another project has it), otherwise
 * the slug of `name`, numbered when another project already has that slug.
 */
export async function choosePublicId(orgId: string, name: string, wanted?: string, selfId?: string): Promise<string> {
  const taken = new Set((await projects.all(orgId)).filter((p) => p.id !== selfId && p.publicId).map((p) => p.publicId!));
  if (wanted) {
    if (taken.has(wanted)) throw new ConflictError('already_exists', `Another project already has the publicId ${wanted}`);
    return wanted;
  }
  const slug = slugOf(name);
  let candidate = slug;
  for (let n = 2; taken.has(candidate); n++) candidate = `${slug}-${n}`;
  return candidate;
}
