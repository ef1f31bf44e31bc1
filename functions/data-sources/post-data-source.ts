import { endpoint } from '../../shared/api/endpoint';
import { postDataSource } from '../../shared/contracts/data-sources';
import { allowedEngines, checkedDataSource } from '../../shared/domain/data-sources';
import { newId } from '../../shared/ids';
import { dataSources } from '../../shared/store/data-sources';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(postDataSource, async ({ body, auth }) => {
  const { id, dateCreated, dateUpdated, ...data } = checkedDataSource(
    body,
    { id: newId('ds_'), dateCreated: '', dateUpdated: '' },
    allowedEngines(process.env.ANALYSIS_ENGINES),
  );
  await assertProjectsExist(auth.orgId, body.projectIds, 'projectIds');
  return { dataSource: await dataSources.create(auth.orgId, { id, ...data }) };
});
