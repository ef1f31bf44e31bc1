import { InvalidInputError } from '../../shared/errors';
import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/api/pagination';
import { listFeatures } from '../../shared/contracts/features';
import { allFeatures, environmentIds, listFeaturePage, type FeatureFilter } from '../../shared/store/features';
import { presentFeatures } from '../../shared/payload/definitions';
import { findSdkKey } from '../../shared/store/sdk-connections';

/** `skipPagination` is a self-hosting escape hatch: honoured only when the deployment opts in. */
const skipPaginationAllowed = () => ['true', '1'].includes(process.env.API_ALLOW_SKIP_PAGINATION ?? '');

export const handler = endpoint(listFeatures, async ({ query, auth }) => {
  const filter: FeatureFilter = { all: query.projectId ? [`project:${query.projectId}`] : [] };
  if (query.clientKey) {
    const connection = await findSdkKey(query.clientKey);
    if (!connection || connection.orgId !== auth.orgId) {
      throw new InvalidInputError(`Querystring: [clientKey] no SDK connection has the key ${query.clientKey}`);
    }
    // What the connection serves: on in its environment (and not archived), in one of its projects if it names any.
    filter.all.push(`env:${connection.environment}`);
    if (connection.projects.length) filter.any = connection.projects.map((project) => `project:${project}`);
  }
  if (query.skipPagination && skipPaginationAllowed()) {
    const [all, environments] = await Promise.all([allFeatures(auth.orgId, filter), environmentIds(auth.orgId)]);
    const items = await presentFeatures(auth.orgId, all, { environments });
    return { features: items, limit: items.length, offset: 0, count: items.length, total: items.length, hasMore: false, nextOffset: null };
  }
  // Independent reads go out together: the page and the organization's environments.
  const [page, environments] = await Promise.all([
    listFeaturePage(auth.orgId, { limit: query.limit, offset: query.offset, filter }),
    environmentIds(auth.orgId),
  ]);
  return paginated('features', { items: await presentFeatures(auth.orgId, page.items, { environments }), total: page.total }, query);
});
