import * as contract from '../contracts/namespaces';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { namespaceMembers, newSeed, toApiNamespace } from '../domain/namespaces';
import { paginated } from '../domain/pagination';
import { InvalidInputError } from '../errors';
import { newId } from '../ids';
import { assertDisplayNameFree, assertHashAttribute, namespaceUsers, namespaces, removeNamespace } from '../store/namespaces';

/** `DELETE /namespaces/{id}`: delete a namespace no experiment uses. */
export async function deleteNamespace({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteNamespace>): UseCaseOutput<typeof contract.deleteNamespace> {
  await removeNamespace(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /namespaces/{id}/memberships`: list the experiments whose latest phase uses the namespace, with the ranges they claim. */
export async function getNamespaceMemberships({
  params,
  query,
  auth,
}: UseCaseInput<typeof contract.getNamespaceMemberships>): UseCaseOutput<typeof contract.getNamespaceMemberships> {
  // Independent reads go out together: the namespace (404 when unknown) and the experiments naming it.
  const [, users] = await Promise.all([namespaces.get(auth.orgId, params.id), namespaceUsers(auth.orgId, params.id)]);
  const members = namespaceMembers(users, params.id);
  return paginated('experiments', { items: members.slice(query.offset, query.offset + query.limit), total: members.length }, query);
}

/** `GET /namespaces/{id}`: get a namespace. */
export async function getNamespace({ params, auth }: UseCaseInput<typeof contract.getNamespace>): UseCaseOutput<typeof contract.getNamespace> {
  return {
    namespace: toApiNamespace(await namespaces.get(auth.orgId, params.id)),
  };
}

/** `GET /namespaces`: list namespaces. */
export async function listNamespaces({ query, auth }: UseCaseInput<typeof contract.listNamespaces>): UseCaseOutput<typeof contract.listNamespaces> {
  const page = await namespaces.list(auth.orgId, query);
  return paginated('namespaces', { items: page.items.map(toApiNamespace), total: page.total }, query);
}

/** `POST /namespaces/{id}/rotateSeed`: give a multiRange namespace a new seed (the given one, or a random one), reshuffling which users fall in its experiments' ranges. */
export async function postNamespaceRotateSeed({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postNamespaceRotateSeed>): UseCaseOutput<typeof contract.postNamespaceRotateSeed> {
  const updated = await namespaces.update(auth.orgId, params.id, (current) => {
    if (current.format !== 'multiRange') {
      throw new InvalidInputError(`Namespace ${current.id} is a legacy namespace, which has no seed: only a multiRange namespace's seed rotates`);
    }
    return { ...current, seed: body.seed ?? newSeed() };
  });
  return { namespace: toApiNamespace(updated) };
}

/** `POST /namespaces`: create a namespace (multiRange by default, which needs a hashAttribute). */
export async function postNamespace({ body, auth }: UseCaseInput<typeof contract.postNamespace>): UseCaseOutput<typeof contract.postNamespace> {
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
}

/** `PUT /namespaces/{id}`: update a namespace. */
export async function putNamespace({ params, body, auth }: UseCaseInput<typeof contract.putNamespace>): UseCaseOutput<typeof contract.putNamespace> {
  const updated = await namespaces.update(auth.orgId, params.id, async (current) => {
    if (body.hashAttribute !== undefined) assertHashAttribute(current.format, body.hashAttribute);
    if (body.displayName && body.displayName !== current.displayName) await assertDisplayNameFree(auth.orgId, body.displayName, current.id);
    return { ...current, ...body };
  });
  return { namespace: toApiNamespace(updated) };
}
