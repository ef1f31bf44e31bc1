import { ForbiddenError } from './errors';

/** Roles from least to most access; a role grants everything the roles before it grant. */
export const roles = ['noaccess', 'readonly', 'engineer', 'experimenter', 'admin'] as const;
export type Role = (typeof roles)[number];

/** What an endpoint asks of its caller. `public` endpoints take no key at all. */
export type Permission = 'public' | 'read' | 'write' | 'review' | 'manage';

const lowestRoleFor: Record<Exclude<Permission, 'public'>, Role> = {
  read: 'readonly',
  write: 'engineer',
  review: 'experimenter',
  manage: 'admin',
};

const rank = (role: Role) => roles.indexOf(role);

/** Whether `role` grants `permission`. */
export function roleAllows(role: Role, permission: Permission): boolean {
  return permission === 'public' || rank(role) >= rank(lowestRoleFor[permission]);
}

/** The role that grants more. */
export function higherRole(a: Role, b: Role): Role {
  return rank(a) >= rank(b) ? a : b;
}

/** Who is calling, resolved from the API key. */
export interface Principal {
  orgId: string;
  /** The key's record id (`key_...`), never the secret. */
  keyId: string;
  /** The member a personal access token belongs to. */
  memberId?: string;
  /** The global role: the key's, or the member's effective one. */
  role: Role;
  /** Per-project roles of a member (own and teams'); each replaces `role` for its project. */
  projectRoles: Record<string, Role>;
}

/** The caller's role for one project, or the global role when no project is named. */
export function roleFor(principal: Principal, project?: string): Role {
  return (project && principal.projectRoles[project]) || principal.role;
}

/**
 * Whether the caller holds `permission` on a resource in `projects`: in every one of them,
 * or globally when the resource belongs to no project.
 */
export function can(principal: Principal, permission: Permission, projects: string[] = []): boolean {
  if (projects.length === 0) return roleAllows(principal.role, permission);
  return projects.every((project) => roleAllows(roleFor(principal, project), permission));
}

/** Whether the caller holds `permission` anywhere: globally or in at least one project. */
export function canSomewhere(principal: Principal, permission: Permission): boolean {
  return [principal.role, ...Object.values(principal.projectRoles)].some((role) => roleAllows(role, permission));
}

/** Raises 403 unless the caller holds `permission` on a resource in `projects` (see `can`). */
export function assertCan(principal: Principal, permission: Permission, projects: string[] = []): void {
  if (!can(principal, permission, projects)) {
    throw new ForbiddenError(`This key's role does not grant the ${permission} permission for projects ${projects.join(', ')}`);
  }
}
