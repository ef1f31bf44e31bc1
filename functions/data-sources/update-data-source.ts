import { endpoint } from '../../shared/api/endpoint';
import { updateDataSource } from '../../shared/contracts/data-sources';
import { allowedEngines, updatedDataSource } from '../../shared/domain/data-sources';
import { dataSources } from '../../shared/store/data-sources';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(updateDataSource, async ({ params, body, auth }) => {
  // The body's references are checked after the read, so an unknown data source is 404 first.
  const dataSource = await dataSources.update(auth.orgId, params.id, async (current) => {
    await assertProjectsExist(auth.orgId, body.projectIds, 'projectIds');
    return updatedDataSource(current, body, allowedEngines(process.env.ANALYSIS_ENGINES));
  });
  return { dataSource };
});
