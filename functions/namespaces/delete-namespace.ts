import { endpoint } from '../../shared/api/endpoint';
import { deleteNamespace } from '../../shared/contracts/namespaces';
import { removeNamespace } from '../../shared/store/namespaces';
import { touchSdkPayloads } from '../../shared/store/sdk-payloads';

export const handler = endpoint(deleteNamespace, async ({ params, auth }) => {
  await removeNamespace(auth.orgId, params.id);
  // A feature rule may still name it: its payload falls back to the rule's own namespace shape.
  await touchSdkPayloads(auth.orgId);
  return { deletedId: params.id };
});
