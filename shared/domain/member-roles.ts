import { InvalidInputError } from '../errors';
import type { ProjectRole, StoredMember } from '../contracts/members';
import type { UpdateMemberRoleBody } from '../contracts/member-changes';
import { environmentLimitedRoles, roles, type Role } from '../permissions';

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** A stored member with the role fields a role update may add. */
export type RoledMember = StoredMember & { environments?: string[]; limitAccessByEnvironment?: boolean };

function checkRole(role: string, environments: string[], field: string): Role {
  if (!(roles as readonly string[]).includes(role)) throw invalid(`${field}.role`, `${role} is not a valid role (one of ${roles.join(', ')})`);
  if (environments.length && !environmentLimitedRoles.includes(role as Role)) {
    throw invalid(`${field}.environments`, `${role} does not support restricting access to certain environments`);
  }
  return role as Role;
}

/**
 * The member after a role update, as GrowthBook applies it: absent fields keep their value, a
 * non-empty `environments` limits the role to them, and `projectRoles` (when given) replaces the
 * list. Environment and project ids are checked by the caller against the organization.
 */
export function applyRoleUpdate(current: RoledMember, { member: input }: UpdateMemberRoleBody): RoledMember {
  const environments = input.environments ?? current.environments ?? [];
  const role = checkRole(input.role || current.role, environments, 'member');
  const projectRoles: ProjectRole[] | undefined = input.projectRoles?.map((entry, i) => {
    if (input.projectRoles!.findIndex((other) => other.project === entry.project) !== i) {
      throw invalid(`member.projectRoles.${i}.project`, `project ${entry.project} already has a role in this list`);
    }
    return {
      project: entry.project,
      role: checkRole(entry.role, entry.environments, `member.projectRoles.${i}`),
      environments: entry.environments,
      limitAccessByEnvironment: entry.environments.length > 0,
    };
  });
  return {
    ...current,
    role,
    environments,
    limitAccessByEnvironment: environments.length > 0,
    ...(projectRoles ? { projectRoles } : {}),
  };
}
