import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listSdkConnections } from '../../shared/contracts/sdk-connections';
import { sdkConnections } from '../../shared/store/sdk-connections';
import { inProjectFilter } from '../../shared/domain/project-tags';

export const handler = endpoint(listSdkConnections, async ({ query, auth }) => {
  const tags = [
    ...inProjectFilter(query.projectId),
    ...(['true', '1'].includes(query.withProxy ?? '') ? ['proxy:true'] : []),
  ];
  // multiOrg is for GrowthBook's multi-organization admins; a key here belongs to one organization.
  return paginated('connections', await sdkConnections.list(auth.orgId, { limit: query.limit, offset: query.offset, tags }), query);
});
