import { endpoint } from '../../shared/api/endpoint';
import { postNamespaceRotateSeed } from '../../shared/contracts/namespaces';
import { newSeed, toApiNamespace } from '../../shared/domain/namespaces';
import { InvalidInputError } from '../../shared/errors';
import { namespaces } from '../../shared/store/namespaces';

export const handler = endpoint(postNamespaceRotateSeed, async ({ params, body, auth }) => {
  const updated = await namespaces.update(auth.orgId, params.id, (current) => {
    if (current.format !== 'multiRange') {
      throw new InvalidInputError(`Namespace ${current.id} is a legacy namespace, which has no seed: only a multiRange namespace's seed rotates`);
    }
    return { ...current, seed: body.seed ?? newSeed() };
  });
  return { namespace: toApiNamespace(updated) };
});
