import { endpoint } from '../../shared/api/endpoint';
import { putNamespace } from '../../shared/contracts/namespaces';
import { toApiNamespace } from '../../shared/domain/namespaces';
import { assertDisplayNameFree, assertHashAttribute, namespaces } from '../../shared/store/namespaces';

export const handler = endpoint(putNamespace, async ({ params, body, auth }) => {
  const updated = await namespaces.update(auth.orgId, params.id, async (current) => {
    if (body.hashAttribute !== undefined) assertHashAttribute(current.format, body.hashAttribute);
    if (body.displayName && body.displayName !== current.displayName) await assertDisplayNameFree(auth.orgId, body.displayName, current.id);
    return { ...current, ...body };
  });
  return { namespace: toApiNamespace(updated) };
});
