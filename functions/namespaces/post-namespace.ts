import { endpoint } from '../../shared/api/endpoint';
import { postNamespace } from '../../shared/contracts/namespaces';
import { newSeed, toApiNamespace } from '../../shared/domain/namespaces';
import { newId } from '../../shared/ids';
import { assertDisplayNameFree, assertHashAttribute, namespaces } from '../../shared/store/namespaces';

export const handler = endpoint(postNamespace, async ({ body, auth }) => {
  const format = body.format ?? 'multiRange';
  assertHashAttribute(format, body.hashAttribute);
  await assertDisplayNameFree(auth.orgId, body.displayName);
  const created = await namespaces.create(auth.orgId, {
    id: newId('ns-'),
    displayName: body.displayName,
    description: body.description ?? '',
    status: body.status ?? 'active',
    format,
    ...(format === 'multiRange' ? { hashAttribute: body.hashAttribute, seed: newSeed() } : {}),
  });
  return { namespace: toApiNamespace(created) };
});
