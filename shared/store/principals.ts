import { type Grant, type Principal } from '../permissions';
import type { ApiKeyRecord } from './api-keys';
import { members } from './members';
import { teams } from './teams';

/** A role as a grant: its environment limit counts only when one is set. */
const grantOf = (source: { role: Grant['role']; limitAccessByEnvironment?: boolean; environments?: string[] }): Grant =>
  source.limitAccessByEnvironment && source.environments?.length ? { role: source.role, environments: source.environments } : { role: source.role };

/** The caller a stored key stands for (its member and teams read for a personal access token); undefined when that member is gone. */
export async function principalOfKey(key: ApiKeyRecord): Promise<Principal | undefined> {
  const base = { orgId: key.orgId, keyId: key.id };
  if (key.role !== 'user') return { ...base, role: key.role, projectRoles: {} };
  const [member, orgTeams] = await Promise.all([members.find(key.orgId, key.memberId!), teams.all(key.orgId)]);
  if (!member) return undefined;
  const sources = [member, ...orgTeams.filter((team) => team.members.includes(member.id))];
  // As in GrowthBook, the permissions of the member's own roles and their teams' add up, globally and per project.
  const global = sources.map(grantOf);
  // No prototype: a project id such as `constructor` is a key like any other.
  const projects: Record<string, Grant[]> = Object.create(null);
  for (const source of sources) {
    for (const entry of source.projectRoles ?? []) (projects[entry.project] ??= []).push(grantOf(entry));
  }
  const projectRoles = Object.fromEntries(Object.entries(projects).map(([project, grants]) => [project, grants[0].role]));
  return { ...base, memberId: member.id, role: member.role, projectRoles, grants: { global, projects } };
}
