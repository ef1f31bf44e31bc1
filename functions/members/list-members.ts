import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/api/pagination';
import { listMembers } from '../../shared/contracts/members';
import { members } from '../../shared/store/members';
import { teams } from '../../shared/store/teams';

export const handler = endpoint(listMembers, async ({ query, auth }) => {
  const [page, orgTeams] = await Promise.all([members.list(auth.orgId, query), teams.all(auth.orgId)]);
  const items = page.items.map((member) => ({
    ...member,
    teams: orgTeams.filter((team) => team.members.includes(member.id)).map((team) => team.id),
  }));
  return paginated('members', { items, total: page.total }, query);
});
