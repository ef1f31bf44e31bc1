import { endpoint } from '../../shared/api/endpoint';
import { getDataSource } from '../../shared/contracts/data-sources';
import { dataSources } from '../../shared/store/data-sources';

export const handler = endpoint(getDataSource, async ({ params, auth }) => ({
  dataSource: await dataSources.get(auth.orgId, params.id),
}));
