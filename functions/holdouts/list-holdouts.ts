import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listHoldouts } from '../../shared/contracts/holdouts';
import { holdouts } from '../../shared/store/holdouts';

export const handler = endpoint(listHoldouts, async ({ query, auth }) => {
  const tags = [...(query.projectId ? [`project:${query.projectId}`] : []), ...(query.stage ? [`stage:${query.stage}`] : [])];
  return paginated('holdouts', await holdouts.list(auth.orgId, { ...query, tags }), query);
});
