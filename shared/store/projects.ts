import { randomBytes } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import type { Project } from '../contracts/projects';
import { retryOnConflict } from '../db/optimistic';
import { tableName } from '../db/client';
import { keys } from '../db/keys';
import { repository, transact, type TransactionOp } from '../db/repository';

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
  if (unknown.length) throw new InvalidInputError(`Request body: [${field}] unknown project ${unknown.join(', ')}`);
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

/** How many numbered slugs (`slug-2`, `slug-3`...) a generated publicId tries before a random suffix. */
const NUMBERED_SLUGS = 10;

/** Raised when the guard item of a publicId exists: another project of the organization has it. */
class PublicIdTakenError extends ConflictError {
  constructor(publicId: string) {
    super('already_exists', `Another project already has the publicId ${publicId}`);
  }
}

/** Puts the guard item that keeps `publicId` to one project; fails when another project has it. */
function claimPublicId(orgId: string, publicId: string, projectId: string): TransactionOp {
  return {
    op: {
      Put: {
        TableName: tableName(),
        Item: { ...keys.projectPublicId(orgId, publicId), entityType: 'PROJECT_PUBLIC_ID', version: 1, projectId },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    onConditionFailed: () => new PublicIdTakenError(publicId),
  };
}

/** Deletes the guard item of `publicId`; unconditional, as the project's own versioned write in the same transaction guards it. */
function releasePublicId(orgId: string, publicId: string): TransactionOp {
  return {
    op: { Delete: { TableName: tableName(), Key: keys.projectPublicId(orgId, publicId) } },
    onConditionFailed: () => new ConflictError('conflict', `The publicId ${publicId} was changed by another request; retry`),
  };
}

/** The publicIds a project named `name` tries in turn: its slug, then numbered, then with a random suffix. */
function generatedPublicIds(name: string): string[] {
  const slug = slugOf(name);
  const numbered = Array.from({ length: NUMBERED_SLUGS - 1 }, (_, i) => `${slug}-${i + 2}`);
  return [slug, ...numbered, `${slug}-${randomBytes(3).toString('hex')}`];
}

/**
 * Stores a new project with a publicId no other project of the organization has, in one
 * transaction with its guard item: `wanted` when given (409 when taken), otherwise the slug of its
 * name, numbered when taken. Each try costs one write; nothing reads the other projects.
 */
export async function createProject(
  orgId: string,
  data: Omit<Project, 'dateCreated' | 'dateUpdated' | 'publicId'>,
  wanted?: string,
): Promise<Project> {
  const create = (publicId: string) =>
    retryOnConflict(async () => {
      const created = projects.prepareCreate(orgId, { ...data, publicId });
      await transact([created, claimPublicId(orgId, publicId, created.entity.id)]);
      return created.entity;
    });
  const candidates = wanted ? [wanted] : generatedPublicIds(data.name);
  for (const publicId of candidates.slice(0, -1)) {
    try {
      return await create(publicId);
    } catch (error) {
      if (!(error instanceof PublicIdTakenError)) throw error;
    }
  }
  return create(candidates[candidates.length - 1]);
}

/**
 * Read-modify-write of a project whose `change` may give it another publicId: the guard item
 * moves in the same transaction (409 when another project has the new publicId).
 */
export async function updateProject(orgId: string, id: string, change: (current: Project) => Project): Promise<Project> {
  return retryOnConflict(async () => {
    const current = await projects.read(orgId, id);
    if (!current) throw new NotFoundError(`Project ${id} not found`);
    const updated = projects.prepareUpdate(orgId, current, change(current.entity));
    const [before, after] = [current.entity.publicId, updated.entity.publicId];
    const moves: TransactionOp[] = [];
    if (after !== before && after) moves.push(claimPublicId(orgId, after, id));
    if (after !== before && before) moves.push(releasePublicId(orgId, before));
    await transact([updated, ...moves]);
    return updated.entity;
  });
}

/** Deletes a project and frees its publicId, in one transaction; 404 when unknown. */
export async function removeProject(orgId: string, id: string): Promise<void> {
  await retryOnConflict(async () => {
    const current = await projects.read(orgId, id);
    if (!current) throw new NotFoundError(`Project ${id} not found`);
    const { publicId } = current.entity;
    await transact([
      {
        op: {
          Delete: {
            TableName: tableName(),
            Key: keys.entity(orgId, projects.type, id),
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
        onConditionFailed: () => new ConflictError('conflict', `Project ${id} was changed by another request; retry`),
      },
      ...(publicId ? [releasePublicId(orgId, publicId)] : []),
    ]);
  });
}
