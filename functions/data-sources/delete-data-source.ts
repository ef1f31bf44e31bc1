import { endpoint } from '../../shared/api/endpoint';
import { deleteDataSource } from '../../shared/contracts/data-sources';
import { ConflictError } from '../../shared/errors';
import { usersOfDataSource } from '../../shared/store/data-source-users';
import { dataSources } from '../../shared/store/data-sources';

/** A data source that fact tables, experiments, segments or templates still name is refused: they would point at nothing. */
export const handler = endpoint(deleteDataSource, async ({ params, auth }) => {
  await dataSources.remove(auth.orgId, params.id, async () => {
    const users = await usersOfDataSource(auth.orgId, params.id);
    if (users.length) {
      throw new ConflictError('invalid_status', `Data source ${params.id} is used by ${users.join(', ')}; delete or change those first`);
    }
  });
  return { deletedId: params.id };
});
