import { endpoint } from '../../shared/api/endpoint';
import { ConflictError } from '../../shared/errors';
import { deleteEnvironment } from '../../shared/contracts/environments';
import { environments } from '../../shared/store/environments';

export const handler = endpoint(deleteEnvironment, async ({ params, auth }) => {
  const children = (await environments.all(auth.orgId)).filter((environment) => environment.parent === params.id);
  if (children.length) {
    throw new ConflictError(
      'invalid_status',
      `Environment ${params.id} is the parent of ${children.map((child) => child.id).join(', ')}; delete or re-create those first`,
    );
  }
  await environments.remove(auth.orgId, params.id);
  return { deletedId: params.id };
});
