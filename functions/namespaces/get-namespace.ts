import { endpoint } from '../../shared/api/endpoint';
import { getNamespace } from '../../shared/contracts/namespaces';
import { toApiNamespace } from '../../shared/domain/namespaces';
import { namespaces } from '../../shared/store/namespaces';

export const handler = endpoint(getNamespace, async ({ params, auth }) => ({
  namespace: toApiNamespace(await namespaces.get(auth.orgId, params.id)),
}));
