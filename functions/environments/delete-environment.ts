import { endpoint } from '../../shared/api/endpoint';
import { ConflictError } from '../../shared/errors';
import { deleteEnvironment } from '../../shared/contracts/environments';
import { environments } from '../../shared/store/environments';
import { touchSdkPayloads } from '../../shared/store/sdk-payloads';

export const handler = endpoint(deleteEnvironment, async ({ params, auth }) => {
  const children = (await environments.all(auth.orgId)).filter((environment) => environment.parent === params.id);
  if (children.length) {
    throw new ConflictError(
      'invalid_status',
      `Environment ${params.id} is the parent of ${children.map((child) => child.id).join(', ')}; delete or re-create those first`,
    );
  }
  await environments.remove(auth.orgId, params.id);
  // The deleted environment is no longer listed, so name it: its connections must stop serving features.
  await touchSdkPayloads(auth.orgId, [params.id]);
  return { deletedId: params.id };
});
