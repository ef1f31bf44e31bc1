import { endpoint } from '../../shared/api/endpoint';
import { deleteNamespace } from '../../shared/contracts/namespaces';
import { removeNamespace } from '../../shared/store/namespaces';

export const handler = endpoint(deleteNamespace, async ({ params, auth }) => {
  await removeNamespace(auth.orgId, params.id);
  return { deletedId: params.id };
});
