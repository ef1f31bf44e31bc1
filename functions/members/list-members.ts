import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listMembers, type ApiMember, type StoredMember } from '../../shared/contracts/members';
import { memberIdByEmail, members } from '../../shared/store/members';
import { teams } from '../../shared/store/teams';

/** The members a filtered list looks at: one by e-mail (its own item), else every member. */
async function candidates(orgId: string, query: { userEmail?: string }): Promise<StoredMember[]> {
  if (query.userEmail === undefined) return members.all(orgId);
  const id = await memberIdByEmail(orgId, query.userEmail);
  const member = id ? await members.find(orgId, id) : undefined;
  return member ? [member] : [];
}

export const handler = endpoint(listMembers, async ({ query, auth }) => {
  const { userName, userEmail, globalRole } = query;
  const filtered = userName !== undefined || userEmail !== undefined || globalRole !== undefined;
  const [page, orgTeams] = await Promise.all([
    filtered
      ? candidates(auth.orgId, query).then((all) => {
          // Each filter is an exact match, as GrowthBook applies them.
          const items = all.filter(
            (m) => (userName === undefined || m.name === userName) && (globalRole === undefined || m.role === globalRole),
          );
          return { items: items.slice(query.offset, query.offset + query.limit), total: items.length };
        })
      : members.list(auth.orgId, query),
    teams.all(auth.orgId),
  ]);
  const items = page.items.map(({ role, ...member }): ApiMember => ({
    ...member,
    globalRole: role,
    teams: orgTeams.filter((team) => team.members.includes(member.id)).map((team) => team.id),
    // Access is never limited by environment here, and no member is managed by an identity provider.
    environments: [],
    limitAccessByEnvironment: false,
    managedbyIdp: false,
  }));
  return paginated('members', { items, total: page.total }, query);
});
